// Package dispatch runs the work queues that several processes share
// through claimed rows (docs/architecture.md, "Transactions and events"):
// the mail queue and the webhook deliveries.
package dispatch

import (
	"context"
	"sync"
	"time"

	"github.com/commercekit/commerce"
)

// Config is a dispatcher's: Workers attempts at once at most, a look for
// due work every Poll at least, and at once when Wake receives.
type Config struct {
	Workers int
	Poll    time.Duration
	Wake    <-chan struct{}
}

// Run claims due work with claim and attempts each item with attempt, on
// a goroutine of its own, Workers at a time, until ctx ends; it returns
// once every attempt has. It claims only as many items as it has idle
// workers, so that every claimed item is attempted at once, well within
// its lease. Each claim has a token of its own (a new id) that its
// attempts get: when a lease runs out while its attempt is still being
// recorded and this dispatcher claims the item again, the store refuses
// the late record, as another process's would be. A failed claim is
// given to failed and tried again a second later.
func Run[T any](ctx context.Context, cfg Config,
	claim func(ctx context.Context, token string, n int) ([]T, error),
	attempt func(ctx context.Context, token string, item T),
	failed func(err error)) {
	idle := make(chan struct{}, cfg.Workers)
	for range cfg.Workers {
		idle <- struct{}{}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	poll := time.NewTicker(cfg.Poll)
	defer poll.Stop()
	for ctx.Err() == nil {
		// Wait for one idle worker, then take every other idle one.
		select {
		case <-idle:
		case <-ctx.Done():
			return
		}
		n := 1
	more:
		for n < cfg.Workers {
			select {
			case <-idle:
				n++
			default:
				break more
			}
		}
		token := commerce.NewID()
		batch, err := claim(ctx, token, n)
		for range n - len(batch) {
			idle <- struct{}{}
		}
		if err != nil {
			if ctx.Err() == nil {
				failed(err)
				commerce.Sleep(ctx, time.Second)
			}
			continue
		}
		for _, item := range batch {
			wg.Go(func() {
				defer func() { idle <- struct{}{} }()
				attempt(ctx, token, item)
			})
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
		case <-cfg.Wake:
		case <-poll.C:
		}
	}
}
