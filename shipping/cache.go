package shipping

import (
	"context"

	"github.com/commercekit/commerce/internal/snapcache"
)

// maxCachedMethods bounds the methods kept in memory: a store with more
// answers from the storage.
const maxCachedMethods = 5000

// cachedStore is a Store whose Method and ActiveMethods (what a cart
// with a shipping address reads on every change) come from a snapshot of
// all methods (active or not) in memory, checked against the storage's
// version at least every snapcache.Interval (500 ms): the bound on how
// late a change made by another process sharing the database is seen. A
// change through this process is seen at once. The methods are shared:
// read-only.
type cachedStore struct {
	Store
	cache *snapcache.Cache[snapcache.Rows[Method]]
}

func newCachedStore(s Store) *cachedStore {
	list := func(ctx context.Context, limit int) ([]Method, error) { return s.Methods(ctx, Filter{Limit: limit}) }
	return &cachedStore{Store: s, cache: snapcache.NewTable(s.Version, list, maxCachedMethods)}
}

// Update implements Store, dropping the snapshot once fn's changes are
// committed (and also when it fails: a commit that reports an error may
// still have happened).
func (c *cachedStore) Update(ctx context.Context, fn func(tx Tx) error) error {
	err := c.Store.Update(ctx, fn)
	c.cache.Invalidate()
	return err
}

// Method implements Store from the snapshot.
func (c *cachedStore) Method(ctx context.Context, id string) (Method, error) {
	snap, err := c.cache.Get(ctx)
	if err != nil {
		return Method{}, err
	}
	if !snap.Complete {
		return c.Store.Method(ctx, id)
	}
	// A linear look-up: stores have a handful of methods.
	for _, m := range snap.All {
		if m.ID == id {
			return m, nil
		}
	}
	return Method{}, NotFound(id)
}

// ActiveMethods implements Store from the snapshot: the active methods
// with a location in the country, in creation order.
func (c *cachedStore) ActiveMethods(ctx context.Context, country string) ([]Method, error) {
	snap, err := c.cache.Get(ctx)
	if err != nil {
		return nil, err
	}
	if !snap.Complete {
		return c.Store.ActiveMethods(ctx, country)
	}
	out := []Method{}
	for _, m := range snap.All {
		if m.Active && m.serves(country) {
			out = append(out, m)
		}
	}
	return out, nil
}

// serves reports whether one of m's rate groups has a location in the
// country.
func (m Method) serves(country string) bool {
	for _, g := range m.Rates {
		for _, l := range g.Locations {
			if l.Country == country {
				return true
			}
		}
	}
	return false
}
