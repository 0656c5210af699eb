package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
)

// Catalog is the suite of the catalog's store (catalog.Store and
// catalog.Tx): every method, what it returns and its error codes. The list
// filters and the regex limits are in catalog_list.go.
func Catalog(t *testing.T, open Opener) {
	t.Run("category reads and writes", func(t *testing.T) { catalogCategories(t, open(t)) })
	t.Run("category errors", func(t *testing.T) { catalogCategoryErrors(t, open(t)) })
	t.Run("products read back as written", func(t *testing.T) { catalogRoundTrip(t, open(t)) })
	t.Run("product reads and writes", func(t *testing.T) { catalogProducts(t, open(t)) })
	t.Run("product errors change nothing", func(t *testing.T) { catalogProductErrors(t, open(t)) })
	t.Run("events commit and roll back with the change", func(t *testing.T) { catalogEvents(t, open(t)) })
	t.Run("parallel updates of one product lose nothing", func(t *testing.T) { catalogNoLostWrite(t, open(t)) })
	t.Run("list products", func(t *testing.T) { catalogListProducts(t, open(t)) })
	t.Run("list categories", func(t *testing.T) { catalogListCategories(t, open(t)) })
	t.Run("regex filters match as RE2 does", func(t *testing.T) { catalogRegexRE2(t, open(t)) })
	t.Run("regex filters the database cannot run", func(t *testing.T) { catalogRegexRefused(t, open(t)) })
	t.Run("regex filters stop at the time limit", func(t *testing.T) { catalogRegexTimeout(t, open(t)) })
}

// root is the ROOT category as every store starts with it.
var root = &catalog.Category{ID: catalog.RootID, Level: 1, Path: catalog.RootID, Classifications: []catalog.ClassificationDef{}}

// newCategory returns a category under parent, as the service builds one.
func newCategory(id string, parent *catalog.Category) *catalog.Category {
	return &catalog.Category{ID: id, Title: "Category " + id, Slug: id, Parent: parent.ID,
		Level: parent.Level + 1, Path: parent.Path + "." + id, Classifications: []catalog.ClassificationDef{}}
}

// newProduct returns a valid product in the categories, as the service
// builds one.
func newProduct(sku string, categories ...string) *catalog.Product {
	return &catalog.Product{ID: "p-" + sku, SKU: sku, Status: catalog.StatusOnline, Title: "Product " + sku,
		Categories: append([]string{}, categories...), TaxCode: catalog.DefaultTaxCode,
		Prices: []catalog.Price{{ID: "price-" + sku, Amount: 100, Currency: "USD"}},
		Medias: []catalog.Media{}, Classifications: []catalog.ClassificationValue{}}
}

