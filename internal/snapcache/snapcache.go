// Package snapcache keeps a whole small table (the taxes, the shipping
// methods, the compiled active promotions) in memory as one read-only
// snapshot, valid under a version number that the storage bumps in the
// same transaction as every change of the table.
//
// Correctness across processes sharing a database: a snapshot is used
// for at most Interval after the version was last found unchanged; then
// the next Get reads the version (one primary-key query) and reloads the
// table when it moved. A change made through this process calls
// Invalidate after its commit, so this process sees it at once.
package snapcache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Interval is the longest a snapshot is used without checking the
// storage's version: the bound on how late a change made by another
// process sharing the database is seen. It is the one interval of every
// in-memory copy checked against a version (the catalog's product cache,
// which is not a snapshot, included).
const Interval = 500 * time.Millisecond

// Cache holds the current snapshot of type T. The zero value is not
// usable: make one with New.
type Cache[T any] struct {
	version func(ctx context.Context) (int64, error)
	load    func(ctx context.Context) (int64, T, error)

	epoch time.Time
	cur   atomic.Pointer[snapshot[T]]
	// gen counts invalidations: a snapshot loaded under an older one is
	// not used.
	gen atomic.Uint64
	// checked is when (nanoseconds since epoch, +1) the last version check
	// that found the snapshot current started; 0: never.
	checked atomic.Int64
	// mu makes the Gets that find a check due wait for the one in flight
	// instead of all querying the storage. It guards no data.
	mu sync.Mutex
}

type snapshot[T any] struct {
	version int64
	gen     uint64
	val     T
}

// New returns a cache reading the storage's version with version and the
// whole table with load, which returns the version it read first (so
// that the table is at least as new as it) and the table.
func New[T any](version func(ctx context.Context) (int64, error), load func(ctx context.Context) (int64, T, error)) *Cache[T] {
	return &Cache[T]{version: version, load: load, epoch: time.Now()}
}

func (c *Cache[T]) stamp() int64 { return int64(time.Since(c.epoch)) + 1 }

// current returns the snapshot when it is of this generation and was
// checked less than Interval ago.
func (c *Cache[T]) current() *snapshot[T] {
	s := c.cur.Load()
	if s == nil || s.gen != c.gen.Load() {
		return nil
	}
	if at := c.checked.Load(); at == 0 || c.stamp()-at >= int64(Interval) {
		return nil
	}
	return s
}

// Get returns the current snapshot, checking the storage's version first
// when it is due and loading the table when the version moved (or after
// Invalidate). The value is shared: callers must not change it.
func (c *Cache[T]) Get(ctx context.Context) (T, error) {
	if s := c.current(); s != nil {
		return s.val, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.current(); s != nil {
		return s.val, nil // checked meanwhile by another Get
	}
	return c.check(ctx)
}

// Fresh returns the snapshot as the storage holds it now: it checks the
// storage's version whatever the time since the last check, and loads the
// table when the version moved (or after Invalidate). It is for a caller
// that found the snapshot lacking what the storage is known to have (a
// change another process committed less than Interval ago). A check that
// started after the call is as good: callers at once share one.
func (c *Cache[T]) Fresh(ctx context.Context) (T, error) {
	asked := c.stamp()
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.cur.Load(); s != nil && s.gen == c.gen.Load() && c.checked.Load() > asked {
		return s.val, nil
	}
	return c.check(ctx)
}

// check reads the storage's version and loads the table when it moved
// (or after Invalidate); mu is held.
func (c *Cache[T]) check(ctx context.Context) (T, error) {
	start, gen := c.stamp(), c.gen.Load()
	if s := c.cur.Load(); s != nil && s.gen == gen {
		v, err := c.version(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		if v == s.version {
			c.checked.Store(start)
			return s.val, nil
		}
	}
	v, val, err := c.load(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	c.cur.Store(&snapshot[T]{version: v, gen: gen, val: val})
	c.checked.Store(start)
	return val, nil
}

// Invalidate makes the next Get load the table again: call it after a
// change through this process has committed (or may have).
func (c *Cache[T]) Invalidate() { c.gen.Add(1) }

// Rows is a whole table as a snapshot: its rows in storage order, or,
// when there were more than the cache's bound, none and Complete false
// (callers then read the storage).
type Rows[T any] struct {
	All      []T
	Complete bool
}

// Table is a cache of a whole table's rows.
type Table[T any] struct {
	*Cache[Rows[T]]
}

// NewTable returns a cache of the rows list returns, at most max of them:
// list is called with max+1 after the version is read (so that the rows
// are at least as new as it).
func NewTable[T any](version func(ctx context.Context) (int64, error), list func(ctx context.Context, limit int) ([]T, error), max int) *Table[T] {
	return &Table[T]{New(version, func(ctx context.Context) (int64, Rows[T], error) {
		v, err := version(ctx)
		if err != nil {
			return 0, Rows[T]{}, err
		}
		all, err := list(ctx, max+1)
		if err != nil {
			return 0, Rows[T]{}, err
		}
		if len(all) > max {
			return v, Rows[T]{}, nil
		}
		return v, Rows[T]{All: all, Complete: true}, nil
	})}
}

// Select returns the rows of the current snapshot (see Get) that keep
// accepts, in storage order (nil when none), and complete true; or, when
// the table had more rows than the cache keeps, none and complete false:
// the caller then reads the storage. The rows are shared: read-only.
func (t *Table[T]) Select(ctx context.Context, keep func(T) bool) (rows []T, complete bool, err error) {
	snap, err := t.Get(ctx)
	if err != nil || !snap.Complete {
		return nil, false, err
	}
	for _, r := range snap.All {
		if keep(r) {
			rows = append(rows, r)
		}
	}
	return rows, true, nil
}
