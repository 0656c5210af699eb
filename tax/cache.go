package tax

import (
	"context"
	"slices"

	"github.com/commercekit/commerce/internal/snapcache"
)

// maxCachedTaxes bounds the taxes kept in memory: a store with more
// answers TaxesByCode from the storage.
const maxCachedTaxes = 10000

// snapshot is every tax in creation order; complete is false when there
// were more than maxCachedTaxes (then all is empty).
type snapshot struct {
	all      []Tax
	complete bool
}

// cachedStore is a Store whose TaxesByCode (what every cart change
// reads) comes from a snapshot of all taxes in memory, checked against
// the storage's version at least every snapcache.Interval (500 ms): the
// bound on how late a change made by another process sharing the
// database is seen. A change through this process is seen at once.
type cachedStore struct {
	Store
	cache *snapcache.Cache[snapshot]
}

func newCachedStore(s Store) *cachedStore {
	return &cachedStore{Store: s, cache: snapcache.New(s.Version, func(ctx context.Context) (int64, snapshot, error) {
		v, err := s.Version(ctx) // first: the taxes read next are at least as new
		if err != nil {
			return 0, snapshot{}, err
		}
		all, err := s.Taxes(ctx, Filter{Limit: maxCachedTaxes + 1})
		if err != nil {
			return 0, snapshot{}, err
		}
		if len(all) > maxCachedTaxes {
			return v, snapshot{}, nil
		}
		return v, snapshot{all: all, complete: true}, nil
	})}
}

// Update implements Store, dropping the snapshot once fn's changes are
// committed (and also when it fails: a commit that reports an error may
// still have happened).
func (c *cachedStore) Update(ctx context.Context, fn func(tx Tx) error) error {
	err := c.Store.Update(ctx, fn)
	c.cache.Invalidate()
	return err
}

// TaxesByCode implements Store from the snapshot.
func (c *cachedStore) TaxesByCode(ctx context.Context, codes []string) ([]Tax, error) {
	snap, err := c.cache.Get(ctx)
	if err != nil {
		return nil, err
	}
	if !snap.complete {
		return c.Store.TaxesByCode(ctx, codes)
	}
	var out []Tax
	for _, t := range snap.all {
		if slices.Contains(codes, t.Code) {
			out = append(out, t)
		}
	}
	return out, nil
}
