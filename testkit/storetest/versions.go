package storetest

import (
	"context"

	"testing"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/sqldb"
)

// Versions is the suite of the versions that the in-memory copies of the
// catalog, the promotions, the taxes and the shipping methods are checked
// against: one mechanism for all four (a Version method of the area's
// store), each moved by a change of its own area and by no other.
func Versions(t *testing.T, open Opener) {
	t.Run("each area moves its own version", func(t *testing.T) { versionsApart(t, open(t)) })
}

func versionsApart(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	cat, promos := sqldb.NewCatalogStore(db), sqldb.NewPromotionStore(db)
	taxes, methods := sqldb.NewTaxStore(db), sqldb.NewShippingStore(db)
	lists := sqldb.NewPriceListStore(db)
	read := func() map[string]int64 {
		return map[string]int64{
			"catalog": versionOf(t, cat.Version), "promotions": versionOf(t, promos.Version),
			"taxes": versionOf(t, taxes.Version), "shipping": versionOf(t, methods.Version),
			"pricelists": versionOf(t, lists.Version),
		}
	}
	changes := []struct {
		area   string
		change func()
	}{
		{"catalog", func() { seed(t, cat, []*catalog.Category{newCategory("v", root)}) }},
		{"promotions", func() { createPromotions(t, promos, fixturePromotion(t, "v", true, 0, "p")) }},
		{"taxes", func() { createTaxes(t, taxes, fixtureTax("v", "V", "", money.Decimal{Units: 1}, true)) }},
		{"shipping", func() { createMethods(t, methods, fixtureMethod("V", true, "default", 1, "GB")) }},
		{"pricelists", func() {
			if err := lists.Update(context.Background(), func(tx pricelist.Tx) error {
				return tx.Insert(context.Background(), fixturePriceList("v", pricelist.StatusActive))
			}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range changes {
		before := read()
		c.change()
		after := read()
		for area, v := range after {
			if moved := v != before[area]; moved != (area == c.area) {
				t.Errorf("a change of %s: %s version %d -> %d, want it to move iff it is %s's", c.area, area, before[area], v, c.area)
			}
		}
		if after[c.area] < before[c.area] {
			t.Errorf("a change of %s: its version went back from %d to %d", c.area, before[c.area], after[c.area])
		}
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM area_versions`).Scan(&n); err != nil || n != len(changes) {
		t.Errorf("area_versions: got %d rows (%v), want one per cached area (%d)", n, err, len(changes))
	}

}
