package tax

import (
	"context"
	"slices"

	"github.com/commercekit/commerce/internal/snapcache"
)

// maxCachedTaxes bounds the taxes kept in memory: a store with more
// answers TaxesByCode from the storage.
const maxCachedTaxes = 10000

// cachedStore is a Store whose TaxesByCode (what every cart change
// reads) comes from a snapshot of all taxes in memory, checked against
// the storage's version at least every snapcache.Interval (500 ms): the
// bound on how late a change made by another process sharing the
// database is seen. A change through this process is seen at once.
type cachedStore struct {
	Store
	cache *snapcache.Cache[snapcache.Rows[Tax]]
}

func newCachedStore(s Store) *cachedStore {
	list := func(ctx context.Context, limit int) ([]Tax, error) { return s.Taxes(ctx, Filter{Limit: limit}) }
	return &cachedStore{Store: s, cache: snapcache.NewTable(s.Version, list, maxCachedTaxes)}
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
	if !snap.Complete {
		return c.Store.TaxesByCode(ctx, codes)
	}
	var out []Tax
	for _, t := range snap.All {
		if slices.Contains(codes, t.Code) {
			out = append(out, t)
		}
	}
	return out, nil
}
