package loader_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commercekit/commerce/loader"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// twiceFiles is a small folder in the sample's format with a record of
// every kind, two taxes of one code (both apply, docs/api.md section 8)
// and two categories of one slug under different parents.
var twiceFiles = map[string]string{
	"dataCategories.jsonl": `{"parent": "ROOT", "title": "Frigoríficos"}
{"parent": "ROOT", "title": "Hogar"}
{"parent": "categoryIdByTitle(Hogar)", "title": "Cocina"}
`,
	"dataTaxes.jsonl": `{"code": "default", "class": "default", "title": "IVA 21%", "rate": 21, "isPercentage": true}
{"code": "default", "class": "default", "title": "Recargo 5.2%", "rate": 5.2, "isPercentage": true}
{"code": "bad", "class": "nope", "title": "Refused", "rate": 1, "isPercentage": true}
`,
	"dataShipping.jsonl": `{"title": "UPS Same Day", "active": true, "taxCode": "default", "rates": [{"locations": [{"country": "US", "state": "Hawaii"}], "rates": [{"currency": "USD", "amount": 25}]}]}
`,
	"dataProducts.jsonl": `{"sku": "twice-1", "status": "ONLINE", "title": "Fridge one", "categories": ["categoryIdByTitle(Frigoríficos)"], "prices": [{"amount": 100, "currency": "USD"}], "taxCode": "default"}
{"sku": "twice-2", "status": "ONLINE", "title": "Fridge two", "categories": ["categoryIdByTitle(Cocina)"], "prices": [{"amount": 200, "currency": "USD"}], "taxCode": "default"}
`,
	"dataPromotions.jsonl": `{"title": "10% on fridges", "class": "default", "active": true, "priority": 1, "if": {"category": {"id": "categoryIdByTitle(Frigoríficos)", "quantity": 1}}, "then": {"category": {"id": "categoryIdByTitle(Frigoríficos)", "quantity": 1, "discount": {"rate": 10, "isPercentaje": true}}}}
`,
}

