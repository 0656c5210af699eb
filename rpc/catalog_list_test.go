package rpc_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

func TestCatalogProductList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		c1 := api.category(t, map[string]any{"title": "C1", "slug": "c1"})
		c2 := api.category(t, map[string]any{"title": "C2", "slug": "c2"})
		sub := api.category(t, map[string]any{"title": "Sub", "slug": "sub", "parent": c1})
		price := func(extra ...any) map[string]any {
			m := map[string]any{"amount": 1, "currency": "USD"}
			for i := 0; i+1 < len(extra); i += 2 {
				m[extra[i].(string)] = extra[i+1]
			}
			return m
		}
		a := api.product(t, productBody("A", c1, "title", "Frigorífico No Frost", "brand", "Bosch", "description", "Cold and quiet",
			"prices", []any{price("id", "pa", "country", "US", "customerType", "VIP", "channel", "WEB")},
			"medias", []any{map[string]any{"id": "img1", "url": "u"}}, "modifiers", []string{"size"}))["id"].(string)
		b := api.product(t, productBody("B", c2, "title", "Frigorífico combi", "brand", "BOSCH", "isNetPrice", true, "taxCode", "reduced", "stockStatus", 1,
			"prices", []any{price("id", "pb", "currency", "EUR", "country", "ES", "channel", "MOBILE")}))["id"].(string)
		c := api.product(t, productBody("C", sub, "title", "Zapatilla", "brand", "Nike", "stockStatus", 2, "categories", []string{sub, c2},
			"prices", []any{price("id", "pc1", "customerType", "B2B"), price("id", "pc2", "currency", "EUR")},
			"medias", []any{map[string]any{"id": "img2", "url": "u"}}))["id"].(string)
		d := api.product(t, productBody("D", c1, "status", "DRAFT", "title", "Draft fridge"))["id"].(string)
		v := api.product(t, productBody("V", c1, "categories", []string{}, "base", a, "variations", []any{map[string]any{"id": "size", "value": "L"}}))["id"].(string)

		tests := []struct {
			name  string
			query url.Values
			want  []string
		}{
			{"no filter hides DRAFT", q(), []string{a, b, c, v}},
			{"status DRAFT", q("status", "DRAFT"), []string{d}},
			{"status both", q("status", "ONLINE,DRAFT"), []string{a, b, c, d, v}},
			{"ids", q("id", c+","+a+",nope"), []string{a, c}},
			{"DRAFT id still hidden", q("id", d), nil},
			{"skus", q("sku", "B,C"), []string{b, c}},
			{"title regex ignores case", q("title", "frigorífico"), []string{a, b}},
			{"title regex anchored", q("title", "^frigorífico combi$"), []string{b}},
			{"no frost", q("title", "no frost"), []string{a}},
			{"description regex", q("description", "QUIET"), []string{a}},
			{"brand regex", q("brand", "^bosch$"), []string{a, b}},
			{"tax codes", q("taxCode", "reduced"), []string{b}},
			{"stock statuses", q("stockStatus", "1,2"), []string{b, c}},
			{"net prices", q("isNetPrice", "true"), []string{b}},
			{"gross prices", q("isNetPrice", "false"), []string{a, c, v}},
			{"base", q("base", a), []string{v}},
			{"categories", q("categories", c2), []string{b, c}},
			{"categories, any of", q("categories", c1+","+sub), []string{a, c}},
			{"categories are not expanded to descendants", q("categories", c1), []string{a}},
			{"category and status", q("categories", c1, "status", "DRAFT"), []string{d}},
			{"price ids", q("prices.id", "pb,pc2"), []string{b, c}},
			{"price currencies", q("prices.currency", "EUR"), []string{b, c}},
			{"price countries", q("prices.country", "US"), []string{a}},
			{"price customer types", q("prices.customerType", "VIP,B2B"), []string{a, c}},
			{"price channels", q("prices.channel", "MOBILE"), []string{b}},
			{"medias.customerType is an alias", q("medias.customerType", "B2B"), []string{c}},
			{"medias.channel is an alias", q("medias.channel", "WEB"), []string{a}},
			{"one price must match every price filter", q("prices.currency", "USD", "prices.customerType", "B2B"), []string{c}},
			{"no price matches both", q("prices.currency", "EUR", "prices.customerType", "B2B"), nil},
			{"media ids", q("medias.id", "img2"), []string{c}},
			{"filters combine", q("brand", "bosch", "categories", c2), []string{b}},
			{"limit", q("limit", "2"), []string{a, b}},
			{"skip", q("limit", "2", "skip", "2"), []string{c, v}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := api.get(t, "product.list", tc.query).Must(t)
				if got := listIDs(t, r); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("POST body with lists", func(t *testing.T) {
			r := api.Post(t, "/catalog/v1/product.list", api.API, map[string]any{"sku": []string{"A", "C"}, "stockStatus": []int{2}}).Must(t)
			if got := listIDs(t, r); !slices.Equal(got, []string{c}) {
				t.Errorf("got %v", got)
			}
		})
		t.Run("fields and page", func(t *testing.T) {
			r := api.get(t, "product.list", q("sku", "A", "fields", "sku,variants,price")).Must(t)
			sameJSON(t, r.Body["data"], []any{map[string]any{"id": a, "sku": "A", "variants": []string{v}}})
			sameJSON(t, r.Body["page"], `{"limit": 10, "skip": 0}`)
		})
		errs := []struct {
			name  string
			query url.Values
		}{
			{"invalid title regex", q("title", "(")},
			{"invalid brand regex", q("brand", "*")},
			{"invalid description regex", q("description", "[a")},
			{"stock status not a number", q("stockStatus", "x")},
			{"isNetPrice not a boolean", q("isNetPrice", "maybe")},
			{"limit too large", q("limit", "5000")},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				api.get(t, "product.list", tc.query).Expect(t, 400, commerce.EValidation)
			})
		}
		t.Run("an RE2 pattern PostgreSQL rejects is no internal error", func(t *testing.T) {
			r := api.get(t, "product.list", q("title", "(?P<n>frigo)"))
			if !r.OK && r.Error != commerce.EValidation {
				t.Errorf("got %d %s, want 200 or validation_error", r.Status, r.Error)
			}
		})
		t.Run("products batch get", func(t *testing.T) {
			got, err := api.App.Catalog.Products(t.Context(), []string{a, d, "nope", a})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[a] == nil || got[d] == nil || got[d].Status != "DRAFT" {
				t.Fatalf("got %v", got)
			}
			if !slices.Equal(got[a].Variants, []string{v}) || got[a].Prices[0].Amount != 100 {
				t.Errorf("product a: %+v", got[a])
			}
		})
		t.Run("category ancestors", func(t *testing.T) {
			got, err := api.App.Catalog.CategoryAncestors(t.Context(), []string{a, c, v, "nope"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{
				a: {"ROOT", c1},
				c: {"ROOT", c1, sub, c2},
				v: {"ROOT", c1}, // a variant without categories counts for its base's
			}
			for k := range got {
				sort.Strings(got[k])
			}
			for k := range want {
				sort.Strings(want[k])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	})
}

// TestCatalogRegexFilters: regex filters are RE2 on both stores
// (docs/api.md section 4), PostgreSQL included: \b is a word boundary,
// not a backspace.
func TestCatalogRegexFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		cat := api.category(t, map[string]any{"title": "the fridge", "slug": "fridges"})
		api.category(t, map[string]any{"title": "thefridge", "slug": "thefridge", "description": "Línea 2000"})
		ids := map[string]string{}
		for i, title := range []string{"the fridge", "thefridge", "Fridge XL 300", "Línea blanca", "a fridge", "ΣΊΣΥΦΟΣ"} {
			ids[title] = api.product(t, productBody(fmt.Sprintf("RX%d", i), cat, "title", title, "brand", "Brand "+title))["id"].(string)
		}
		pick := func(titles ...string) []string {
			var out []string
			for _, t := range titles {
				out = append(out, ids[t])
			}
			return out
		}
		tests := []struct {
			name  string
			query url.Values
			want  []string
		}{
			{"word boundary", q("title", `\bfridge`), pick("the fridge", "Fridge XL 300", "a fridge")},
			{"not a word boundary", q("title", `\Bfridge`), pick("thefridge")},
			{"classes, alternation, anchors, repetition", q("title", `^(?:the|a) \w+$|\d{3}$`), pick("the fridge", "Fridge XL 300", "a fridge")},
			{"Unicode class and folding", q("title", `^\p{Greek}+$|^LÍNEA`), pick("Línea blanca", "ΣΊΣΥΦΟΣ")},
			{"inline flags and named groups", q("title", `(?P<n>(?-i:F))ridge\z`), nil},
			{"inline flags and named groups 2", q("title", `(?P<n>(?-i:F))ridge`), pick("Fridge XL 300")},
			{"brand", q("brand", `^brand a\b`), pick("a fridge")},
			{"description of none", q("description", `\bfridge`), nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := api.get(t, "product.list", tc.query).Must(t)
				if got := listIDs(t, r); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("category title word boundary", func(t *testing.T) {
			r := api.get(t, "category.list", q("title", `\bfridge`)).Must(t)
			if got := listIDs(t, r); !slices.Equal(got, []string{cat}) {
				t.Errorf("got %v, want [%s]", got, cat)
			}
		})
		t.Run("category description", func(t *testing.T) {
			r := api.get(t, "category.list", q("description", `\b\d{4}\z`)).Must(t)
			if got := listIDs(t, r); len(got) != 1 {
				t.Errorf("got %v, want the one described Línea 2000", got)
			}
		})
		// Too complex for PostgreSQL's regex engine: a validation_error
		// naming the field there; SQLite runs Go's regexp and answers.
		t.Run("beyond the database", func(t *testing.T) {
			r := api.get(t, "product.list", q("title", `(?:(?:[a-z]|\b){30}){30}`))
			if db.Dialect().Name() == "sqlite" {
				r.Must(t)
				return
			}
			r.Expect(t, 400, commerce.EValidation)
			var data []string
			if err := json.Unmarshal(r.Data, &data); err != nil || len(data) != 1 || !strings.HasPrefix(data[0], "title: ") || strings.Contains(data[0], "SQLSTATE") {
				t.Errorf("got data %s, want one problem naming title", r.Data)
			}
		})
	})
}

// TestCatalogListSizeLimit: each String-List filter takes at most 1000
// values (validation_error naming the field), instead of failing in the
// database with too many parameters.
func TestCatalogListSizeLimit(t *testing.T) {
	values := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("v%d", i)
		}
		return out
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		cat := api.category(t, map[string]any{"title": "C", "slug": "c"})
		p := api.product(t, productBody("P1", cat))["id"].(string)
		tests := []struct {
			name, op, field string
			n               int
			ok              bool
		}{
			{"1000 ids", "product.list", "id", 1000, true},
			{"1001 ids", "product.list", "id", 1001, false},
			{"40000 ids", "product.list", "id", 40000, false},
			{"skus", "product.list", "sku", 1001, false},
			{"categories", "product.list", "categories", 1001, false},
			{"prices.currency", "product.list", "prices.currency", 1001, false},
			{"prices.channel", "product.list", "prices.channel", 5000, false},
			{"medias.id", "product.list", "medias.id", 1001, false},
			{"category ids", "category.list", "id", 1001, false},
			{"category slugs", "category.list", "slug", 1001, false},
			{"category parents", "category.list", "parent", 1000, true},
			{"category parents over", "category.list", "parent", 1001, false},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				list := values(tc.n)
				list[len(list)-1] = p
				r := api.Post(t, "/catalog/v1/"+tc.op, api.API, map[string]any{tc.field: list})
				if tc.ok {
					r.Must(t)
					return
				}
				r.Expect(t, 400, commerce.EValidation)
				sameJSON(t, r.Data, []string{tc.field + ": at most 1000 values"})
			})
		}
	})
}

