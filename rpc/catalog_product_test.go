package rpc_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// catalogFixture is a small catalog for the product tests: Appliances
// (mandatory NUMBER voltage) > Fridges (mandatory STRING energy, optional
// BOOLEAN frost, optional NUMBER width), Sports without classifications,
// and a Base product with modifiers size and color.
type catalogFixture struct {
	api                        catalogAPI
	appliances, fridges, sport string
	base, plain                string
}

func newCatalogFixture(t *testing.T, db *sqldb.DB) *catalogFixture {
	f := &catalogFixture{api: newCatalogAPI(t, db)}
	def := func(id, typ string, mandatory bool) map[string]any {
		return map[string]any{"id": id, "description": id, "type": typ, "mandatory": mandatory}
	}
	f.appliances = f.api.category(t, map[string]any{"title": "Appliances", "slug": "appliances",
		"classifications": []any{def("voltage", "NUMBER", true)}})
	f.fridges = f.api.category(t, map[string]any{"title": "Fridges", "slug": "fridges", "parent": f.appliances,
		"classifications": []any{def("energy", "STRING", true), def("frost", "BOOLEAN", false), def("width", "NUMBER", false)}})
	f.sport = f.api.category(t, map[string]any{"title": "Sports", "slug": "sports"})
	f.base = f.api.product(t, productBody("BASE", f.sport, "modifiers", []string{"size", "color"}))["id"].(string)
	f.plain = f.api.product(t, productBody("PLAIN", f.sport))["id"].(string)
	return f
}