// TestLoadTwice loads a folder twice into one service: the second load
// creates nothing (every record already there, the refused one refused
// again), so the service holds one of each record and a cart is priced
// as after the first load (one shipping method, each tax once); a third
// load of a longer folder adds only the new records.
func TestLoadTwice(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		dir := t.TempDir()
		for name, content := range twiceFiles {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		load := func() *loader.Report {
			t.Helper()
			rep, err := loader.Load(context.Background(), dir, loader.Options{URL: srv.URL, Token: srv.Admin, FixSpelling: true})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			return rep
		}
		summary := func(rep *loader.Report) string {
			var b strings.Builder
			rep.WriteSummary(&b)
			return b.String()
		}
		check := func(rep *loader.Report, file string, loaded, existing, rejected int) {
			t.Helper()
			f := rep.File(file)
			if f == nil || f.Skipped != "" || f.Loaded != loaded || f.Existing != existing || len(f.Rejected) != rejected {
				t.Errorf("%s: want loaded %d, already there %d, rejected %d; got\n%s", file, loaded, existing, rejected, summary(rep))
			}
		}

		first := load()
		check(first, "dataCategories.jsonl", 3, 0, 0)
		check(first, "dataTaxes.jsonl", 2, 0, 1)
		check(first, "dataShipping.jsonl", 1, 0, 0)
		check(first, "dataProducts.jsonl", 2, 0, 0)
		check(first, "dataPromotions.jsonl", 1, 0, 0)
		if s := summary(first); strings.Contains(s, "already there") {
			t.Errorf("first load's summary mentions records already there:\n%s", s)
		}

		second := load()
		check(second, "dataCategories.jsonl", 0, 3, 0)
		check(second, "dataTaxes.jsonl", 0, 2, 1)
		check(second, "dataShipping.jsonl", 0, 1, 0)
		check(second, "dataProducts.jsonl", 0, 2, 0)
		check(second, "dataPromotions.jsonl", 0, 1, 0)
		for _, want := range []string{
			"taxes (dataTaxes.jsonl): loaded 0, rejected 1, already there 2\n",
			"products (dataProducts.jsonl): loaded 0, rejected 0, already there 2\n",
		} {
			if s := summary(second); !strings.Contains(s, want) {
				t.Errorf("second summary lacks %q:\n%s", want, s)
			}
		}

		count := func(op string, q url.Values) int {
			t.Helper()
			var data []map[string]any
			srv.Get(t, op+"?"+q.Encode(), srv.Admin).Must(t).Decode(t, "data", &data)
			return len(data)
		}
		for _, c := range []struct {
			op   string
			q    url.Values
			want int
		}{
			{"/catalog/v1/category.list", url.Values{"limit": {"100"}}, 4}, // ROOT and three
			{"/tax/v1/tax.list", url.Values{"code": {"default"}, "limit": {"100"}}, 2},
			{"/cart/v1/shipping.list", url.Values{"limit": {"100"}}, 1},
			{"/catalog/v1/product.list", url.Values{"limit": {"100"}}, 2},
			{"/promotion/v1/promotion.list", url.Values{"limit": {"100"}}, 1},
		} {
			if got := count(c.op, c.q); got != c.want {
				t.Errorf("%s?%s after two loads: %d records, want %d", c.op, c.q.Encode(), got, c.want)
			}
		}

		// A cart shipped to Hawaii: one method, assigned; each tax and the
		// promotion once.
		var cart struct {
			ID string `json:"id"`
		}
		srv.Post(t, "/cart/v1/cart.create", srv.API, map[string]any{"currency": "USD", "country": "US"}).Must(t).Decode(t, "cart", &cart)
		var product []map[string]any
		srv.Get(t, "/catalog/v1/product.list?sku=twice-1&fields=id", srv.API).Must(t).Decode(t, "data", &product)
		if len(product) != 1 {
			t.Fatalf("product twice-1: %v", product)
		}
		srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": product[0]["id"], "warehouseId": "w", "quantity": 10}).Must(t)
		res := srv.Post(t, "/cart/v1/cart.addToCart", srv.API, map[string]any{"cartId": cart.ID,
			"items": []any{map[string]any{"productId": product[0]["id"], "quantity": 1, "warehouseId": "w"}}}).Must(t)
		var added struct {
			Items []struct {
				TaxDetail string `json:"taxDetail"`
				Discounts []any  `json:"discounts"`
			} `json:"items"`
		}
		res.Decode(t, "cart", &added)
		if len(added.Items) != 1 || added.Items[0].TaxDetail != "IVA 21%, Recargo 5.2%" || len(added.Items[0].Discounts) != 1 {
			t.Errorf("entry after two loads: %+v, want the two taxes once each and one discount", added.Items)
		}
		var methods []map[string]any
		srv.Post(t, "/cart/v1/cart.setShippingAddress", srv.API, map[string]any{"cartId": cart.ID,
			"shippingAddress": map[string]any{"firstName": "Ana", "address_1": "1 Beach Rd", "postCode": "96815",
				"city": "Honolulu", "state": "Hawaii", "country": "US"}}).Must(t).Decode(t, "shippingMethods", &methods)
		if len(methods) != 1 || methods[0]["title"] != "UPS Same Day" {
			t.Errorf("shipping methods for Hawaii after two loads: %v, want UPS Same Day once", methods)
		}
		srv.Post(t, "/cart/v1/cart.checkout", srv.API, map[string]any{"cartId": cart.ID, "paymentId": "manual",
			"paymentData": map[string]any{}}).Must(t)

		// A longer folder: only the new records are created.
		more := map[string]string{
			"dataTaxes.jsonl":    twiceFiles["dataTaxes.jsonl"] + `{"code": "default", "class": "default", "title": "Third", "rate": 1, "isPercentage": true}` + "\n",
			"dataProducts.jsonl": twiceFiles["dataProducts.jsonl"] + `{"sku": "twice-3", "status": "ONLINE", "title": "Fridge three", "categories": ["categoryIdByTitle(Cocina)"], "prices": [{"amount": 300, "currency": "USD"}]}` + "\n",
		}
		for name, content := range more {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		third := load()
		check(third, "dataTaxes.jsonl", 1, 2, 1)
		check(third, "dataProducts.jsonl", 1, 2, 0)
	})
}
