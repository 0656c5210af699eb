package snapcache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// table is a stand-in for a stored table: a version and a value, with
// counts of the queries the cache makes.
type table struct {
	version, value      atomic.Int64
	versionReads, loads atomic.Int64
	fail                atomic.Bool
	// during, when set, runs inside a load after it read the table.
	during func()
}

var errDown = errors.New("storage down")

func (tb *table) cache() *Cache[int64] {
	return New(func(context.Context) (int64, error) {
		tb.versionReads.Add(1)
		if tb.fail.Load() {
			return 0, errDown
		}
		return tb.version.Load(), nil
	}, func(context.Context) (int64, int64, error) {
		tb.loads.Add(1)
		if tb.fail.Load() {
			return 0, 0, errDown
		}
		v, val := tb.version.Load(), tb.value.Load()
		if tb.during != nil {
			tb.during()
		}
		return v, val, nil
	})
}

// change is a commit by some process: new value, version moved.
func (tb *table) change(value int64) {
	tb.value.Store(value)
	tb.version.Add(1)
}

func get(t *testing.T, c *Cache[int64]) int64 {
	t.Helper()
	v, err := c.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestServedFromMemoryWithinInterval(t *testing.T) {
	var tb table
	tb.value.Store(1)
	c := tb.cache()
	for range 100 {
		if got := get(t, c); got != 1 {
			t.Fatalf("got %d, want 1", got)
		}
	}
	if tb.loads.Load() != 1 || tb.versionReads.Load() != 0 {
		t.Errorf("100 reads made %d loads and %d version reads, want 1 and 0", tb.loads.Load(), tb.versionReads.Load())
	}
	// Another process's change is not seen before the interval is out...
	tb.change(2)
	if got := get(t, c); got != 1 {
		t.Errorf("right after another process's change: got %d, want the snapshot's 1", got)
	}
	// ...and is after it, with one version read and one load.
	time.Sleep(Interval + 50*time.Millisecond)
	if got := get(t, c); got != 2 {
		t.Errorf("after the interval: got %d, want 2", got)
	}
	if tb.loads.Load() != 2 || tb.versionReads.Load() != 1 {
		t.Errorf("loads %d, version reads %d; want 2 and 1", tb.loads.Load(), tb.versionReads.Load())
	}
	// An unchanged version keeps the snapshot: a version read, no load.
	time.Sleep(Interval + 50*time.Millisecond)
	if got := get(t, c); got != 2 {
		t.Errorf("got %d, want 2", got)
	}
	if tb.loads.Load() != 2 || tb.versionReads.Load() != 2 {
		t.Errorf("loads %d, version reads %d; want 2 and 2", tb.loads.Load(), tb.versionReads.Load())
	}
}

func TestInvalidateIsSeenAtOnce(t *testing.T) {
	var tb table
	c := tb.cache()
	get(t, c)
	tb.change(7) // a change through this process...
	c.Invalidate()
	if got := get(t, c); got != 7 {
		t.Errorf("after Invalidate: got %d, want 7", got)
	}
}

// A load that started before an Invalidate may hold the old value: its
// snapshot is not used by the reads after the Invalidate.
func TestLoadStraddlingInvalidateIsDropped(t *testing.T) {
	var tb table
	c := tb.cache()
	tb.value.Store(1)
	tb.during = func() {
		tb.during = nil
		tb.change(2) // committed while the load reads the old value
		c.Invalidate()
	}
	if got := get(t, c); got != 1 {
		t.Fatalf("the straddling load: got %d, want the value it read, 1", got)
	}
	if got := get(t, c); got != 2 {
		t.Errorf("the read after the Invalidate: got %d, want 2", got)
	}
}

// Concurrent reads that find a check due make one query, not one each.
func TestDueCheckMadeOnce(t *testing.T) {
	var tb table
	c := tb.cache()
	get(t, c)
	time.Sleep(Interval + 50*time.Millisecond)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { get(t, c) })
	}
	wg.Wait()
	if n := tb.versionReads.Load(); n != 1 {
		t.Errorf("50 concurrent reads made %d version reads, want 1", n)
	}
	if n := tb.loads.Load(); n != 1 {
		t.Errorf("loads %d, want 1 (the version did not move)", n)
	}
}

// A storage error is returned and nothing is cached: the next read tries
// again.
func TestErrorsAreNotCached(t *testing.T) {
	var tb table
	c := tb.cache()
	tb.fail.Store(true)
	if _, err := c.Get(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("got %v, want the storage's error", err)
	}
	tb.fail.Store(false)
	tb.value.Store(3)
	if got := get(t, c); got != 3 {
		t.Errorf("after the storage is back: got %d, want 3", got)
	}
	// A failing version check is an error too, not a stale answer.
	time.Sleep(Interval + 50*time.Millisecond)
	tb.fail.Store(true)
	if _, err := c.Get(context.Background()); !errors.Is(err, errDown) {
		t.Errorf("version check failing: got %v, want the storage's error", err)
	}
}

// A table over the bound is not kept: the snapshot says so, and holds no
// rows.
func TestTableBound(t *testing.T) {
	rows := []string{"a", "b", "c"}
	version := func(context.Context) (int64, error) { return 1, nil }
	var limits []int
	list := func(_ context.Context, limit int) ([]string, error) {
		limits = append(limits, limit)
		return rows[:min(limit, len(rows))], nil
	}
	got, err := NewTable(version, list, 3).Get(context.Background())
	if err != nil || !got.Complete || len(got.All) != 3 {
		t.Errorf("3 rows, bound 3: got %+v, %v; want them all", got, err)
	}
	got, err = NewTable(version, list, 2).Get(context.Background())
	if err != nil || got.Complete || len(got.All) != 0 {
		t.Errorf("3 rows, bound 2: got %+v, %v; want an incomplete, empty snapshot", got, err)
	}
	if len(limits) != 2 || limits[0] != 4 || limits[1] != 3 {
		t.Errorf("list was asked for %v rows, want [4 3] (the bound and one more)", limits)
	}
}

// Fresh sees another process's change at once, within the interval, with
// one version read (and a load only when the version moved); Get then
// serves the fresh snapshot.
func TestFreshChecksAtOnce(t *testing.T) {
	var tb table
	tb.value.Store(1)
	c := tb.cache()
	get(t, c)
	tb.change(2)
	if got := get(t, c); got != 1 {
		t.Fatalf("right after another process's change: got %d, want the snapshot's 1", got)
	}
	got, err := c.Fresh(context.Background())
	if err != nil || got != 2 {
		t.Fatalf("Fresh: got %d, %v; want 2", got, err)
	}
	if tb.loads.Load() != 2 || tb.versionReads.Load() != 1 {
		t.Errorf("loads %d, version reads %d; want 2 and 1", tb.loads.Load(), tb.versionReads.Load())
	}
	if got := get(t, c); got != 2 {
		t.Errorf("Get after Fresh: got %d, want 2", got)
	}
	// Unchanged: a version read, no load.
	if got, err := c.Fresh(context.Background()); err != nil || got != 2 || tb.loads.Load() != 2 || tb.versionReads.Load() != 2 {
		t.Errorf("Fresh unchanged: got %d, %v, loads %d, version reads %d; want 2, 2 loads, 2 reads", got, err, tb.loads.Load(), tb.versionReads.Load())
	}
}
