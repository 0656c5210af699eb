package tax

import (
	"context"
	"slices"

	"github.com/commercekit/commerce/internal/snapcache"
)

// maxCachedTaxes bounds the taxes kept in memory: a store with more
// answers TaxesByCode from the storage.
const maxCachedTaxes = 10000

// newCache returns the snapshot of all taxes in memory that the service
// answers taxesByCode (what every cart change reads) from, checked against
// the storage's version at least every snapcache.Interval (500 ms): the
// bound on how late a change made by another process sharing the database
// is seen. A change through this service drops it (table.Changes), so it
// is seen at once.
func newCache(s Store) *snapcache.Table[Tax] {
	list := func(ctx context.Context, limit int) ([]Tax, error) { return s.Taxes(ctx, Filter{Limit: limit}) }
	return snapcache.NewTable(s.Version, list, maxCachedTaxes)
}

// taxesByCode is Store.TaxesByCode from the snapshot.
func (s *Service) taxesByCode(ctx context.Context, codes []string) ([]Tax, error) {
	out, complete, err := s.cache.Select(ctx, func(t Tax) bool { return slices.Contains(codes, t.Code) })
	if err != nil || complete {
		return out, err
	}
	return s.store.TaxesByCode(ctx, codes)
}
