package promotion

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/commercekit/commerce/promotion/engine"
)

// RefreshInterval is the longest an instance uses its cache of active
// promotions without checking the version number in the database: the
// bound on how late a change made through another instance takes effect.
const RefreshInterval = 500 * time.Millisecond

// snapshot is the compiled set of active promotions as of a version.
type snapshot struct {
	version int64
	// index is the active promotions compiled; when none of them needs
	// the category membership of products (Index.UsesCategories), an
	// evaluation skips the catalog look-up.
	index *engine.Index
	// limited holds the promotions with a usage limit, by id.
	limited map[string]limited
}

// cache holds the current snapshot and when the version was last checked.
type cache struct {
	snap atomic.Pointer[snapshot]
	// epoch gives the monotonic clock that checked is measured on.
	epoch time.Time
	// checked is when (nanoseconds since epoch, +1) the last version check
	// that found the snapshot current started; 0 forces a check.
	checked atomic.Int64
	// mu makes the evaluations that find a check due wait for the one in
	// flight instead of all querying the database. It guards no data:
	// snap and checked are atomics, and correctness across processes
	// comes from the database's version number.
	mu sync.Mutex
}

func (c *cache) init() { c.epoch = time.Now() }

// stamp returns the monotonic time now, never 0.
func (c *cache) stamp() int64 { return int64(time.Since(c.epoch)) + 1 }

// fresh reports whether the version was checked recently enough.
func (c *cache) fresh() bool {
	at := c.checked.Load()
	return at != 0 && c.stamp()-at < int64(RefreshInterval)
}

// install makes snap current unless a newer version is already
// installed, and returns the current snapshot.
func (c *cache) install(snap *snapshot) *snapshot {
	for {
		cur := c.snap.Load()
		if cur != nil && cur.version > snap.version {
			return cur
		}
		if c.snap.CompareAndSwap(cur, snap) {
			return snap
		}
	}
}

// current returns the snapshot to evaluate with: the cached one when the
// version was checked less than RefreshInterval ago, else after checking
// the version (and rebuilding the index when it moved).
func (s *Service) current(ctx context.Context) (*snapshot, error) {
	c := &s.cache
	if snap := c.snap.Load(); snap != nil && c.fresh() {
		return snap, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := c.snap.Load()
	if snap != nil && c.fresh() {
		return snap, nil // another evaluation just checked
	}
	start := c.stamp()
	if snap != nil {
		v, err := s.store.PromotionsVersion(ctx)
		if err != nil {
			return nil, fmt.Errorf("promotions version: %w", err)
		}
		if v == snap.version {
			c.checked.Store(start)
			return snap, nil
		}
	}
	snap, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	c.checked.Store(start)
	return snap, nil
}

// load reads the active promotions, compiles them and installs the result.
func (s *Service) load(ctx context.Context) (*snapshot, error) {
	version, promos, err := s.store.ActivePromotions(ctx)
	if err != nil {
		return nil, fmt.Errorf("load active promotions: %w", err)
	}
	list := make([]engine.Promotion, len(promos))
	lim := map[string]limited{}
	for i, p := range promos {
		list[i] = engine.Promotion{
			ID: p.ID, Title: p.Title, Priority: p.Priority, Seq: p.Seq,
			Rules: engine.Rules{If: p.If, Then: p.Then}, Code: p.CodeKey(),
		}
		if p.StartDate != nil {
			list[i].Start = *p.StartDate
		}
		if p.EndDate != nil {
			list[i].End = *p.EndDate
		}
		if p.UsageLimit != nil || p.UsageLimitPerCustomer != nil {
			lim[p.ID] = limitsOf(p)
		}
	}
	return s.cache.install(&snapshot{version: version, index: engine.NewIndex(list), limited: lim}), nil
}

// changed rebuilds the cache after a change committed through this
// instance, so that the change is in use as soon as the operation answers.
// The change is committed whatever happens here: when the rebuild fails,
// the next evaluation checks the version instead.
func (s *Service) changed(ctx context.Context) {
	start := s.cache.stamp()
	if _, err := s.load(context.WithoutCancel(ctx)); err != nil {
		s.cache.checked.Store(0)
		return
	}
	s.cache.checked.Store(start)
}

// Evaluate applies the active promotions to the entries (unit prices in
// minor units of a currency with the given precision), following
// CONTRACT.md section 7, with the category membership of the entries'
// products (descendant categories included) from the catalog; products the
// catalog does not know are in no category. The caller bounds the
// quantities (the cart allows MaxQuantity per product and MaxEntries
// entries): the work grows with the number of units. It is EvaluateCart
// for an anonymous cart without coupons or shipping method.
func (s *Service) Evaluate(ctx context.Context, entries []engine.Entry, precision int) (engine.Result, error) {
	out, err := s.EvaluateCart(ctx, CartEval{Entries: entries, Precision: precision})
	return out.Result, err
}

// categories looks up the category membership of the entries' products.
func (s *Service) categories(ctx context.Context, entries []engine.Entry) (engine.Categories, error) {
	if s.catalog == nil {
		return nil, nil
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Quantity > 0 && !slices.Contains(ids, e.ProductID) {
			ids = append(ids, e.ProductID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	m, err := s.catalog.CategoryAncestors(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("category membership: %w", err)
	}
	return engine.Categories(m), nil
}