// TestCatalogKeysNFC: slugs, skus and tax codes that look the same are the
// same (issue 9 defect 7): "café" typed precomposed (NFC) or decomposed
// (NFD) is one slug among siblings and one sku, stored in NFC, and the
// list filters find it typed either way.
func TestCatalogKeysNFC(t *testing.T) {
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		var first map[string]any
		api.post(t, "category.create", map[string]any{"title": "Café", "slug": nfd}).Must(t).Decode(t, "category", &first)
		if first["slug"] != nfc {
			t.Errorf("slug stored as %q, want NFC %q", first["slug"], nfc)
		}
		cat := first["id"].(string)
		other := api.category(t, map[string]any{"title": "Other", "slug": "other"})

		t.Run("one slug among siblings", func(t *testing.T) {
			r := api.post(t, "category.create", map[string]any{"title": "Café 2", "slug": nfc}).Expect(t, 409, commerce.EDuplicateKey)
			sameJSON(t, r.Data, map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": nfc})
			r = api.post(t, "category.update", map[string]any{"id": other, "slug": nfd}).Expect(t, 409, commerce.EDuplicateKey)
			sameJSON(t, r.Data, map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": nfc})
		})
		child := api.category(t, map[string]any{"title": "Child", "slug": nfd, "parent": cat})
		t.Run("slug filter", func(t *testing.T) {
			for _, slug := range []string{nfc, nfd} {
				r := api.get(t, "category.list", q("slug", slug)).Must(t)
				if got := listIDs(t, r); !slices.Equal(got, []string{cat, child}) {
					t.Errorf("slug %q: got %v, want [%s %s]", slug, got, cat, child)
				}
			}
		})

		p := api.product(t, productBody(nfd, cat, "taxCode", "r"+nfd))
		if p["sku"] != nfc || p["taxCode"] != "r"+nfc {
			t.Errorf("sku %q and tax code %q stored, want NFC", p["sku"], p["taxCode"])
		}
		t.Run("one sku", func(t *testing.T) {
			r := api.post(t, "product.create", productBody(nfc, cat)).Expect(t, 409, commerce.EDuplicateKey)
			sameJSON(t, r.Data, map[string]any{"index": "sku", "sku": nfc})
			q2 := api.product(t, productBody("OTHER", cat))["id"].(string)
			r = api.post(t, "product.update", map[string]any{"id": q2, "sku": nfd}).Expect(t, 409, commerce.EDuplicateKey)
			sameJSON(t, r.Data, map[string]any{"index": "sku", "sku": nfc})
		})
		t.Run("sku and tax code filters", func(t *testing.T) {
			for _, query := range []url.Values{q("sku", nfc), q("sku", nfd), q("taxCode", "r"+nfc), q("taxCode", "r"+nfd)} {
				r := api.get(t, "product.list", query).Must(t)
				if got := listIDs(t, r); !slices.Equal(got, []string{p["id"].(string)}) {
					t.Errorf("%v: got %v, want [%s]", query, got, p["id"])
				}
			}
		})
	})
}

