package event

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Buffer collects events that may be lost in a crash (VIEWED) and writes
// them to the log in batches, at least every Interval, off the request path.
type Buffer struct {
	log      Log
	logger   *slog.Logger
	interval time.Duration
	max      int

	mu      sync.Mutex
	pending []Event
	full    chan struct{}
	done    chan struct{}
}

// NewBuffer returns a buffer writing to log every interval (at most one
// second is the contract) or as soon as max events are waiting. Call Run.
func NewBuffer(log Log, logger *slog.Logger, interval time.Duration, max int) *Buffer {
	return &Buffer{log: log, logger: logger, interval: interval, max: max,
		full: make(chan struct{}, 1), done: make(chan struct{})}
}

// Add queues an event. It never blocks on storage.
func (b *Buffer) Add(e Event) {
	b.mu.Lock()
	b.pending = append(b.pending, e)
	n := len(b.pending)
	b.mu.Unlock()
	if n >= b.max {
		select {
		case b.full <- struct{}{}:
		default:
		}
	}
}

// Run flushes until ctx ends, then flushes what is left and returns.
func (b *Buffer) Run(ctx context.Context) {
	defer close(b.done)
	t := time.NewTicker(b.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// The request context is gone; the final flush gets its own.
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			b.Flush(fctx)
			cancel()
			return
		case <-t.C:
		case <-b.full:
		}
		b.Flush(ctx)
	}
}

// Done is closed when Run has returned.
func (b *Buffer) Done() <-chan struct{} { return b.done }

// Flush writes the pending events now. On a storage failure the batch is
// kept for the next flush, up to 100 times max, after which the oldest are
// dropped (VIEWED events are allowed to be lost; memory is not unbounded).
func (b *Buffer) Flush(ctx context.Context) {
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if err := b.log.Append(ctx, batch); err != nil {
		b.logger.Error("write buffered events", "count", len(batch), "err", err)
		b.mu.Lock()
		if keep := 100 * b.max; len(batch)+len(b.pending) > keep {
			batch = batch[min(len(batch), len(batch)+len(b.pending)-keep):]
		}
		b.pending = append(batch, b.pending...)
		b.mu.Unlock()
	}
}
