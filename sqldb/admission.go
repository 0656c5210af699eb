package sqldb

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// admission gives write transactions their turn first come, first served:
// at most n run at once (fewer than the pool's connections, so that a
// transaction with a turn never waits for a connection, which the pool
// would hand to a random waiter), and at most queue wait; beyond that a
// write is unavailable at once rather than waiting without bound.
type admission struct {
	sem     *semaphore.Weighted // FIFO: waiters are served in order
	waiting atomic.Int64
	queue   int64
}

func newAdmission(n, queue int) *admission {
	if queue <= 0 {
		queue = DefaultWriteQueue
	}
	return &admission{sem: semaphore.NewWeighted(int64(n)), queue: int64(queue)}
}

// acquire waits for a turn (or for ctx to end).
func (a *admission) acquire(ctx context.Context) error {
	if a.sem.TryAcquire(1) {
		return nil
	}
	if a.waiting.Add(1) > a.queue {
		a.waiting.Add(-1)
		return errQueueFull
	}
	defer a.waiting.Add(-1)
	return a.sem.Acquire(ctx, 1) // only ctx's error

}

// release ends a turn.
func (a *admission) release() { a.sem.Release(1) }