func TestCatalogProductCreate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		f := newCatalogFixture(t, db)
		api := f.api

		t.Run("full product", func(t *testing.T) {
			body := map[string]any{
				"sku": "F1", "title": "Fridge", "status": "ONLINE", "stockStatus": 1, "description": "Cold", "brand": "Bosch",
				"categories": []string{f.fridges}, "isNetPrice": true, "taxCode": "reduced",
				"prices": []any{map[string]any{"amount": 577.65, "currency": "USD", "id": "usd"},
					map[string]any{"amount": 500, "currency": "EUR", "country": "ES", "customerType": "VIP", "channel": "WEB",
						"validFrom": "2017-01-01", "validUntil": "2017-12-31T23:00:00+01:00"}},
				"medias":          []any{map[string]any{"id": "m1", "url": "//img/1.jpg"}},
				"classifications": []any{map[string]any{"id": "voltage", "value": "220"}, map[string]any{"id": "energy", "value": "A+"}, map[string]any{"id": "frost", "value": "true"}},
			}
			p := api.product(t, body)
			id := p["id"].(string)
			eurID := p["prices"].([]any)[1].(map[string]any)["id"].(string)
			if eurID == "" {
				t.Fatal("the EUR price got no id")
			}
			want := map[string]any{
				"id": id, "sku": "F1", "title": "Fridge", "status": "ONLINE", "stockStatus": 1, "description": "Cold", "brand": "Bosch",
				"categories": []string{f.fridges}, "isNetPrice": true, "taxCode": "reduced",
				"prices": []any{map[string]any{"id": "usd", "amount": 577.65, "currency": "USD"},
					map[string]any{"id": eurID, "amount": 500, "currency": "EUR", "country": "ES", "customerType": "VIP", "channel": "WEB",
						"validFrom": "2017-01-01T00:00:00Z", "validUntil": "2017-12-31T22:00:00Z"}},
				"medias":          []any{map[string]any{"id": "m1", "url": "//img/1.jpg"}},
				"classifications": []any{map[string]any{"id": "voltage", "value": 220}, map[string]any{"id": "energy", "value": "A+"}, map[string]any{"id": "frost", "value": true}},
			}
			sameJSON(t, p, want)
			var info map[string]any
			api.get(t, "product.info", q("id", id)).Must(t).Decode(t, "product", &info)
			sameJSON(t, info, want)
		})
		t.Run("defaults", func(t *testing.T) {
			p := api.product(t, productBody("D1", f.sport))
			sameJSON(t, p, map[string]any{"id": p["id"], "sku": "D1", "title": "Product D1", "status": "ONLINE", "stockStatus": 0,
				"categories": []string{f.sport}, "isNetPrice": false, "taxCode": "default", "prices": []any{}, "medias": []any{}, "classifications": []any{}})
		})
		t.Run("five categories", func(t *testing.T) {
			cats := []string{f.sport}
			for i := range 4 {
				cats = append(cats, api.category(t, map[string]any{"title": "X", "slug": fmt.Sprintf("five-%d", i)}))
			}
			p := api.product(t, productBody("FIVE", f.sport, "categories", cats))
			if n := len(p["categories"].([]any)); n != 5 {
				t.Errorf("got %d categories, want 5", n)
			}
		})
		t.Run("JPY and JOD precision", func(t *testing.T) {
			p := api.product(t, productBody("YEN", f.sport, "prices", []any{
				map[string]any{"amount": 1200, "currency": "JPY"}, map[string]any{"amount": 1.005, "currency": "JOD"}}))
			prices := p["prices"].([]any)
			if a := prices[0].(map[string]any)["amount"]; a != 1200.0 {
				t.Errorf("JPY amount %v, want 1200", a)
			}
			if a := prices[1].(map[string]any)["amount"]; a != 1.005 {
				t.Errorf("JOD amount %v, want 1.005", a)
			}
		})

		voltage := map[string]any{"id": "voltage", "value": 220}
		energy := map[string]any{"id": "energy", "value": "A"}
		fridge := func(sku string, classifications ...any) map[string]any {
			return productBody(sku, f.fridges, "classifications", classifications)
		}
		six := []string{"a", "b", "c", "d", "e", "f"}
		tests := []struct {
			name   string
			body   map[string]any
			status int
			code   string
			data   any // nil: no data expected
			check  bool
		}{
			{"missing sku", map[string]any{"title": "T", "status": "ONLINE", "stockStatus": 0, "categories": []string{f.sport}}, 400, commerce.EValidation, nil, false},
			{"missing everything", map[string]any{}, 400, commerce.EValidation,
				[]string{"sku: required", "status: required", "title: required", "categories: required", "stockStatus: required"}, true},
			{"id given", productBody("X", f.sport, "id", "mine"), 400, commerce.EValidation, []string{"id: unknown field"}, true},
			{"unknown field", productBody("X", f.sport, "isPercentaje", true), 400, commerce.EValidation, nil, false},
			{"bad status", productBody("X", f.sport, "status", "LIVE"), 400, commerce.EValidation, nil, false},
			{"bad stock status", productBody("X", f.sport, "stockStatus", 3), 400, commerce.EValidation, nil, false},
			{"stock status not a number", productBody("X", f.sport, "stockStatus", "0"), 400, commerce.EValidation, nil, false},
			{"empty categories", productBody("X", f.sport, "categories", []string{}), 400, commerce.EValidation, nil, false},
			{"media without url", productBody("X", f.sport, "medias", []any{map[string]any{"id": "m"}}), 400, commerce.EValidation, nil, false},
			{"six categories", productBody("X", f.sport, "categories", six), 400, commerce.EMaxCategoriesPerProduct, 5, true},
			{"unknown category", productBody("X", "nope"), 404, commerce.ECategoryNotFound, "nope", true},
			{"ancestor's mandatory classification", fridge("X", energy), 400, commerce.EMissingClassification, "voltage", true},
			{"own mandatory classification", fridge("X", voltage), 400, commerce.EMissingClassification, "energy", true},
			{"empty classification value", fridge("X", voltage, map[string]any{"id": "energy", "value": ""}), 400, commerce.EEmptyClassificationValue, "energy", true},
			{"null classification value", fridge("X", voltage, map[string]any{"id": "energy", "value": nil}), 400, commerce.EEmptyClassificationValue, "energy", true},
			{"not a boolean", fridge("X", voltage, energy, map[string]any{"id": "frost", "value": "maybe"}), 400, commerce.EClassificationValueNotBoolean, "frost", true},
			{"not a number", fridge("X", voltage, energy, map[string]any{"id": "width", "value": "wide"}), 400, commerce.EClassificationValueNotNumber, "width", true},
			{"ancestor's number", fridge("X", map[string]any{"id": "voltage", "value": "high"}, energy), 400, commerce.EClassificationValueNotNumber, "voltage", true},
			{"classification nobody defines", fridge("X", voltage, energy, map[string]any{"id": "weight", "value": 1}), 400, commerce.EValidation, nil, false},
			{"classification in a category without any", productBody("X", f.sport, "classifications", []any{energy}), 400, commerce.EValidation, nil, false},
			{"modifiers with base", productBody("X", f.sport, "modifiers", []string{"a"}, "base", f.base), 400, commerce.EInconsistentBaseVariants, nil, true},
			{"variants with variations", productBody("X", f.sport, "variants", []string{"v"}, "variations", []any{map[string]any{"id": "size", "value": "L"}}), 400, commerce.EInconsistentBaseVariants, nil, true},
			{"mixing beats a missing base", productBody("X", f.sport, "modifiers", []string{"a"}, "variations", []any{}), 400, commerce.EInconsistentBaseVariants, nil, true},
			{"base without variations", productBody("X", f.sport, "base", f.base), 400, commerce.EInconsistentBaseVariations, nil, true},
			{"variations without base", productBody("X", f.sport, "variations", []any{map[string]any{"id": "size", "value": "L"}}), 400, commerce.EInconsistentBaseVariations, nil, true},
			{"unknown base", productBody("X", f.sport, "base", "nope", "variations", []any{map[string]any{"id": "size", "value": "L"}}), 404, commerce.EBaseProductNotFound, "nope", true},
			{"base that is not a Base", productBody("X", f.sport, "base", f.plain, "variations", []any{map[string]any{"id": "size", "value": "L"}}), 404, commerce.EBaseProductNotFound, f.plain, true},
			{"missing variation", productBody("X", f.sport, "base", f.base, "variations", []any{map[string]any{"id": "size", "value": "L"}}), 400, commerce.EVariationDataNotFound, "color", true},
			{"empty variation value", productBody("X", f.sport, "base", f.base, "variations", []any{map[string]any{"id": "size", "value": ""}, map[string]any{"id": "color", "value": "red"}}), 400, commerce.EVariationDataNotFound, "size", true},
			{"variation of no modifier", productBody("X", f.sport, "base", f.base, "variations", []any{map[string]any{"id": "size", "value": "L"}, map[string]any{"id": "color", "value": "red"}, map[string]any{"id": "fit", "value": "slim"}}), 400, commerce.EValidation, nil, false},
			// docs/api.md section 6 order: a missing modifier value comes before an extra variation.
			{"missing variation beats one of no modifier", productBody("X", f.sport, "base", f.base, "variations", []any{map[string]any{"id": "size", "value": "L"}, map[string]any{"id": "fit", "value": "slim"}}), 400, commerce.EVariationDataNotFound, "color", true},
			// A present variants list counts, even empty; an empty variations list does not.
			{"empty variants with base and variations", productBody("X", f.sport, "variants", []string{}, "base", f.base, "variations", []any{map[string]any{"id": "size", "value": "L"}}), 400, commerce.EInconsistentBaseVariants, nil, true},
			{"empty variants with variations", productBody("X", f.sport, "variants", []string{}, "variations", []any{map[string]any{"id": "size", "value": "L"}}), 400, commerce.EInconsistentBaseVariants, nil, true},
			{"base with empty variations", productBody("X", f.sport, "base", f.base, "variations", []any{}), 400, commerce.EInconsistentBaseVariations, nil, true},
			{"empty modifiers", productBody("X", f.sport, "modifiers", []string{}), 400, commerce.ENoModifiersFound, nil, true},
			{"variants without modifiers", productBody("X", f.sport, "variants", []string{"v"}), 400, commerce.ENoModifiersFound, nil, true},
			{"variants on create", productBody("X", f.sport, "modifiers", []string{"size"}, "variants", []string{f.plain}), 404, commerce.EVariantNotFound, f.plain, true},
			{"negative price", productBody("X", f.sport, "prices", []any{map[string]any{"amount": -0.01, "currency": "USD", "country": "US"}}), 400, commerce.EPriceInvalid,
				map[string]any{"amount": -0.01, "currency": "USD", "country": "US"}, true},
			{"too many decimals", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 9.999, "currency": "USD"}}), 400, commerce.EPriceInvalid,
				map[string]any{"amount": 9.999, "currency": "USD"}, true},
			{"bad currency", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "DOLLAR"}}), 400, commerce.EPriceCurrencyInvalid, "DOLLAR", true},
			{"bad country", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD", "country": "XX"}}), 400, commerce.EPriceCountryInvalid, "XX", true},
			{"until before from", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD", "validFrom": "2017-02-01T00:00:00Z", "validUntil": "2017-01-01T00:00:00Z"}}),
				400, commerce.EPriceValidDates, map[string]any{"validFrom": "2017-02-01T00:00:00Z", "validUntil": "2017-01-01T00:00:00Z"}, true},
			{"from without until", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD", "validFrom": "2017-02-01"}}),
				400, commerce.EPriceValidDates, map[string]any{"validFrom": "2017-02-01", "validUntil": nil}, true},
			{"unparsable date", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD", "validFrom": "01/02/2017", "validUntil": "2017-02-01"}}),
				400, commerce.EPriceValidDates, map[string]any{"validFrom": "01/02/2017", "validUntil": "2017-02-01"}, true},
			{"unknown price field", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD", "price": 2}}), 400, commerce.EValidation,
				[]string{"prices[0].price: unknown field"}, true},
			{"price not an object", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD"}, 12}), 400, commerce.EValidation,
				[]string{"prices[1]: must be an object"}, true},
			{"null price", productBody("X", f.sport, "prices", []any{nil}), 400, commerce.EValidation, []string{"prices[0]: must be an object"}, true},
			{"currency not a string", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": 840}}), 400, commerce.EValidation,
				[]string{"prices[0].currency: must be a string"}, true},
			{"amount as a string", productBody("X", f.sport, "prices", []any{map[string]any{"amount": "7", "currency": "USD"}}), 400, commerce.EValidation,
				[]string{"prices[0].amount: must be a number"}, true},
			{"amount missing", productBody("X", f.sport, "prices", []any{map[string]any{"amount": nil, "currency": "USD"}}), 400, commerce.EValidation,
				[]string{"prices[0].amount: required"}, true},
			{"price as given, nulls and all", productBody("X", f.sport, "prices", []any{map[string]any{"id": "", "amount": 1e30, "currency": "USD", "validFrom": nil}}),
				400, commerce.EPriceInvalid, map[string]any{"id": "", "amount": 1e30, "currency": "USD", "validFrom": nil}, true},
			{"date as a number", productBody("X", f.sport, "prices", []any{map[string]any{"amount": 1, "currency": "USD", "validFrom": 20170101, "validUntil": "2017-02-01"}}),
				400, commerce.EPriceValidDates, map[string]any{"validFrom": 20170101, "validUntil": "2017-02-01"}, true},
			{"object for a STRING classification", fridge("X", voltage, map[string]any{"id": "energy", "value": map[string]any{"grade": "A"}}), 400, commerce.EValidation,
				[]string{"classifications[1].value: must be a string"}, true},
			{"list for a NUMBER classification", fridge("X", voltage, energy, map[string]any{"id": "width", "value": []any{60}}), 400, commerce.EClassificationValueNotNumber, "width", true},
			{"duplicate sku", productBody("PLAIN", f.sport), 409, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "PLAIN"}, true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := api.post(t, "product.create", tc.body).Expect(t, tc.status, tc.code)
				if tc.check {
					if tc.data == nil {
						if len(r.Data) != 0 && string(r.Data) != "null" {
							t.Errorf("got data %s, want none", r.Data)
						}
					} else {
						sameJSON(t, r.Data, tc.data)
					}
				}
			})
		}
		t.Run("nothing was stored by the failures", func(t *testing.T) {
			r := api.get(t, "product.list", q("status", "ONLINE,DRAFT", "limit", "100")).Must(t)
			if n := len(listIDs(t, r)); n != 6 {
				t.Errorf("got %d products, want the 6 created", n)
			}
		})
		t.Run("api token is forbidden", func(t *testing.T) {
			api.Post(t, "/catalog/v1/product.create", api.API, productBody("API", f.sport)).Expect(t, 403, commerce.EForbidden)
		})
		t.Run("no token", func(t *testing.T) {
			api.Post(t, "/catalog/v1/product.create", "", productBody("API", f.sport)).Expect(t, 401, commerce.EInvalidToken)
		})
		t.Run("GET is not allowed", func(t *testing.T) {
			api.Get(t, "/catalog/v1/product.create", api.Admin).Expect(t, 405, commerce.EMethodNotAllowed)
		})
	})
}

