package sqldb_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"commerce"
	"commerce/catalog"
	"commerce/internal/testdb"
	"commerce/sqldb"
)

// catalogSeed creates a category under ROOT and a product in it through the
// store, and returns them.
func catalogSeed(t testing.TB, store *sqldb.CatalogStore, slug, sku string) (*catalog.Category, *catalog.Product) {
	t.Helper()
	c := &catalog.Category{ID: commerce.NewID(), Title: slug, Slug: slug, Parent: catalog.RootID, Level: 2}
	c.Path = "ROOT." + c.ID
	p := catalogProduct(sku, c.ID)
	err := store.Update(context.Background(), func(tx catalog.Tx) error {
		if err := tx.CreateCategory(context.Background(), c); err != nil {
			return err
		}
		return tx.CreateProducts(context.Background(), []*catalog.Product{p})
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

func catalogProduct(sku string, categories ...string) *catalog.Product {
	return &catalog.Product{ID: commerce.NewID(), SKU: sku, Status: catalog.StatusOnline, Title: "Product " + sku,
		Categories: categories, TaxCode: catalog.DefaultTaxCode, Prices: []catalog.Price{{ID: commerce.NewID(), Amount: 100, Currency: "USD"}},
		Medias: []catalog.Media{}, Classifications: []catalog.ClassificationValue{}}
}

func TestCatalogStoreErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		cat, p := catalogSeed(t, store, "c", "P1")
		tests := []struct {
			name string
			fn   func(tx catalog.Tx) error
			code string
			data any
		}{
			{"stale version", func(tx catalog.Tx) error {
				got, v, err := tx.Product(ctx, p.ID, true)
				if err != nil {
					return err
				}
				return tx.UpdateProduct(ctx, got, v-1)
			}, commerce.EProductNotSaved, nil},
			{"unknown product", func(tx catalog.Tx) error {
				_, _, err := tx.Product(ctx, "nope", true)
				return err
			}, commerce.EProductNotFound, "nope"},
			{"remove unknown product", func(tx catalog.Tx) error { return tx.RemoveProduct(ctx, "nope") }, commerce.EProductNotFound, "nope"},
			// The service checks these first; the database still refuses
			// them when a concurrent change slips in between.
			{"category with products", func(tx catalog.Tx) error { return tx.RemoveCategory(ctx, cat.ID) }, commerce.ECategoryNotEmpty, cat.ID},
			{"category with children", func(tx catalog.Tx) error { return tx.RemoveCategory(ctx, catalog.RootID) }, commerce.ECategoryNotEmpty, catalog.RootID},
			{"product in a removed category", func(tx catalog.Tx) error {
				return tx.CreateProducts(ctx, []*catalog.Product{catalogProduct("P2", "gone")})
			}, commerce.ECategoryNotFound, "gone"},
			{"category under a removed parent", func(tx catalog.Tx) error {
				return tx.CreateCategory(ctx, &catalog.Category{ID: "x", Title: "x", Slug: "x", Parent: "gone", Level: 3, Path: "ROOT.gone.x"})
			}, commerce.EParentCategoryNotFound, "gone"},
			{"duplicate sku, single", func(tx catalog.Tx) error {
				return tx.CreateProducts(ctx, []*catalog.Product{catalogProduct("P1", cat.ID)})
			}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "P1"}},
			{"duplicate sku in a batch", func(tx catalog.Tx) error {
				return tx.CreateProducts(ctx, []*catalog.Product{catalogProduct("B1", cat.ID), catalogProduct("P1", cat.ID)})
			}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "P1"}},
			{"duplicate sku within a batch", func(tx catalog.Tx) error {
				return tx.CreateProducts(ctx, []*catalog.Product{catalogProduct("B2", cat.ID), catalogProduct("B2", cat.ID)})
			}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "B2"}},
			{"duplicate slug", func(tx catalog.Tx) error {
				return tx.CreateCategory(ctx, &catalog.Category{ID: "y", Title: "y", Slug: "c", Parent: catalog.RootID, Level: 2, Path: "ROOT.y"})
			}, commerce.EDuplicateKey, map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": "c"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := store.Update(ctx, tc.fn)
				if code := commerce.ErrorCode(err); code != tc.code {
					t.Fatalf("got %v (%s), want %s", err, code, tc.code)
				}
				if tc.data != nil && fmt.Sprint(commerce.ErrorData(err)) != fmt.Sprint(tc.data) {
					t.Errorf("got data %v, want %v", commerce.ErrorData(err), tc.data)
				}
			})
		}
		t.Run("nothing changed", func(t *testing.T) {
			got, err := store.ListProducts(ctx, catalog.ProductFilter{Statuses: []string{catalog.StatusOnline}, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].ID != p.ID {
				t.Errorf("got %d products, want only %s", len(got), p.ID)
			}
		})
	})
}