// seed creates categories (parents first) and products in one transaction.
func seed(t *testing.T, store catalog.Store, cats []*catalog.Category, products ...*catalog.Product) {
	t.Helper()
	ctx := context.Background()
	err := store.Update(ctx, func(tx catalog.Tx) error {
		for _, c := range cats {
			if err := tx.CreateCategory(ctx, c); err != nil {
				return err
			}
		}
		if len(products) == 0 {
			return nil
		}
		return tx.CreateProducts(ctx, products)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// wantError fails unless err has the code and, when data is not nil, the
// data (compared as printed).
func wantError(t *testing.T, err error, code string, data any) {
	t.Helper()
	if got := commerce.ErrorCode(err); got != code {
		t.Fatalf("got %v (%s), want %s", err, got, code)
	}
	if data != nil && fmt.Sprint(commerce.ErrorData(err)) != fmt.Sprint(data) {
		t.Errorf("got data %v, want %v", commerce.ErrorData(err), data)
	}
}

func categoryIDs(cs []*catalog.Category) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func productIDs(ps []*catalog.Product) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func catalogCategories(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	desc := "Cold things"
	a := newCategory("a", root)
	a.Description = &desc
	a.Classifications = []catalog.ClassificationDef{{ID: "energy", Description: "Energy", Type: catalog.TypeString, Mandatory: true}}
	b := newCategory("b", root)
	a1, a2 := newCategory("a1", a), newCategory("a2", a)
	a11 := newCategory("a11", a1)
	seed(t, store, []*catalog.Category{a, b, a2, a1, a11}, newProduct("P", a2.ID))

	t.Run("Category", func(t *testing.T) {
		got, err := store.Category(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, a) {
			t.Errorf("got %+v, want %+v", got, a)
		}
		got, err = store.Category(ctx, catalog.RootID)
		if err != nil || got.Level != 1 || got.Path != catalog.RootID || got.Parent != "" || got.Description != nil {
			t.Errorf("ROOT: got %+v, %v", got, err)
		}
		_, err = store.Category(ctx, "nope")
		wantError(t, err, commerce.ECategoryNotFound, "nope")
	})
	t.Run("Children, in creation order", func(t *testing.T) {
		got, err := store.Children(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ids := categoryIDs(got); !slices.Equal(ids, []string{"a2", "a1"}) {
			t.Errorf("got %v, want [a2 a1]", ids)
		}
		got, err = store.Children(ctx, "nope")
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("unknown id: got %v, %v; want an empty list", got, err)
		}
	})
	t.Run("Descendants, by level then creation", func(t *testing.T) {
		got, err := store.Descendants(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		if ids := categoryIDs(got); !slices.Equal(ids, []string{"a", "b", "a2", "a1", "a11"}) {
			t.Errorf("got %v", ids)
		}
	})
	err := store.Update(ctx, func(tx catalog.Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		got, err := tx.Categories(ctx, []string{"a1", "nope", "b"})
		if err != nil {
			return err
		}
		if len(got) != 2 || !reflect.DeepEqual(got["a1"], a1) || !reflect.DeepEqual(got["b"], b) {
			t.Errorf("Categories: got %v", got)
		}
		for _, tc := range []struct {
			id                 string
			children, products bool
		}{{"a", true, false}, {"a2", false, true}, {"b", false, false}, {"nope", false, false}} {
			c, p, err := tx.CategoryUse(ctx, tc.id)
			if err != nil {
				return err
			}
			if c != tc.children || p != tc.products {
				t.Errorf("CategoryUse(%s): got %v %v, want %v %v", tc.id, c, p, tc.children, tc.products)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("UpdateCategory moves the subtree", func(t *testing.T) {
		moved := *a1
		moved.Parent, moved.Level, moved.Path, moved.Title = b.ID, b.Level+1, b.Path+".a1", "Moved"
		if err := store.Update(ctx, func(tx catalog.Tx) error { return tx.UpdateCategory(ctx, a1, &moved) }); err != nil {
			t.Fatal(err)
		}
		got, err := store.Category(ctx, "a11")
		if err != nil || got.Path != "ROOT.b.a1.a11" || got.Level != 4 {
			t.Errorf("a11 after the move: %+v, %v", got, err)
		}
		if got, err := store.Category(ctx, "a1"); err != nil || !reflect.DeepEqual(got, &moved) {
			t.Errorf("a1 after the move: %+v, %v", got, err)
		}
		if got, _ := store.Children(ctx, a.ID); !slices.Equal(categoryIDs(got), []string{"a2"}) {
			t.Errorf("a's children after the move: %v", categoryIDs(got))
		}
	})
	t.Run("RemoveCategory", func(t *testing.T) {
		if err := store.Update(ctx, func(tx catalog.Tx) error { return tx.RemoveCategory(ctx, "a11") }); err != nil {
			t.Fatal(err)
		}
		_, err := store.Category(ctx, "a11")
		wantError(t, err, commerce.ECategoryNotFound, "a11")
	})
}

func catalogCategoryErrors(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	a, b := newCategory("a", root), newCategory("b", root)
	a1 := newCategory("a1", a)
	seed(t, store, []*catalog.Category{a, b, a1}, newProduct("P", b.ID))
	dup := newCategory("x", root)
	dup.Slug = "a"
	gone := newCategory("x", &catalog.Category{ID: "gone", Level: 2, Path: "ROOT.gone"})
	tests := []struct {
		name string
		fn   func(tx catalog.Tx) error
		code string
		data any
	}{
		{"duplicate slug among siblings", func(tx catalog.Tx) error { return tx.CreateCategory(ctx, dup) },
			commerce.EDuplicateKey, map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": "a"}},
		{"duplicate slug on update", func(tx catalog.Tx) error {
			c := *b
			c.Slug = "a"
			return tx.UpdateCategory(ctx, b, &c)
		}, commerce.EDuplicateKey, map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": "a"}},
		{"parent gone", func(tx catalog.Tx) error { return tx.CreateCategory(ctx, gone) }, commerce.EParentCategoryNotFound, "gone"},
		{"parent gone on update", func(tx catalog.Tx) error {
			c := *a1
			c.Parent, c.Path = "gone", "ROOT.gone.a1"
			return tx.UpdateCategory(ctx, a1, &c)
		}, commerce.EParentCategoryNotFound, "gone"},
		{"remove with children", func(tx catalog.Tx) error { return tx.RemoveCategory(ctx, a.ID) }, commerce.ECategoryNotEmpty, "a"},
		{"remove with products", func(tx catalog.Tx) error { return tx.RemoveCategory(ctx, b.ID) }, commerce.ECategoryNotEmpty, "b"},
		{"remove unknown", func(tx catalog.Tx) error { return tx.RemoveCategory(ctx, "nope") }, commerce.ECategoryNotFound, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, store.Update(ctx, tc.fn), tc.code, tc.data)
		})
	}
	t.Run("nothing changed", func(t *testing.T) {
		got, err := store.Descendants(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		want := []*catalog.Category{a, b, a1}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", categoryIDs(got), categoryIDs(want))
		}
	})
}

// fullProduct is a product using every field of the record.
func fullProduct(category string) *catalog.Product {
	from := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	until := from.Add(24*time.Hour - time.Millisecond)
	return &catalog.Product{ID: "full", SKU: "FULL", Status: catalog.StatusDraft, Title: "Frigorífico", Description: "Cold",
		Brand: "Bosch", Categories: []string{category}, IsNetPrice: true, StockStatus: catalog.StockUnlimited, TaxCode: "reduced",
		Prices: []catalog.Price{
			{ID: "usd", Amount: 57765, Currency: "USD"},
			{ID: "jpy", Amount: 1200, Currency: "JPY", Country: "JP", CustomerType: "VIP", Channel: "WEB", ValidFrom: &from, ValidUntil: &until},
			{ID: "jod", Amount: 1005, Currency: "JOD"},
			{ID: "max", Amount: 10_000_000_000_000, Currency: "USD"},
		},
		Medias: []catalog.Media{{ID: "m1", URL: "//img/1.jpg"}},
		Classifications: []catalog.ClassificationValue{{ID: "energy", Value: catalog.StringLiteral("A+")},
			{ID: "width", Value: catalog.NumberLiteral("59.50")}, {ID: "frost", Value: catalog.BoolLiteral(true)}},
		Modifiers: []string{"size", "color"}, Variants: []string{},
	}
}

func catalogRoundTrip(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	c := newCategory("c", root)
	full := fullProduct(c.ID)
	variant := &catalog.Product{ID: "variant", SKU: "VARIANT", Status: catalog.StatusOnline, Title: "Variant",
		Categories: []string{}, TaxCode: "default", Prices: []catalog.Price{}, Medias: []catalog.Media{},
		Classifications: []catalog.ClassificationValue{}, Base: full.ID,
		Variations: []catalog.Variation{{ID: "size", Value: "L"}, {ID: "color", Value: "red"}}}
	seed(t, store, []*catalog.Category{c}, full, variant)
	full.Variants = []string{variant.ID}

	check := func(t *testing.T, got map[string]*catalog.Product, want ...*catalog.Product) {
		t.Helper()
		if len(want) == 0 {
			want = []*catalog.Product{full, variant}
		}
		for _, want := range want {
			if !reflect.DeepEqual(got[want.ID], want) {
				t.Errorf("got %+v\nwant %+v", got[want.ID], want)
			}
		}
	}
	t.Run("Product", func(t *testing.T) {
		got := map[string]*catalog.Product{}
		for _, id := range []string{full.ID, variant.ID} {
			p, err := store.Product(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got[id] = p
		}
		check(t, got)
	})
	t.Run("Products", func(t *testing.T) {
		got, err := store.Products(ctx, []string{variant.ID, "nope", full.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Errorf("got %d products, want 2 (unknown ids left out)", len(got))
		}
		check(t, got)
	})
	t.Run("ListProducts", func(t *testing.T) {
		list, err := store.ListProducts(ctx, catalog.ProductFilter{Statuses: []string{catalog.StatusOnline, catalog.StatusDraft}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*catalog.Product{}
		for _, p := range list {
			got[p.ID] = p
		}
		check(t, got)
	})
	t.Run("Tx.Product, after an update", func(t *testing.T) {
		err := store.Update(ctx, func(tx catalog.Tx) error {
			p, v, err := tx.Product(ctx, full.ID, true)
			if err != nil {
				return err
			}
			check(t, map[string]*catalog.Product{full.ID: p}, full)
			if v != 1 {
				t.Errorf("version %d after create, want 1", v)
			}
			return tx.UpdateProduct(ctx, p, v)
		})
		if err != nil {
			t.Fatal(err)
		}
		err = store.Update(ctx, func(tx catalog.Tx) error {
			p, v, err := tx.Product(ctx, full.ID, false)
			if err != nil {
				return err
			}
			check(t, map[string]*catalog.Product{full.ID: p}, full)
			if v != 2 {
				t.Errorf("version %d after an update, want 2", v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func catalogProducts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	a, b := newCategory("a", root), newCategory("b", root)
	a1 := newCategory("a1", a)
	base := newProduct("BASE", a1.ID)
	base.Modifiers = []string{"size"}
	v1, v2 := newProduct("V1"), newProduct("V2", b.ID)
	v1.Base, v1.Variations = base.ID, []catalog.Variation{{ID: "size", Value: "S"}}
	v2.Base, v2.Variations = base.ID, []catalog.Variation{{ID: "size", Value: "M"}}
	plain := newProduct("PLAIN", a.ID, b.ID)
	// More products than one multi-row INSERT writes.
	var many []*catalog.Product
	for i := range 250 {
		many = append(many, newProduct(fmt.Sprintf("M%03d", i), b.ID))
	}
	seed(t, store, []*catalog.Category{a, b, a1}, append([]*catalog.Product{base, v1, v2, plain}, many...)...)

	t.Run("Variants in creation order", func(t *testing.T) {
		got, err := store.Product(ctx, base.ID)
		if err != nil || !slices.Equal(got.Variants, []string{v1.ID, v2.ID}) {
			t.Errorf("got %v, %v", got, err)
		}
		got, err = store.Product(ctx, plain.ID)
		if err != nil || got.Variants != nil {
			t.Errorf("a product that is no Base: variants %v, %v", got.Variants, err)
		}
		_, err = store.Product(ctx, "nope")
		wantError(t, err, commerce.EProductNotFound, "nope")
	})
	t.Run("every product of a large batch", func(t *testing.T) {
		ids := productIDs(many)
		got, err := store.Products(ctx, append(ids, "nope"))
		if err != nil || len(got) != len(many) {
			t.Fatalf("got %d products, %v; want %d", len(got), err, len(many))
		}
		list, err := store.ListProducts(ctx, catalog.ProductFilter{Statuses: []string{catalog.StatusOnline}, Categories: []string{b.ID}, Limit: 1000})
		if err != nil || len(list) != len(many)+2 {
			t.Errorf("category b: got %d products, %v; want %d", len(list), err, len(many)+2)
		}
	})
	t.Run("ProductCategoryPaths", func(t *testing.T) {
		got, err := store.ProductCategoryPaths(ctx, []string{base.ID, v1.ID, v2.ID, plain.ID, "nope"})
		if err != nil {
			t.Fatal(err)
		}
		for k := range got {
			slices.Sort(got[k])
		}
		want := map[string][]string{
			base.ID:  {"ROOT.a.a1"},
			v1.ID:    {"ROOT.a.a1"}, // a Variant without categories has its Base's
			v2.ID:    {"ROOT.b"},
			plain.ID: {"ROOT.a", "ROOT.b"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	err := store.Update(ctx, func(tx catalog.Tx) error {
		bases, err := tx.ProductBases(ctx, []string{base.ID, v1.ID, "nope"})
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(bases, map[string]string{base.ID: "", v1.ID: base.ID}) {
			t.Errorf("ProductBases: got %v", bases)
		}
		for id, want := range map[string]bool{base.ID: true, v1.ID: false, "nope": false} {
			has, err := tx.HasVariants(ctx, id)
			if err != nil {
				return err
			}
			if has != want {
				t.Errorf("HasVariants(%s): got %v, want %v", id, has, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("UpdateProduct rewrites the rows the filters read", func(t *testing.T) {
		err := store.Update(ctx, func(tx catalog.Tx) error {
			p, v, err := tx.Product(ctx, plain.ID, true)
			if err != nil {
				return err
			}
			p.SKU, p.Categories = "PLAIN2", []string{a1.ID}
			p.Prices = []catalog.Price{{ID: "eur", Amount: 5, Currency: "EUR", Channel: "MOBILE"}}
			p.Medias = []catalog.Media{{ID: "img", URL: "u"}}
			return tx.UpdateProduct(ctx, p, v)
		})
		if err != nil {
			t.Fatal(err)
		}
		only := []string{catalog.StatusOnline}
		for _, tc := range []struct {
			name string
			f    catalog.ProductFilter
			want []string
		}{
			{"new sku", catalog.ProductFilter{SKUs: []string{"PLAIN2"}}, []string{plain.ID}},
			{"old sku", catalog.ProductFilter{SKUs: []string{"PLAIN"}}, nil},
			{"new category", catalog.ProductFilter{Categories: []string{a1.ID}}, []string{base.ID, plain.ID}},
			{"old category", catalog.ProductFilter{Categories: []string{a.ID}}, nil},
			{"new price", catalog.ProductFilter{PriceIDs: []string{"eur"}, PriceChannels: []string{"MOBILE"}}, []string{plain.ID}},
			{"old price", catalog.ProductFilter{PriceIDs: []string{"price-PLAIN"}}, nil},
			{"media", catalog.ProductFilter{MediaIDs: []string{"img"}}, []string{plain.ID}},
		} {
			tc.f.Statuses, tc.f.Limit = only, 10
			got, err := store.ListProducts(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if ids := productIDs(got); !slices.Equal(ids, append([]string{}, tc.want...)) {
				t.Errorf("%s: got %v, want %v", tc.name, ids, tc.want)
			}
		}
	})
	t.Run("RemoveProduct removes its rows", func(t *testing.T) {
		err := store.Update(ctx, func(tx catalog.Tx) error {
			if err := tx.RemoveProduct(ctx, v2.ID); err != nil {
				return err
			}
			return tx.RemoveProduct(ctx, plain.ID)
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = store.Product(ctx, plain.ID)
		wantError(t, err, commerce.EProductNotFound, plain.ID)
		if got, err := store.Product(ctx, base.ID); err != nil || !slices.Equal(got.Variants, []string{v1.ID}) {
			t.Errorf("base after removing a variant: %v, %v", got, err)
		}
		err = store.Update(ctx, func(tx catalog.Tx) error {
			_, products, err := tx.CategoryUse(ctx, a.ID)
			if err != nil || products {
				return fmt.Errorf("category a still has products: %v, %w", products, err)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

func catalogProductErrors(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	cat := newCategory("c", root)
	p := newProduct("P1", cat.ID)
	other := newProduct("P2", cat.ID)
	seed(t, store, []*catalog.Category{cat}, p, other)
	withSKU := func(sku string) *catalog.Product {
		q := newProduct(sku, cat.ID)
		q.ID = "new-" + sku
		return q
	}
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
			got.Title = "changed"
			return tx.UpdateProduct(ctx, got, v-1)
		}, commerce.EProductNotSaved, nil},
		{"update of a product that is gone", func(tx catalog.Tx) error {
			return tx.UpdateProduct(ctx, withSKU("GONE"), 1)
		}, commerce.EProductNotSaved, nil},
		{"unknown product", func(tx catalog.Tx) error {
			_, _, err := tx.Product(ctx, "nope", true)
			return err
		}, commerce.EProductNotFound, "nope"},
		{"remove unknown product", func(tx catalog.Tx) error { return tx.RemoveProduct(ctx, "nope") }, commerce.EProductNotFound, "nope"},
		{"product in a removed category", func(tx catalog.Tx) error {
			return tx.CreateProducts(ctx, []*catalog.Product{newProduct("X", "gone")})
		}, commerce.ECategoryNotFound, "gone"},
		{"update into a removed category", func(tx catalog.Tx) error {
			got, v, err := tx.Product(ctx, p.ID, true)
			if err != nil {
				return err
			}
			got.Categories = []string{"gone"}
			return tx.UpdateProduct(ctx, got, v)
		}, commerce.ECategoryNotFound, "gone"},
		{"duplicate sku, single", func(tx catalog.Tx) error {
			return tx.CreateProducts(ctx, []*catalog.Product{withSKU("P1")})
		}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "P1"}},
		{"duplicate sku in a batch", func(tx catalog.Tx) error {
			return tx.CreateProducts(ctx, []*catalog.Product{withSKU("B1"), withSKU("P1")})
		}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "P1"}},
		{"duplicate sku within a batch", func(tx catalog.Tx) error {
			b := withSKU("B2")
			b.ID = "other-B2"
			return tx.CreateProducts(ctx, []*catalog.Product{withSKU("B2"), b})
		}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "B2"}},
		{"duplicate sku on update", func(tx catalog.Tx) error {
			got, v, err := tx.Product(ctx, p.ID, true)
			if err != nil {
				return err
			}
			got.SKU = "P2"
			return tx.UpdateProduct(ctx, got, v)
		}, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "P2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, store.Update(ctx, tc.fn), tc.code, tc.data)
		})
	}
	t.Run("nothing changed", func(t *testing.T) {
		got, err := store.ListProducts(ctx, catalog.ProductFilter{Statuses: []string{catalog.StatusOnline}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if ids := productIDs(got); !slices.Equal(ids, []string{p.ID, other.ID}) {
			t.Errorf("got %v, want only %s and %s", ids, p.ID, other.ID)
		}
		if got[0].Title != p.Title || !slices.Equal(got[0].Categories, p.Categories) {
			t.Errorf("product changed: %+v", got[0])
		}
	})
}

func catalogEvents(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	ev := func(id string) event.Event {
		e, err := event.New(event.Categories, event.Create, time.Now(), map[string]string{"id": id})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	failed := errors.New("the use case failed")
	err := store.Update(ctx, func(tx catalog.Tx) error {
		if err := tx.CreateCategory(ctx, newCategory("rolled", root)); err != nil {
			return err
		}
		tx.Emit(ev("rolled"))
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("got %v, want fn's error", err)
	}
	err = store.Update(ctx, func(tx catalog.Tx) error {
		if err := tx.CreateCategory(ctx, newCategory("kept", root)); err != nil {
			return err
		}
		tx.Emit(ev("kept"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	events, err := db.List(ctx, event.Filter{Channel: event.Categories, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || string(events[0].Payload) != `{"id":"kept"}` {
		t.Errorf("got %d events (%v), want the committed one only", len(events), events)
	}
	if _, err := store.Category(ctx, "rolled"); commerce.ErrorCode(err) != commerce.ECategoryNotFound {
		t.Errorf("the rolled back category: got %v", err)
	}
	if _, err := store.Category(ctx, "kept"); err != nil {
		t.Errorf("the committed category: %v", err)
	}
}

// catalogNoLostWrite runs 20 read-merge-write transactions on one product
// in parallel, each adding its own price: all 20 must be there.
func catalogNoLostWrite(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	c := newCategory("c", root)
	p := newProduct("P1", c.ID)
	seed(t, store, []*catalog.Category{c}, p)
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
	// The side table follows the document.
	list, err := store.ListProducts(ctx, catalog.ProductFilter{Statuses: []string{catalog.StatusOnline}, PriceIDs: []string{"w07"}, Limit: 10})
	if err != nil || len(list) != 1 {
		t.Errorf("prices.id filter: got %d products, %v; want 1", len(list), err)
	}
}
