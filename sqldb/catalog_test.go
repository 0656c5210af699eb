package sqldb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/sqldb"
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

// catalogRegexTitles are product and category titles for the regex tests:
// word boundaries, case variants beyond ASCII (Kelvin sign, long s, É),
// lines, punctuation that ARE and RE2 read differently, astral characters.
var catalogRegexTitles = []string{
	"the fridge", "thefridge", "Fridge-XL", "FRIDGE 2000", "fridge_x", "éfridge",
	"Kühlschrank", "ÉCLAIR", "éclair", "Straße", "ΣΊΣΥΦΟΣ", "kelvin \u212a", "long \u017f",
	"a\nb", "line one\nfridge two", "a.b", "a+b", "[x]", "tab\there", "party 🎉",
	`back\slash`, "price $5", "^caret", "x y", "aaaa", "123", "a1b2c3",
}

// TestCatalogRegexSameOnBothStores lists products and categories by RE2
// patterns on each store and compares with Go's regexp: PostgreSQL must
// match exactly what RE2 matches (CONTRACT.md section 4), through the
// translation to its own regex syntax.
func TestCatalogRegexSameOnBothStores(t *testing.T) {
	patterns := []string{
		// word boundaries: \b is a backspace in PostgreSQL's syntax
		`\bfridge`, `fridge\b`, `\Bfridge`, `\bx\b`, `\b\d+\b`,
		// anchors, \A and \z, (?m) and (?s)
		`^fridge`, `fridge$`, `^the fridge$`, `\Afridge`, `fridge\z`, `(?m)^fridge`, `(?m)a$`, `^a.b$`, `(?s)^a.b$`, `a\nb`,
		// classes, negations, POSIX and Unicode classes, folding
		`^[a-z ]+$`, `[^a-z\s]`, `^\w+$`, `\W`, `\d{3}`, `\D`, `[[:upper:]]{5}`, `[[:^alpha:]]`, `\pL+ \pL+`, `\p{Greek}`,
		`^\PL`, `\pN$`, `\p{Lu}`, `[\p{Han}\p{Greek}]`, `\x{1F389}`, `[\x{1F300}-\x{1F5FF}]`, `^[^\x00-\x{10FFFF}]`,
		`k`, `s`, `é`, `STRASSE|straße`, `σίσυφος`, `(?-i)FRIDGE`, `(?-i:f)ridge`, `x(?i)Y`, `(?i:É)clair`,
		// alternation, groups, repetition, laziness
		`fri(dge|end)`, `(?P<word>fri)dge`, `^(?:the|a) `, `a+b`, `a{4}`, `^a{2,3}$`, `a{3,}`, `(a|b){2}`, `a+?b`, `(?U)a+b`,
		`^(\d)+$`, `^(?:[a-c]\d){3}$`, `a{0}fridge`, `(?:)fridge`, `fridge|`, `x*`, `^(?:a?){300}$`, `a{256}`,
		// punctuation and escapes
		`\.`, `a\+b`, `\[x\]`, `\\`, `\$5`, `\^`, `\t`, `\Qa.b\E`, `-`, `[-+]`, `[\]\[]`,
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		cat, _ := catalogSeed(t, store, "c", "SEED")
		var products []*catalog.Product
		var cats []*catalog.Category
		for i, title := range catalogRegexTitles {
			p := catalogProduct(fmt.Sprintf("R%02d", i), cat.ID)
			p.Title = title
			products = append(products, p)
			c := &catalog.Category{ID: fmt.Sprintf("r%02d", i), Title: title, Slug: fmt.Sprintf("r%02d", i), Parent: cat.ID, Level: 3}
			c.Path = cat.Path + "." + c.ID
			cats = append(cats, c)
		}
		err := store.Update(ctx, func(tx catalog.Tx) error {
			for _, c := range cats {
				if err := tx.CreateCategory(ctx, c); err != nil {
					return err
				}
			}
			return tx.CreateProducts(ctx, products)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, pattern := range patterns {
			t.Run(pattern, func(t *testing.T) {
				re := regexp.MustCompile("(?i)" + pattern)
				var want []string // in creation order
				for _, title := range catalogRegexTitles {
					if re.MatchString(title) {
						want = append(want, title)
					}
				}
				cs, err := store.ListCategories(ctx, catalog.CategoryFilter{Title: pattern, Parents: []string{cat.ID}, Limit: 1000})
				if err != nil {
					t.Fatalf("categories: %v", err)
				}
				var got []string
				for _, c := range cs {
					got = append(got, c.Title)
				}
				if !slices.Equal(got, want) {
					t.Errorf("categories: got %q, want %q", got, want)
				}
				ps, err := store.ListProducts(ctx, catalog.ProductFilter{Title: pattern, Statuses: []string{catalog.StatusOnline}, Limit: 1000})
				if err != nil {
					t.Fatalf("products: %v", err)
				}
				got = got[:0]
				for _, p := range ps {
					got = append(got, p.Title)
				}
				if re.MatchString("Product SEED") { // the seed product, created first
					want = append([]string{"Product SEED"}, want...)
				}
				if !slices.Equal(got, want) {
					t.Errorf("products: got %q, want %q", got, want)
				}
			})
		}
		t.Run("path matches at the start only", func(t *testing.T) {
			cs, err := store.ListCategories(ctx, catalog.CategoryFilter{Path: `root\.[^.]+\.R0[12]$`, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 2 || cs[0].ID != "r01" || cs[1].ID != "r02" {
				t.Errorf("got %v, want r01 and r02", cs)
			}
			cs, err = store.ListCategories(ctx, catalog.CategoryFilter{Path: `r01`, Limit: 1000})
			if err != nil || len(cs) != 0 {
				t.Errorf("got %v, %v; want nothing (not at the start)", cs, err)
			}
		})
	})
}

// catalogRegexTooComplex are valid RE2 patterns that PostgreSQL cannot
// run: it rejects the first and third as too complex, and compiles the
// second for longer than a short regex time limit.
var catalogRegexTooComplex = []struct {
	Name    string
	Filter  catalog.ProductFilter
	CFilter *catalog.CategoryFilter
	Field   string
}{
	{"rejected by the database", catalog.ProductFilter{Title: `(?:(?:[a-z]|\b){30}){30}`}, nil, "title"},
	{"slower than the timeout", catalog.ProductFilter{Brand: `(?:a?b?c?d?){255}`}, nil, "brand"},
	{"category description", catalog.ProductFilter{}, &catalog.CategoryFilter{Description: `(?:(?:[a-z]|\b){30}){30}`}, "description"},
}

// TestCatalogRegexTooComplex: a valid RE2 pattern that a database cannot
// run (it rejects it as too complex, or runs it for longer than the regex
// time limit) is a validation_error naming the field, with nothing of the
// database in it; a database that can run it answers. Which one each
// database does is checked in its own package (SQLite runs Go's linear
// regexp and answers; PostgreSQL refuses).
func TestCatalogRegexTooComplex(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		db.SetRegexTimeout(300 * time.Millisecond)
		catalogSeed(t, store, "c", "P1")
		for _, tc := range catalogRegexTooComplex {
			t.Run(tc.Name, func(t *testing.T) {
				var err error
				if tc.CFilter != nil {
					f := *tc.CFilter
					f.Limit = 10
					_, err = store.ListCategories(ctx, f)
				} else {
					f := tc.Filter
					f.Statuses, f.Limit = []string{catalog.StatusOnline}, 10
					_, err = store.ListProducts(ctx, f)
				}
				if err == nil {
					return
				}
				if code := commerce.ErrorCode(err); code != commerce.EValidation {
					t.Fatalf("got %v, want an answer or validation_error", err)
				}
				data, _ := commerce.ErrorData(err).([]string)
				if len(data) != 1 || !strings.HasPrefix(data[0], tc.Field+": ") || strings.Contains(data[0], "SQLSTATE") {
					t.Errorf("got data %q, want one problem naming %s", data, tc.Field)
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
			if _, err := svc.UpdateCategory(ctx, c1.ID, catalog.CategoryInput{Parent: &c10.ID}); err != nil {
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

// TestCatalogEventDataError: an update whose request cannot be put into
// the UPDATE event's data fails (and changes nothing) instead of emitting
// an event without it.
func TestCatalogEventDataError(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		svc := catalog.NewService(store, nil, nil)
		desc := "d"
		typ, mandatory := catalog.TypeString, false
		c, err := svc.CreateCategory(ctx, catalog.CategoryInput{Title: &desc, Slug: &desc,
			Classifications: &[]catalog.ClassificationDefInput{{ID: &desc, Description: &desc, Type: &typ, Mandatory: &mandatory}}})
		if err != nil {
			t.Fatal(err)
		}
		sku, title, status, stock := "S1", "T", catalog.StatusOnline, 0
		p, err := svc.CreateProduct(ctx, catalog.ProductInput{SKU: &sku, Title: &title, Status: &status, StockStatus: &stock, Categories: &[]string{c.ID}})
		if err != nil {
			t.Fatal(err)
		}
		// Not JSON: only an in-process caller can send it (HTTP bodies are parsed).
		bad := []catalog.ClassificationValue{{ID: "d", Value: json.RawMessage("}{")}}
		newTitle := "changed"
		_, err = svc.UpdateProduct(ctx, p.ID, catalog.ProductInput{Title: &newTitle, Classifications: &bad})
		if err == nil {
			t.Fatal("the update succeeded with event data it could not write")
		}
		got, err := store.Product(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != title {
			t.Errorf("title %q after a failed update", got.Title)
		}
	})
}