// staleStore makes the first `stale` product reads of its transactions
// report an outdated version, as when another process wrote the product
// between the read and the write.
type staleStore struct {
	catalog.Store
	stale *atomic.Int32
}

func (s staleStore) Update(ctx context.Context, fn func(tx catalog.Tx) error) error {
	return s.Store.Update(ctx, func(tx catalog.Tx) error { return fn(staleTx{tx, s.stale}) })
}

type staleTx struct {
	catalog.Tx
	stale *atomic.Int32
}

func (t staleTx) Product(ctx context.Context, id string, lock bool) (*catalog.Product, int64, error) {
	p, v, err := t.Tx.Product(ctx, id, lock)
	if t.stale.Add(-1) >= 0 {
		v--
	}
	return p, v, err
}

func TestCatalogUpdateRetriesLostRace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		store := sqldb.NewCatalogStore(db)
		_, p := catalogSeed(t, store, "c", "P1")
		tests := []struct {
			name  string
			stale int32
			code  string
		}{
			{"first try", 0, ""},
			{"won on a retry", 4, ""},
			{"lost every time", 5, commerce.EProductNotSaved},
		}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				n := new(atomic.Int32)
				n.Store(tc.stale)
				svc := catalog.NewService(staleStore{store, n}, nil, nil)
				title := fmt.Sprintf("title %d", i)
				_, err := svc.UpdateProduct(context.Background(), p.ID, catalog.ProductInput{Title: &title})
				if code := commerce.ErrorCode(err); code != tc.code {
					t.Fatalf("got %v, want %q", err, tc.code)
				}
				got, err := store.Product(context.Background(), p.ID)
				if err != nil {
					t.Fatal(err)
				}
				if saved := got.Title == title; saved != (tc.code == "") {
					t.Errorf("title %q after the update, saved %v", got.Title, saved)
				}
			})
		}
	})
}

// TestCatalogStoreNoLostWrite runs 20 read-merge-write transactions on one
// product in parallel, each adding its own price: all 20 must be there.
func TestCatalogStoreNoLostWrite(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		_, p := catalogSeed(t, store, "c", "P1")
		const n = 20
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				errs <- store.Update(ctx, func(tx catalog.Tx) error {
					got, v, err := tx.Product(ctx, p.ID, true)
					if err != nil {
						return err
					}
					got.Prices = append(got.Prices, catalog.Price{ID: fmt.Sprintf("w%02d", i), Amount: int64(i), Currency: "EUR"})
					return tx.UpdateProduct(ctx, got, v)
				})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		got, err := store.Product(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, pr := range got.Prices[1:] {
			ids = append(ids, pr.ID)
		}
		slices.Sort(ids)
		if len(ids) != n || ids[0] != "w00" || ids[n-1] != fmt.Sprintf("w%02d", n-1) {
			t.Errorf("got prices %v, want w00..w%02d", ids, n-1)
		}
		// the side table follows the document
		list, err := store.ListProducts(ctx, catalog.ProductFilter{Statuses: []string{catalog.StatusOnline}, PriceIDs: []string{"w07"}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 {
			t.Errorf("prices.id filter: got %d products, want 1", len(list))
		}
	})
}