// TestCatalogRegexTimeout: a regex filter that runs into the store's time
// limit (a pathological pattern over a few hundred rows of a kilobyte:
// PostgreSQL takes minutes to compile it, SQLite's RE2 milliseconds a row)
// is answered 400 validation_error naming the field, by product.list and
// by category.list, on both stores.
func TestCatalogRegexTimeout(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		db.SetRegexTimeout(200 * time.Millisecond)
		storetest.SeedSlowCatalog(t, sqldb.NewCatalogStore(db))
		tests := []struct {
			name, op string
			query    url.Values
			want     []string
		}{
			{"product description", "product.list", q("description", storetest.SlowPattern),
				[]string{"description: pattern took too long to match"}},
			{"product description and brand", "product.list", q("description", storetest.SlowPattern, "brand", "bosch|"),
				[]string{"description: pattern took too long to match", "brand: pattern took too long to match"}},
			{"category title", "category.list", q("title", storetest.SlowPattern),
				[]string{"title: pattern took too long to match"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := api.get(t, tc.op, tc.query).Expect(t, 400, commerce.EValidation)
				sameJSON(t, r.Data, tc.want)
			})
		}
		t.Run("quick patterns still answer", func(t *testing.T) {
			r := api.get(t, "product.list", q("description", "lazy dog", "limit", "3")).Must(t)
			if n := len(listIDs(t, r)); n != 3 {
				t.Errorf("got %d products, want 3", n)
			}
		})
	})
}
