package event

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/commercekit/commerce"
)

// DropLogInterval is how often, at most, the buffer logs that it dropped
// events (with the count since its last such line), so a slow event log
// does not also flood the log.
const DropLogInterval = 10 * time.Second

// Buffer collects events that may be lost in a crash (VIEWED) and writes
// them to the log in batches, at least every Interval, off the request path.
//
// It holds at most Capacity events waiting (100 batches), besides the batch
// being written: while the log is slow or failing, what does not fit is
// dropped (VIEWED events may be lost; memory must stay bounded), counted in
// the metric commerce_events_dropped_total and reported in the log at WARN,
// at most once every DropLogInterval.
type Buffer struct {
	log      Log
	logger   *slog.Logger
	interval time.Duration
	max      int
	capacity int
	dropped  prometheus.Counter

	mu      sync.Mutex
	pending []Event // added since the last flush began
	// retry are the batches whose write failed, oldest first, each to be
	// written again as it was (see Flush); held counts their events.
	retry           [][]Event
	held            int
	droppedSinceLog int
	lastDropLog     time.Time

	full chan struct{}
	done chan struct{}
}

// NewBuffer returns a buffer writing to log every interval (at most one
// second is the contract) or as soon as max events are waiting. Call Run,
// and register Collector on the service's metrics registry.
func NewBuffer(log Log, logger *slog.Logger, interval time.Duration, max int) *Buffer {
	return &Buffer{log: log, logger: logger, interval: interval, max: max, capacity: 100 * max,
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "commerce_events_dropped_total",
			Help: "Buffered (VIEWED) events dropped because the buffer was full: the event log is not keeping up.",
		}),
		full: make(chan struct{}, 1), done: make(chan struct{})}
}

// Collector returns the buffer's metric, commerce_events_dropped_total.
func (b *Buffer) Collector() prometheus.Collector { return b.dropped }

// Capacity is the most events the buffer holds waiting.
func (b *Buffer) Capacity() int { return b.capacity }

// Pending is the number of events waiting (not counting a batch being
// written).
func (b *Buffer) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending) + b.held
}

// Add queues an event. It never blocks on storage; when the buffer is full
// the event is dropped.
func (b *Buffer) Add(e Event) {
	b.mu.Lock()
	if len(b.pending)+b.held >= b.capacity {
		report := b.dropLocked(1)
		b.mu.Unlock()
		b.reportDrops(report)
		return
	}
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

// dropLocked counts n dropped events and returns how many to report in the
// log now (0 while the last report is recent). b.mu is held.
func (b *Buffer) dropLocked(n int) int {
	b.dropped.Add(float64(n))
	b.droppedSinceLog += n
	now := time.Now()
	if !b.lastDropLog.IsZero() && now.Sub(b.lastDropLog) < DropLogInterval {
		return 0
	}
	report := b.droppedSinceLog
	b.droppedSinceLog, b.lastDropLog = 0, now
	return report
}

func (b *Buffer) reportDrops(n int) {
	if n > 0 {
		b.logger.Warn("buffered events dropped: the event log is not keeping up",
			"dropped", n, "capacity", b.capacity, "next report within", DropLogInterval)
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
// kept, and written again as it was at the next flush, before the events
// added since, within the capacity: the oldest that do not fit are dropped
// (and counted).
//
// A failure may leave the outcome unknown (a COMMIT whose answer was
// lost): the batch may be in the log already. Since a batch is written
// whole or not at all (Log.Append), a kept batch that then fails with
// duplicate_key was written by that earlier attempt, and is done with;
// otherwise it would fail so at every flush, holding up every later event.
func (b *Buffer) Flush(ctx context.Context) {
	b.mu.Lock()
	batches, retried := b.retry, len(b.retry)
	if len(b.pending) > 0 {
		batches = append(batches, b.pending)
	}
	b.retry, b.held, b.pending = nil, 0, nil
	b.mu.Unlock()
	for i, batch := range batches {
		err := b.log.Append(ctx, batch)
		if err == nil || i < retried && commerce.ErrorCode(err) == commerce.EDuplicateKey {
			continue
		}
		b.logger.Error("write buffered events", "count", len(batch), "err", err)
		b.keep(batches[i:])
		return
	}
}

// keep puts batches, which failed, in front of those to write again,
// then drops the oldest events beyond the capacity.
func (b *Buffer) keep(batches [][]Event) {
	b.mu.Lock()
	b.retry = append(batches, b.retry...)
	for _, batch := range batches {
		b.held += len(batch)
	}
	dropped := 0
	for over := b.held + len(b.pending) - b.capacity; over > 0 && len(b.retry) > 0; {
		n := min(over, len(b.retry[0]))
		if b.retry[0] = b.retry[0][n:]; len(b.retry[0]) == 0 {
			b.retry = b.retry[1:]
		}
		b.held, over, dropped = b.held-n, over-n, dropped+n
	}
	report := 0
	if dropped > 0 {
		report = b.dropLocked(dropped)
	}
	b.mu.Unlock()
	b.reportDrops(report)
}