func TestCatalogVariants(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		f := newCatalogFixture(t, db)
		api := f.api
		variant := func(sku, size, color string, extra ...any) map[string]any {
			b := productBody(sku, f.sport, append([]any{"categories", []string{}, "base", f.base,
				"variations", []any{map[string]any{"id": "color", "value": color}, map[string]any{"id": "size", "value": size}}}, extra...)...)
			return api.product(t, b)
		}
		variants := func(t *testing.T, id string) []string {
			t.Helper()
			var p struct{ Variants *[]string }
			api.get(t, "product.info", q("id", id)).Must(t).Decode(t, "product", &p)
			if p.Variants == nil {
				t.Fatalf("product %s has no variants list", id)
			}
			return *p.Variants
		}
		if got := variants(t, f.base); len(got) != 0 {
			t.Fatalf("new base has variants %v", got)
		}
		v1 := variant("V1", "L", "red")
		v2 := variant("V2", "M", "blue")["id"].(string)
		t.Run("variant shape", func(t *testing.T) {
			sameJSON(t, v1, map[string]any{"id": v1["id"], "sku": "V1", "title": "Product V1", "status": "ONLINE", "stockStatus": 0,
				"categories": []any{}, "base": f.base, "isNetPrice": false, "taxCode": "default", "prices": []any{}, "medias": []any{}, "classifications": []any{},
				"variations": []any{map[string]any{"id": "size", "value": "L"}, map[string]any{"id": "color", "value": "red"}}})
		})
		t.Run("base lists its variants", func(t *testing.T) {
			if got := variants(t, f.base); !slices.Equal(got, []string{v1["id"].(string), v2}) {
				t.Errorf("got %v, want [%s %s]", got, v1["id"], v2)
			}
		})
		t.Run("variants given on base update must be its own", func(t *testing.T) {
			api.post(t, "product.update", map[string]any{"id": f.base, "variants": []string{v2}}).Must(t)
			r := api.post(t, "product.update", map[string]any{"id": f.base, "variants": []string{v2, f.plain}}).Expect(t, 404, commerce.EVariantNotFound)
			sameJSON(t, r.Data, `"`+f.plain+`"`)
			api.post(t, "product.update", map[string]any{"id": f.base, "variants": []string{"nope"}}).Expect(t, 404, commerce.EVariantNotFound)
		})
		t.Run("update errors", func(t *testing.T) {
			tests := []struct {
				name   string
				body   map[string]any
				status int
				code   string
			}{
				{"variant given modifiers", map[string]any{"id": v2, "modifiers": []string{"x"}}, 400, commerce.EInconsistentBaseVariants},
				{"base given a base", map[string]any{"id": f.base, "base": f.plain}, 400, commerce.EInconsistentBaseVariants},
				{"plain given a base only", map[string]any{"id": f.plain, "base": f.base}, 400, commerce.EInconsistentBaseVariantions},
				{"plain given variations only", map[string]any{"id": f.plain, "variations": []any{map[string]any{"id": "size", "value": "S"}}}, 400, commerce.EInconsistentBaseVariantions},
				{"unknown base", map[string]any{"id": v2, "base": "nope"}, 404, commerce.EBaseProductNotFound},
				{"variation dropped", map[string]any{"id": v2, "variations": []any{map[string]any{"id": "size", "value": "S"}}}, 400, commerce.EVariationDataNotFound},
				{"base's modifiers emptied", map[string]any{"id": f.base, "modifiers": []string{}}, 400, commerce.ENoModifiersFound},
				{"variant given empty variants", map[string]any{"id": v2, "variants": []string{}}, 400, commerce.EInconsistentBaseVariants},
				{"variant's variations emptied", map[string]any{"id": v2, "variations": []any{}}, 400, commerce.EInconsistentBaseVariantions},
				{"plain given a base and empty variations", map[string]any{"id": f.plain, "base": f.base, "variations": []any{}}, 400, commerce.EInconsistentBaseVariantions},
				{"missing variation beats one of no modifier", map[string]any{"id": v2, "variations": []any{map[string]any{"id": "size", "value": "S"}, map[string]any{"id": "fit", "value": "slim"}}}, 400, commerce.EVariationDataNotFound},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					api.post(t, "product.update", tc.body).Expect(t, tc.status, tc.code)
				})
			}
		})
		t.Run("a variant moves to another base", func(t *testing.T) {
			other := api.product(t, productBody("BASE2", f.sport, "modifiers", []string{"size", "color"}))["id"].(string)
			api.post(t, "product.update", map[string]any{"id": v2, "base": other}).Must(t)
			if got := variants(t, f.base); !slices.Equal(got, []string{v1["id"].(string)}) {
				t.Errorf("old base: got %v", got)
			}
			if got := variants(t, other); !slices.Equal(got, []string{v2}) {
				t.Errorf("new base: got %v", got)
			}
		})
		t.Run("plain product becomes a variant", func(t *testing.T) {
			api.post(t, "product.update", map[string]any{"id": f.plain, "base": f.base,
				"variations": []any{map[string]any{"id": "size", "value": "XS"}, map[string]any{"id": "color", "value": "black"}}}).Must(t)
			// in creation order of the variant products
			if got := variants(t, f.base); !slices.Equal(got, []string{f.plain, v1["id"].(string)}) {
				t.Errorf("got %v", got)
			}
		})
		t.Run("base with variants cannot be removed", func(t *testing.T) {
			api.post(t, "product.remove", map[string]any{"id": f.base}).Expect(t, 400, commerce.EValidation)
		})
		t.Run("removing a variant updates its base", func(t *testing.T) {
			api.post(t, "product.remove", map[string]any{"id": v1["id"]}).Must(t)
			if got := variants(t, f.base); !slices.Equal(got, []string{f.plain}) {
				t.Errorf("got %v", got)
			}
		})
		t.Run("an empty variations list is not kept", func(t *testing.T) {
			// Given empty, it is stored as absent: the product can become a
			// Base later (a kept empty list would make that mixing sides).
			id := api.product(t, productBody("EMPTYVAR", f.sport, "variations", []any{}))["id"].(string)
			api.post(t, "product.update", map[string]any{"id": id, "modifiers": []string{"size"}}).Must(t)
		})
		t.Run("category ancestors of a variant are its base's", func(t *testing.T) {
			got, err := api.App.Catalog.CategoryAncestors(t.Context(), []string{f.plain, "nope"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{f.plain: {f.sport, "ROOT"}}
			for k := range got {
				sort.Strings(got[k])
				sort.Strings(want[k])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	})
}

func TestCatalogProductUpdate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		f := newCatalogFixture(t, db)
		api := f.api
		p := api.product(t, productBody("U1", f.sport, "brand", "Acme", "prices", []any{
			map[string]any{"id": "keep", "amount": 10, "currency": "USD"}}))
		id := p["id"].(string)

		t.Run("partial update keeps the rest", func(t *testing.T) {
			var got map[string]any
			api.Post(t, "/catalog/v1/product.update?id="+id, api.Admin, map[string]any{"title": "New title", "stockStatus": 2}).Must(t).Decode(t, "product", &got)
			want := maps(p)
			want["title"], want["stockStatus"] = "New title", 2
			sameJSON(t, got, want)
		})
		t.Run("resent price ids are kept, new ones generated", func(t *testing.T) {
			var got struct{ Prices []struct{ ID string } }
			api.post(t, "product.update", map[string]any{"id": id, "prices": []any{
				map[string]any{"id": "keep", "amount": 11, "currency": "USD"}, map[string]any{"amount": 9, "currency": "EUR"}}}).Must(t).Decode(t, "product", &got)
			if len(got.Prices) != 2 || got.Prices[0].ID != "keep" || got.Prices[1].ID == "" || got.Prices[1].ID == "keep" {
				t.Errorf("got %+v", got.Prices)
			}
		})
		t.Run("validated as a whole: moving into a category with mandatory classifications", func(t *testing.T) {
			r := api.post(t, "product.update", map[string]any{"id": id, "categories": []string{f.fridges}}).Expect(t, 400, commerce.EMissingClassification)
			sameJSON(t, r.Data, `"energy"`) // the category's own first, then its ancestors'
			r = api.post(t, "product.update", map[string]any{"id": id, "categories": []string{f.fridges}, "classifications": []any{
				map[string]any{"id": "energy", "value": "B"}}}).Expect(t, 400, commerce.EMissingClassification)
			sameJSON(t, r.Data, `"voltage"`)
			api.post(t, "product.update", map[string]any{"id": id, "categories": []string{f.fridges}, "classifications": []any{
				map[string]any{"id": "voltage", "value": 110}, map[string]any{"id": "energy", "value": "B"}}}).Must(t)
			// later updates keep passing with the stored classifications
			api.post(t, "product.update", map[string]any{"id": id, "brand": "Other"}).Must(t)
		})
		tests := []struct {
			name   string
			body   map[string]any
			status int
			code   string
			data   any
		}{
			{"unknown product", map[string]any{"id": "nope", "title": "x"}, 404, commerce.EProductNotFound, "nope"},
			{"no id", map[string]any{"title": "x"}, 400, commerce.EValidation, nil},
			{"duplicate sku", map[string]any{"id": id, "sku": "PLAIN"}, 409, commerce.EDuplicateKey, map[string]any{"index": "sku", "sku": "PLAIN"}},
			{"blank title", map[string]any{"id": id, "title": ""}, 400, commerce.EValidation, nil},
			{"empty categories", map[string]any{"id": id, "categories": []string{}}, 400, commerce.EValidation, nil},
			{"six categories", map[string]any{"id": id, "categories": []string{"a", "b", "c", "d", "e", "f"}}, 400, commerce.EMaxCategoriesPerProduct, 5},
			{"unknown category", map[string]any{"id": id, "categories": []string{"nope"}}, 404, commerce.ECategoryNotFound, "nope"},
			{"empty classification", map[string]any{"id": id, "classifications": []any{map[string]any{"id": "voltage", "value": 1}, map[string]any{"id": "energy", "value": " "}}}, 400, commerce.EEmptyClassificationValue, "energy"},
			{"not a boolean", map[string]any{"id": id, "classifications": []any{map[string]any{"id": "voltage", "value": 1}, map[string]any{"id": "energy", "value": "A"}, map[string]any{"id": "frost", "value": 2}}}, 400, commerce.EClassificationValueNotBoolean, "frost"},
			{"not a number", map[string]any{"id": id, "classifications": []any{map[string]any{"id": "voltage", "value": "x"}, map[string]any{"id": "energy", "value": "A"}}}, 400, commerce.EClassificationValueNotNumber, "voltage"},
			{"price invalid", map[string]any{"id": id, "prices": []any{map[string]any{"amount": -5, "currency": "USD"}}}, 400, commerce.EPriceInvalid, map[string]any{"amount": -5, "currency": "USD"}},
			{"price currency", map[string]any{"id": id, "prices": []any{map[string]any{"amount": 5, "currency": "usd"}}}, 400, commerce.EPriceCurrencyInvalid, "usd"},
			{"price country", map[string]any{"id": id, "prices": []any{map[string]any{"amount": 5, "currency": "USD", "country": "UK"}}}, 400, commerce.EPriceCountryInvalid, "UK"},
			{"price dates", map[string]any{"id": id, "prices": []any{map[string]any{"amount": 5, "currency": "USD", "validUntil": "2017-01-01"}}}, 400, commerce.EPriceValidDates, map[string]any{"validFrom": nil, "validUntil": "2017-01-01"}},
			{"unknown field", map[string]any{"id": id, "colour": "red"}, 400, commerce.EValidation, []string{"colour: unknown field"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				before := api.get(t, "product.info", q("id", id)).Must(t).Body["product"]
				r := api.post(t, "product.update", tc.body).Expect(t, tc.status, tc.code)
				if tc.data != nil {
					sameJSON(t, r.Data, tc.data)
				}
				after := api.get(t, "product.info", q("id", id)).Must(t).Body["product"]
				sameJSON(t, after, before)
			})
		}
		t.Run("api token is forbidden", func(t *testing.T) {
			api.Post(t, "/catalog/v1/product.update", api.API, map[string]any{"id": id, "title": "x"}).Expect(t, 403, commerce.EForbidden)
		})
		t.Run("remove", func(t *testing.T) {
			api.post(t, "product.remove", map[string]any{"id": id}).Must(t)
			r := api.get(t, "product.info", q("id", id)).Expect(t, 404, commerce.EProductNotFound)
			sameJSON(t, r.Data, `"`+id+`"`)
			api.post(t, "product.remove", map[string]any{"id": id}).Expect(t, 404, commerce.EProductNotFound)
			// the sku is free again
			api.product(t, productBody("U1", f.sport))
		})
	})
}

