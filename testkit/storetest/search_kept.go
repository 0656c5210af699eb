package storetest

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
)

// searchStores is one search store per database, as a process has one:
// every search of the suite goes through the results it keeps per query
// and catalog version, with the suite's writes between them.
var searchStores sync.Map

func searchStoreOf(db *sqldb.DB) *sqldb.SearchStore {
	s, _ := searchStores.LoadOrStore(db, sqldb.NewSearchStore(db))
	return s.(*sqldb.SearchStore)
}

// searchKept checks that a search answered from the results a store keeps
// is the one a fresh store computes, before and after the catalog
// changes (a price, a brand, a category, a product taken offline).
func searchKept(t *testing.T, db *sqldb.DB) {
	searchFixture(t, db)
	ctx := context.Background()
	kept := sqldb.NewSearchStore(db)
	inputs := []search.SearchInput{
		{Q: str("frigorifico"), Facets: commerce.StringList{"brand", "categories", "price"}},
		{Q: str("bosch"), Facets: commerce.StringList{"brand", "categories", "price"}, PageArgs: page(1, 1)},
		{Q: str("bosch"), Facets: commerce.StringList{"brand"}, PageArgs: page(2, 2)},
		{Facets: commerce.StringList{"price"}, Sort: str("price"), PageArgs: page(2, 0)},
		{Facets: commerce.StringList{"categories"}, PageArgs: page(2, 3)},
	}
	compare := func(when string) []*search.Result {
		t.Helper()
		var out []*search.Result
		for _, in := range inputs {
			q, _, err := in.Query()
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := sqldb.NewSearchStore(db).Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the first fills the store's results, the second reads them
				got, err := kept.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, fresh) {
					t.Fatalf("%s, %+v: kept %+v, fresh %+v", when, q, got, fresh)
				}
			}
			out = append(out, fresh)
		}
		return out
	}
	before := compare("before the changes")
	err := sqldb.NewCatalogStore(db).Update(ctx, func(tx catalog.Tx) error {
		p, v, err := tx.Product(ctx, "p-BOS-KGN39", true)
		if err != nil {
			return err
		}
		p.Prices[0].Amount, p.Brand, p.Categories = 5000, "Balay", []string{"B"}
		if err := tx.UpdateProduct(ctx, p, v); err != nil {
			return err
		}
		p, v, err = tx.Product(ctx, "p-FAG-FFK67", true)
		if err != nil {
			return err
		}
		p.Status = catalog.StatusDraft
		return tx.UpdateProduct(ctx, p, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	after := compare("after the changes")
	// The changes show in what the kept store answers (it equals the
	// fresh search): the match lost the draft, the facets moved.
	if before[0].Total != 3 || after[0].Total != 2 {
		t.Errorf("frigorifico: total %d then %d, want 3 then 2", before[0].Total, after[0].Total)
	}
	if reflect.DeepEqual(before[0].Brands, after[0].Brands) || reflect.DeepEqual(before[0].Prices, after[0].Prices) {
		t.Errorf("frigorifico's facets did not change: brands %v, prices %v", after[0].Brands, after[0].Prices)
	}
}
