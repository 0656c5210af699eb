package promotion

import (
	"context"
	"fmt"
	"slices"

	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/promotion/engine"
)

// snapshot is the compiled set of active promotions, the value of the
// service's snapcache.Cache (checked against the store's Version at least
// every snapcache.Interval, reloaded when it moved or after a change
// through this service).
type snapshot struct {
	// index is the active promotions compiled; when none of them needs
	// the category membership of products (Index.UsesCategories), an
	// evaluation skips the catalog look-up.
	index *engine.Index
	// limited holds the promotions with a usage limit, by id.
	limited map[string]limited
	// codes holds the coupon codes of the promotions (CodeKey).
	codes map[string]bool
}

// newCache returns the cache of the active promotions of store.
func newCache(store Store) *snapcache.Cache[*snapshot] {
	return snapcache.New(store.Version, func(ctx context.Context) (int64, *snapshot, error) {
		version, promos, err := store.ActivePromotions(ctx)
		if err != nil {
			return 0, nil, err
		}
		return version, compile(promos), nil
	})
}

// compile builds the snapshot of the active promotions promos.
func compile(promos []Promotion) *snapshot {
	list := make([]engine.Promotion, len(promos))
	lim := map[string]limited{}
	codes := map[string]bool{}
	for i, p := range promos {
		if p.Code != nil {
			codes[p.CodeKey()] = true
		}
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
	return &snapshot{index: engine.NewIndex(list), limited: lim, codes: codes}
}

// refresh drops the snapshot after a change, whatever its outcome (a
// commit that reports an error may still have happened), and builds the
// next one here, in the admin's request, so that carts evaluating next do
// not wait for the rebuild. A failed rebuild is left to the next
// evaluation, which tries again.
func (s *Service) refresh(ctx context.Context) {
	s.cache.Invalidate()
	_, _ = s.cache.Get(context.WithoutCancel(ctx))
}

// current returns the snapshot to evaluate with (see snapcache.Cache.Get).
func (s *Service) current(ctx context.Context) (*snapshot, error) {
	snap, err := s.cache.Get(ctx)
	if err != nil {
		return nil, fmt.Errorf("active promotions: %w", err)
	}
	return snap, nil
}

// holding returns the snapshot to evaluate a cart holding the codes
// (CodeKey) with: current's, or, when it lacks one of the codes, the
// snapshot as the store holds it now (snapcache.Cache.Fresh). A cart holds
// a code because the store had it (Coupon reads the store), but this
// process's snapshot may be older than the code's promotion, created
// through another process less than snapcache.Interval ago: evaluated
// from it, the cart was priced without the coupon it lists, and its usage
// limits went unchecked (issue 27). A code whose promotion is gone or
// inactive costs one look at the store's version per evaluation.
func (s *Service) holding(ctx context.Context, codes []string) (*snapshot, error) {
	snap, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range codes {
		if !snap.codes[c] {
			if snap, err = s.cache.Fresh(ctx); err != nil {
				return nil, fmt.Errorf("active promotions: %w", err)
			}
			break
		}
	}
	return snap, nil
}

// Evaluate applies the active promotions to the entries (unit prices in
// minor units of a currency with the given precision), following
// docs/api.md section 7, with the category membership of the entries'
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