// maps copies a JSON object one level deep.
func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestCatalogProductInfo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		f := newCatalogFixture(t, db)
		api := f.api
		draft := api.product(t, productBody("DR", f.sport, "status", "DRAFT", "brand", "B"))["id"].(string)

		t.Run("fields", func(t *testing.T) {
			r := api.get(t, "product.info", q("id", draft, "fields", "sku,brand,unknown")).Must(t)
			sameJSON(t, r.Body["product"], map[string]any{"id": draft, "sku": "DR", "brand": "B"})
		})
		t.Run("fields in a POST body as a string", func(t *testing.T) {
			r := api.Post(t, "/catalog/v1/product.info", api.API, map[string]any{"id": draft, "fields": "sku"}).Must(t)
			sameJSON(t, r.Body["product"], map[string]any{"id": draft, "sku": "DR"})
		})
		t.Run("DRAFT is visible by id", func(t *testing.T) {
			api.get(t, "product.info", q("id", draft)).Must(t)
		})
		t.Run("not found", func(t *testing.T) {
			r := api.get(t, "product.info", q("id", "nope")).Expect(t, 404, commerce.EProductNotFound)
			sameJSON(t, r.Data, `"nope"`)
		})
		t.Run("VIEWED event", func(t *testing.T) {
			tok := api.Token(t, commerce.Claims{Subject: "shopper-7", Scopes: []string{commerce.ScopeAPI}})
			api.Get(t, "/catalog/v1/product.info?id="+f.plain, tok).Must(t)
			var payload map[string]any
			deadline := time.Now().Add(5 * time.Second)
			for payload == nil && time.Now().Before(deadline) {
				for _, e := range catalogEvents(t, api, "PRODUCTS", "VIEWED") {
					if e.Payload["userId"] == "shopper-7" {
						payload = e.Payload
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			if payload == nil {
				t.Fatal("no VIEWED event for shopper-7")
			}
			if payload["productId"] != f.plain {
				t.Errorf("productId %v, want %s", payload["productId"], f.plain)
			}
			if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(payload["date"])); err != nil {
				t.Errorf("date %v: %v", payload["date"], err)
			}
		})
	})
}

