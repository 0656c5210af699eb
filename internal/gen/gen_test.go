package gen_test

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/internal/gen"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// count returns the rows of a table.
func count(t *testing.T, db *sqldb.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGenerateServes generates a small shop on each store and reads it
// through the service: the counts of SizesFor, a product and its family,
// a search, a category, a customer's orders, the log from its middle, and
// a whole checkout of a generated product.
func TestGenerateServes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		const n = 400
		f, err := gen.Generate(ctx, db, gen.Config{Products: n, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		want := gen.SizesFor(n)
		if f.Sizes != want || want.Families != 10 || want.Customers != 80 || want.Events != 4000 || want.Categories != 20 {
			t.Fatalf("sizes %+v, SizesFor %+v", f.Sizes, want)
		}
		for table, w := range map[string]int{"products": n, "orders": want.Orders, "customers": want.Customers,
			"events": want.Events, "promotions": want.Promotions, "categories": want.Categories + 1, // and ROOT
			"stock": 2 * (n - want.Families), "product_prices": 3 * (n - want.Families)} {
			if got := count(t, db, table); got != w {
				t.Errorf("%s: %d rows, want %d", table, got, w)
			}
		}
		if _, err := gen.Generate(ctx, db, gen.Config{Products: 10, Seed: 7}); err == nil {
			t.Error("a second run into the same store: no error")
		}

		s := apitest.New(t, db)
		var p struct {
			ID, Title, Brand, Base string
			Variants               []string
			Prices                 []struct{ Currency string }
		}
		s.Get(t, "/catalog/v1/product.info?id="+f.Products[1], s.API).Must(t).Decode(t, "product", &p)
		if p.ID != f.Products[1] || len(p.Prices) != 3 || p.Title == "" {
			t.Fatalf("product.info: %+v", p)
		}
		// A family: the base (the 21st product) lists its three variants.
		var list struct {
			Data []struct {
				ID       string
				Base     string
				Variants []string
			} `json:"data"`
		}
		s.Get(t, "/catalog/v1/product.list?sku=GEN-00000020&fields=id,variants", s.API).Must(t).Decode(t, "data", &list.Data)
		if len(list.Data) != 1 {
			t.Fatalf("the base GEN-00000020: %+v", list)
		}
		var base struct{ Variants []string }
		s.Get(t, "/catalog/v1/product.info?id="+list.Data[0].ID, s.API).Must(t).Decode(t, "product", &base)
		if len(base.Variants) != 3 {
			t.Errorf("base %s: variants %v, want 3", list.Data[0].ID, base.Variants)
		}

		// Search finds the product by its brand and the first word of its
		// title.
		q := url.Values{"q": {strings.Fields(p.Title)[0] + " " + p.Brand}, "facets": {"brand,categories"}, "limit": {"100"}}
		var found struct {
			Total int `json:"total"`
			Data  []struct{ ID string }
		}
		if err := json.Unmarshal(s.Get(t, "/catalog/v1/product.search?"+q.Encode(), s.API).Must(t).Raw, &found); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(found.Data, func(d struct{ ID string }) bool { return d.ID == p.ID }) {
			t.Errorf("search %q: %d found, not %s", q.Get("q"), found.Total, p.ID)
		}

		// The big category holds about a tenth of the catalog.
		var cat []struct{ ID string }
		s.Get(t, "/catalog/v1/product.list?limit=1000&fields=id&categories="+f.BigCategory, s.API).Must(t).Decode(t, "data", &cat)
		if len(cat) < n/20 || len(cat) > n/5 {
			t.Errorf("big category: %d products of %d", len(cat), n)
		}

		// A customer's orders, and the orders of the day.
		var orders struct {
			Data []struct{ CustomerID, Status string }
		}
		s.Get(t, "/order/v1/order.list?customerId="+f.Customers[0], s.Admin).Must(t).Decode(t, "data", &orders.Data)
		if len(orders.Data) == 0 || orders.Data[0].CustomerID != f.Customers[0] {
			t.Errorf("order.list of %s: %+v", f.Customers[0], orders)
		}
		s.Get(t, "/order/v1/order.list?createdFrom="+f.Day+"T00:00:00Z&createdTo="+f.Day+"T23:59:59Z", s.Admin).Must(t).Decode(t, "data", &orders.Data)
		if len(orders.Data) == 0 {
			t.Errorf("no orders on %s", f.Day)
		}
		var events struct{ Data []struct{ ID string } }
		s.Get(t, "/event/v1/event.list?limit=10&after="+f.MiddleEvent, s.Admin).Must(t).Decode(t, "data", &events.Data)
		if len(events.Data) != 10 || events.Data[0].ID <= f.MiddleEvent {
			t.Errorf("event.list after the middle %s: %+v", f.MiddleEvent, events)
		}

		// A whole checkout of a generated product, from a generated
		// warehouse, with the generated shipping method.
		var c struct{ ID string }
		s.Post(t, "/cart/v1/cart.create", s.API, map[string]any{"currency": "USD", "country": "US"}).Must(t).Decode(t, "cart", &c)
		s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": c.ID,
			"items": []map[string]any{{"productId": p.ID, "quantity": 1, "warehouseId": gen.Warehouses[0]}}}).Must(t)
		s.Post(t, "/cart/v1/cart.setShippingAddress", s.API, map[string]any{"cartId": c.ID, "shippingAddress": map[string]any{
			"firstName": "Gen", "address_1": "1 Main St", "postCode": "62701", "city": "Springfield", "state": "IL", "country": "US"}}).Must(t)
		var placed struct{ ID, Number string }
		s.Post(t, "/cart/v1/cart.checkout", s.API, map[string]any{"cartId": c.ID, "paymentId": "manual",
			"paymentData": map[string]any{"reference": "gen-test"}}).Must(t).Decode(t, "order", &placed)
		if placed.Number != "1401" { // after the 400 generated orders, 1001 to 1400
			t.Errorf("the new order's number %q, want 1401", placed.Number)
		}
		s.Post(t, "/order/v1/order.capture", s.Admin, map[string]any{"id": placed.ID}).Must(t)
	})
}

// TestGenerateDeterministic: two runs with one seed write the same rows,
// another seed other rows.
func TestGenerateDeterministic(t *testing.T) {
	ctx := context.Background()
	dump := func(seed uint64) string {
		db := testdb.SQLiteAt(t, filepath.Join(t.TempDir(), "gen.db"))
		if _, err := gen.Generate(ctx, db, gen.Config{Products: 120, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		// Without the migrations' dates, the one thing of the clock.
		var rows []string
		for l := range strings.Lines(testdb.Dump(t, db)) {
			if !strings.HasPrefix(l, "schema_migrations:") {
				rows = append(rows, l)
			}
		}
		return strings.Join(rows, "")
	}
	a, b, c := dump(3), dump(3), dump(4)
	if a != b {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Fatalf("same seed, different rows; first difference at line %d:\n%s\n%s", i, al[i], bl[i])
			}
		}
		t.Fatalf("same seed, %d and %d lines", len(al), len(bl))
	}
	if a == c {
		t.Error("seeds 3 and 4 gave the same rows")
	}
	if !strings.Contains(a, "GEN-00000119") {
		t.Error("the dump has no product GEN-00000119")
	}
}
