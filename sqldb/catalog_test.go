package sqldb_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// The catalog store's own behaviour is checked by the conformance suite
// (testkit/storetest/catalog.go, run by sqlite and postgres); these tests
// check the service over the real store.

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
				_, err := svc.UpdateProduct(context.Background(), catalog.UpdateProductInput{ID: p.ID, ProductFields: catalog.ProductFields{Title: &title}})
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

// childrenSpy counts the subtree reads of a store.
type childrenSpy struct {
	catalog.Store
	descendants *atomic.Int32
}

func (s childrenSpy) Descendants(ctx context.Context, c *catalog.Category) ([]*catalog.Category, error) {
	s.descendants.Add(1)
	return s.Store.Descendants(ctx, c)
}

// TestCatalogChildren: category.info withChildren reads the direct
// children only, not the subtree; recursive reads the subtree once. The
// subtree is found by path prefix, which must not take a sibling whose id
// starts like the category's ("c1" and "c10").
func TestCatalogChildren(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		mk := func(id string, parent *catalog.Category) *catalog.Category {
			c := &catalog.Category{ID: id, Title: id, Slug: id, Parent: parent.ID, Level: parent.Level + 1, Path: parent.Path + "." + id}
			if err := store.Update(ctx, func(tx catalog.Tx) error { return tx.CreateCategory(ctx, c) }); err != nil {
				t.Fatal(err)
			}
			return c
		}
		root := &catalog.Category{ID: catalog.RootID, Level: 1, Path: catalog.RootID}
		c1 := mk("c1", root)
		c10 := mk("c10", root)
		mk("c10x", c10)
		c11 := mk("c11", c1)
		mk("c111", c11)
		mk("c12", c1)

		n := new(atomic.Int32)
		svc := catalog.NewService(childrenSpy{store, n}, nil, nil)
		tree := func(c *catalog.Category) string {
			var walk func(c *catalog.Category) string
			walk = func(c *catalog.Category) string {
				if c.Children == nil {
					return c.ID
				}
				var kids []string
				for _, k := range c.Children {
					kids = append(kids, walk(k))
				}
				return c.ID + "(" + strings.Join(kids, " ") + ")"
			}
			return walk(c)
		}
		tests := []struct {
			name                    string
			withChildren, recursive bool
			want                    string
			subtreeReads            int32
		}{
			{"direct children", true, false, "c1(c11 c12)", 0},
			{"recursive", true, true, "c1(c11(c111()) c12())", 1},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				n.Store(0)
				c, err := svc.Category(ctx, c1.ID, tc.withChildren, tc.recursive)
				if err != nil {
					t.Fatal(err)
				}
				if got := tree(c); got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
				if got := n.Load(); got != tc.subtreeReads {
					t.Errorf("read the subtree %d times, want %d", got, tc.subtreeReads)
				}
			})
		}
		t.Run("moving a subtree leaves the sibling alone", func(t *testing.T) {
			if _, err := svc.UpdateCategory(ctx, catalog.UpdateCategoryInput{ID: c1.ID, CategoryFields: catalog.CategoryFields{Parent: &c10.ID}}); err != nil {
				t.Fatal(err)
			}
			got, err := store.Descendants(ctx, c10)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, c := range got {
				paths = append(paths, c.Path)
			}
			want := []string{"ROOT.c10.c1", "ROOT.c10.c10x", "ROOT.c10.c1.c11", "ROOT.c10.c1.c12", "ROOT.c10.c1.c11.c111"}
			if !slices.Equal(paths, want) {
				t.Errorf("got %v, want %v", paths, want)
			}
		})
	})
}