type catalogEvent struct {
	ID      string
	Channel string
	Type    string
	Payload map[string]any
}

func catalogEvents(t *testing.T, api catalogAPI, channel, typ string) []catalogEvent {
	t.Helper()
	r := api.Get(t, "/event/v1/event.list?limit=1000&channel="+channel+"&type="+typ, api.Admin).Must(t)
	var events []catalogEvent
	r.Decode(t, "data", &events)
	return events
}

func TestCatalogEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		cat := api.category(t, map[string]any{"title": "C", "slug": "c"})
		api.post(t, "category.update", map[string]any{"id": cat, "title": "C2"}).Must(t)
		body := productBody("E1", cat, "prices", []any{map[string]any{"amount": 1.5, "currency": "USD"}})
		p := api.product(t, body)
		id := p["id"].(string)
		api.post(t, "product.update", map[string]any{"id": id, "title": "E1 new"}).Must(t)
		api.post(t, "product.remove", map[string]any{"id": id}).Must(t)
		api.post(t, "category.remove", map[string]any{"id": cat}).Must(t)
		api.post(t, "product.create", productBody("E2", "nope")).Expect(t, 404, commerce.ECategoryNotFound)

		one := func(t *testing.T, channel, typ string) map[string]any {
			t.Helper()
			events := catalogEvents(t, api, channel, typ)
			if len(events) != 1 {
				t.Fatalf("got %d %s %s events, want 1", len(events), channel, typ)
			}
			return events[0].Payload
		}
		t.Run("product CREATE", func(t *testing.T) {
			e := one(t, "PRODUCTS", "CREATE")
			sameJSON(t, e["new"], p)
			sameJSON(t, e["data"], body)
		})
		t.Run("product UPDATE", func(t *testing.T) {
			e := one(t, "PRODUCTS", "UPDATE")
			sameJSON(t, e["old"], p)
			sameJSON(t, e["data"], map[string]any{"id": id, "title": "E1 new"})
			if e["new"].(map[string]any)["title"] != "E1 new" {
				t.Errorf("new: %v", e["new"])
			}
		})
		t.Run("product REMOVE", func(t *testing.T) {
			e := one(t, "PRODUCTS", "REMOVE")
			if e["id"] != id || e["old"].(map[string]any)["title"] != "E1 new" {
				t.Errorf("got %v", e)
			}
		})
		t.Run("category CREATE UPDATE REMOVE", func(t *testing.T) {
			c := one(t, "CATEGORIES", "CREATE")
			if c["new"].(map[string]any)["id"] != cat {
				t.Errorf("create: %v", c)
			}
			sameJSON(t, c["data"], map[string]any{"title": "C", "slug": "c"})
			u := one(t, "CATEGORIES", "UPDATE")
			if u["old"].(map[string]any)["title"] != "C" || u["new"].(map[string]any)["title"] != "C2" {
				t.Errorf("update: %v", u)
			}
			sameJSON(t, u["data"], map[string]any{"id": cat, "title": "C2"})
			if r := one(t, "CATEGORIES", "REMOVE"); r["id"] != cat {
				t.Errorf("remove: %v", r)
			}
		})
	})
}

