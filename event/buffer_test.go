package event_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/testkit/testdb"
)

func TestBufferFlushesWithinInterval(t *testing.T) {
	db := testdb.SQLite(t)
	b := event.NewBuffer(db, slog.New(slog.DiscardHandler), 100*time.Millisecond, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx)
	for i := range 3 {
		e, err := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		b.Add(e)
	}
	deadline := time.Now().Add(2 * time.Second)
	var got []event.Event
	for time.Now().Before(deadline) {
		got, _ = db.List(context.Background(), event.Filter{Limit: 10})
		if len(got) == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 3 || got[0].Type != event.Viewed {
		t.Fatalf("got %d events after the interval, want 3 VIEWED", len(got))
	}
	// What is added before shutdown is flushed by it.
	e, _ := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": 3})
	b.Add(e)
	cancel()
	<-b.Done()
	got, _ = db.List(context.Background(), event.Filter{Limit: 10})
	if len(got) != 4 {
		t.Errorf("got %d events after shutdown, want 4", len(got))
	}
}

func TestBufferFlushesWhenFull(t *testing.T) {
	db := testdb.SQLite(t)
	b := event.NewBuffer(db, slog.New(slog.DiscardHandler), time.Hour, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); <-b.Done() }()
	go b.Run(ctx)
	for i := range 5 {
		e, _ := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": i})
		b.Add(e)
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if got, _ := db.List(context.Background(), event.Filter{Limit: 10}); len(got) == 5 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a full buffer was not flushed before the interval")
}

// gatedLog is the real SQLite event log whose Append waits until the gate
// opens: a slow flush.
type gatedLog struct {
	event.Log
	gate    chan struct{}
	entered chan struct{}
}

func (g *gatedLog) Append(ctx context.Context, events []event.Event) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	return g.Log.Append(ctx, events)
}

// Issue 9 defect 12: while a flush is slow, the buffer holds at most its
// capacity; what does not fit is dropped, counted in a metric and logged,
// once for many drops.
func TestBufferBoundedWhileFlushIsSlow(t *testing.T) {
	db := testdb.SQLite(t)
	slow := &gatedLog{Log: db, gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	logs := &levelCounter{}
	const max = 5
	b := event.NewBuffer(slow, slog.New(logs), time.Hour, max)
	reg := prometheus.NewRegistry()
	if err := reg.Register(b.Collector()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx)
	viewed := func(i int) event.Event {
		e, err := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for i := range max {
		b.Add(viewed(i))
	}
	select { // the first batch is being written, slowly
	case <-slow.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("a full buffer was not flushed")
	}
	capacity := b.Capacity()
	extra := 3 * capacity
	for i := range extra {
		b.Add(viewed(max + i))
	}
	if got := b.Pending(); got != capacity {
		t.Errorf("pending = %d while the flush is slow, want the capacity %d", got, capacity)
	}
	wantDropped := float64(extra - capacity)
	if got := gathered(t, reg, "commerce_events_dropped_total"); got != wantDropped {
		t.Errorf("commerce_events_dropped_total = %v, want %v", got, wantDropped)
	}
	if w := logs.count(slog.LevelWarn); w != 1 {
		t.Errorf("%d warnings for %v drops, want 1 (rate-limited)", w, wantDropped)
	}
	// Once the log keeps up again, the first batch and what the buffer
	// held are written.
	close(slow.gate)
	var got []event.Event
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var err error
		if got, err = db.List(context.Background(), event.Filter{Limit: 1000}); err != nil {
			t.Fatal(err)
		}
		if len(got) >= max+capacity {
			break
		}
	}
	cancel()
	<-b.Done()
	if len(got) != max+capacity {
		t.Errorf("%d events written, want the first batch and the capacity: %d", len(got), max+capacity)
	}
}

type levelCounter struct {
	mu sync.Mutex
	n  map[slog.Level]int
}

func (l *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *levelCounter) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[slog.Level]int{}
	}
	l.n[r.Level]++
	return nil
}
func (l *levelCounter) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levelCounter) WithGroup(string) slog.Handler      { return l }
func (l *levelCounter) count(level slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[level]
}

// gathered returns the value of the counter named name in reg.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("%s is not registered", name)
	return 0
}

// flakyLog is the real SQLite event log whose first Appends fail: with
// nothing written (down), or after writing the batch, the outcome then
// unknown to the caller (a COMMIT whose answer was lost: lost).
type flakyLog struct {
	event.Log
	down, lost int
}

func (f *flakyLog) Append(ctx context.Context, events []event.Event) error {
	if f.down > 0 {
		f.down--
		return errors.New("the database is down")
	}
	err := f.Log.Append(ctx, events)
	if err == nil && f.lost > 0 {
		f.lost--
		return errors.New("commit: connection reset by peer")
	}
	return err
}

// A batch whose write failed is written again, before the events added
// since; one that was written although its write reported a failure is not
// written twice, and does not hold up the events after it.
func TestBufferRetriesFailedBatches(t *testing.T) {
	for _, tc := range []struct {
		name       string
		down, lost int
	}{{"down twice", 2, 0}, {"outcome unknown", 0, 1}, {"down, then outcome unknown", 1, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			db := testdb.SQLite(t)
			b := event.NewBuffer(&flakyLog{Log: db, down: tc.down, lost: tc.lost}, slog.New(slog.DiscardHandler), time.Hour, 100)
			ctx := context.Background()
			var want []string
			for i := range 6 {
				e, err := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": i})
				if err != nil {
					t.Fatal(err)
				}
				b.Add(e)
				want = append(want, e.ID)
				b.Flush(ctx)
			}
			b.Flush(ctx)
			b.Flush(ctx)
			got, err := db.List(ctx, event.Filter{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			if !slices.Equal(ids, want) {
				t.Errorf("the log holds %v, want each event once, in order: %v", ids, want)
			}
			if n := b.Pending(); n != 0 {
				t.Errorf("%d events still pending, want none", n)
			}
		})
	}
}
