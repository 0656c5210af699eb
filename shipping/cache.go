package shipping

import (
	"context"

	"github.com/commercekit/commerce/internal/snapcache"
)

// maxCachedMethods bounds the methods kept in memory: a store with more
// answers from the storage.
const maxCachedMethods = 5000

// newCache returns the snapshot of all methods (active or not) in memory
// that the service answers method and activeMethods (what a cart with a
// shipping address reads on every change) from, checked against the
// storage's version at least every snapcache.Interval (500 ms): the bound
// on how late a change made by another process sharing the database is
// seen. A change through this service drops it (table.Changes), so it is
// seen at once. The methods are shared: read-only.
func newCache(s Store) *snapcache.Table[Method] {
	list := func(ctx context.Context, limit int) ([]Method, error) { return s.Methods(ctx, Filter{Limit: limit}) }
	return snapcache.NewTable(s.Version, list, maxCachedMethods)
}

// method is Store.Method from the snapshot (a linear look-up: stores have
// a handful of methods).
func (s *Service) method(ctx context.Context, id string) (Method, error) {
	found, complete, err := s.cache.Select(ctx, func(m Method) bool { return m.ID == id })
	switch {
	case err != nil:
		return Method{}, err
	case !complete:
		return s.store.Method(ctx, id)
	case len(found) == 0:
		return Method{}, NotFound(id)
	}
	return found[0], nil
}

// activeMethods is Store.ActiveMethods from the snapshot: the active
// methods with a location in the country, in creation order.
func (s *Service) activeMethods(ctx context.Context, country string) ([]Method, error) {
	out, complete, err := s.cache.Select(ctx, func(m Method) bool { return m.Active && m.serves(country) })
	switch {
	case err != nil:
		return nil, err
	case !complete:
		return s.store.ActiveMethods(ctx, country)
	case out == nil:
		return []Method{}, nil
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