// TestCatalogConcurrentUpdates updates different fields of one product in
// parallel: every update must be in the final product (no lost write).
func TestCatalogConcurrentUpdates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		c1 := api.category(t, map[string]any{"title": "C1", "slug": "c1"})
		c2 := api.category(t, map[string]any{"title": "C2", "slug": "c2"})
		id := api.product(t, productBody("CC", c1, "modifiers", []string{"size"}))["id"].(string)

		updates := map[string]any{
			"title":       "new title",
			"description": "new description",
			"brand":       "new brand",
			"taxCode":     "new-tax",
			"sku":         "CC-2",
			"stockStatus": 1,
			"isNetPrice":  true,
			"status":      "DRAFT",
			"categories":  []string{c1, c2},
			"medias":      []any{map[string]any{"id": "m", "url": "u"}},
			"prices":      []any{map[string]any{"id": "p", "amount": 3.5, "currency": "USD"}},
			"modifiers":   []string{"size", "color"},
		}
		const rounds = 2 // every field written twice: 24 concurrent updates
		var wg sync.WaitGroup
		errs := make(chan string, len(updates)*rounds)
		for range rounds {
			for field, value := range updates {
				wg.Go(func() {
					r := api.Post(t, "/catalog/v1/product.update", api.Admin, map[string]any{"id": id, field: value})
					if !r.OK {
						errs <- fmt.Sprintf("%s: %d %s", field, r.Status, r.Raw)
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		var got map[string]any
		api.get(t, "product.info", q("id", id)).Must(t).Decode(t, "product", &got)
		for field, value := range updates {
			if field == "prices" {
				sameJSON(t, got[field], []any{map[string]any{"id": "p", "amount": 3.5, "currency": "USD"}})
				continue
			}
			b, _ := json.Marshal(got[field])
			w, _ := json.Marshal(value)
			var gv, wv any
			json.Unmarshal(b, &gv)
			json.Unmarshal(w, &wv)
			if !reflect.DeepEqual(gv, wv) {
				t.Errorf("%s: got %s, want %s (a lost write)", field, b, w)
			}
		}
		if n := len(catalogEvents(t, api, "PRODUCTS", "UPDATE")); n != len(updates)*rounds {
			t.Errorf("got %d UPDATE events, want %d", n, len(updates)*rounds)
		}
	})
}
