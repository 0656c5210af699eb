package promotion_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// category creates a category through the catalog API and returns its id.
func category(t *testing.T, srv *apitest.Server, title, parent string) string {
	t.Helper()
	var c struct{ ID string }
	srv.Post(t, "/catalog/v1/category.create", srv.Admin, map[string]any{
		"title": title, "slug": strings.ToLower(strings.ReplaceAll(title, " ", "-")), "parent": parent,
	}).Must(t).Decode(t, "category", &c)
	return c.ID
}

// product creates an ONLINE product in the categories and returns its id.
func product(t *testing.T, srv *apitest.Server, sku string, categories ...string) string {
	t.Helper()
	var p struct{ ID string }
	srv.Post(t, "/catalog/v1/product.create", srv.Admin, map[string]any{
		"sku": sku, "title": sku, "status": "ONLINE", "stockStatus": 1, "categories": categories,
	}).Must(t).Decode(t, "product", &p)
	return p.ID
}

// cartPromotions posts a request and returns the response body as compact
// JSON with sorted keys.
func cartPromotions(t *testing.T, srv *apitest.Server, version string, req any) string {
	t.Helper()
	r := srv.Post(t, "/promotion/"+version+"/promotion.cartPromotions", srv.API, req).Must(t)
	return compact(t, string(r.Raw))
}

// TestWorkedExample runs the worked example of docs/api.md section 7 end
// to end: categories and products from the catalog (C sits in a
// sub-category of the promotion's category), the promotion created over
// HTTP, and cartPromotions in both forms on both path versions.
func TestWorkedExample(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		fridges := category(t, srv, "Fridges", "ROOT")
		combi := category(t, srv, "Combi fridges", fridges)
		a, b, c := product(t, srv, "A", fridges), product(t, srv, "B", fridges), product(t, srv, "C", combi)
		p := create(t, srv, body("3 fridges at 10", 100,
			fmt.Sprintf(`{"category":{"id":%q,"quantity":3,"lowestPrice":true}}`, fridges),
			fmt.Sprintf(`{"category":{"id":%q,"quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`, fridges)))

		almost := fmt.Sprintf(`[{"id":%q,"data":[{"collectedQuantity":2,"promoQuantity":3,"threshold":0.6666666666666666,"value":0.6666666666666666,"type":"CATEGORY","code":%q,"items":[{"itemId":"C","quantityToUse":1},{"itemId":"A","quantityToUse":1}]}]}]`, p.ID, fridges)
		discounts := func(price1, discount1, price2, discount2 string) string {
			return fmt.Sprintf(`[{"id":"B","discounts":[{"promotionId":%[1]q,"promotionTitle":"3 fridges at 10","quantity":2,"price":%[2]s,"discount":%[3]s}]},`+
				`{"id":"C","discounts":[{"promotionId":%[1]q,"promotionTitle":"3 fridges at 10","quantity":1,"price":%[4]s,"discount":%[5]s}]}]`,
				p.ID, price1, discount1, price2, discount2)
		}
		usd := func(amount int) string { return fmt.Sprintf(`{"amount":%d,"currency":"USD","precision":2}`, amount) }
		wantV1 := compact(t, `{"ok":true,"almostFulfilledPromos":`+almost+`,"itemDiscounts":`+discounts("321.47", "311.47", "469", "459")+`}`)
		wantV2 := compact(t, `{"ok":true,"almostFulfilledPromos":`+almost+`,"itemDiscounts":`+discounts(usd(32147), usd(31147), usd(46900), usd(45900))+`}`)

		items := func(price func(major string, minor int) any) []map[string]any {
			return []map[string]any{
				{"id": "A", "productId": a, "quantity": 1, "price": price("577.65", 57765)},
				{"id": "B", "productId": b, "quantity": 2, "price": price("321.47", 32147)},
				{"id": "C", "productId": c, "quantity": 2, "price": price("469.00", 46900)},
			}
		}
		plain := func(major string, _ int) any { return json.RawMessage(major) }
		object := func(_ string, minor int) any {
			return map[string]any{"amount": minor, "currency": "USD", "precision": 2}
		}
		for _, tc := range []struct {
			name, path string
			items      []map[string]any
			want       string
		}{
			{"v1 form on the v1 path", "v1", items(plain), wantV1},
			{"v1 form on the v2 path", "v2", items(plain), wantV1},
			{"v2 form on the v2 path", "v2", items(object), wantV2},
			{"v2 form on the v1 path", "v1", items(object), wantV2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := cartPromotions(t, srv, tc.path, map[string]any{"cartId": "cart-1", "items": tc.items})
				if got != tc.want {
					t.Errorf("got  %s\nwant %s", got, tc.want)
				}
			})
		}
		t.Run("GET with the query string", func(t *testing.T) {
			// A read operation: GET works too, cartId in the query string.
			r := srv.Do(t, "GET", "/promotion/v1/promotion.cartPromotions?cartId=cart-1", srv.API,
				map[string]any{"items": items(plain)}).Must(t)
			if got := compact(t, string(r.Raw)); got != wantV1 {
				t.Errorf("got  %s\nwant %s", got, wantV1)
			}
		})
	})
}

// TestCartPromotionsAmounts checks discount kinds, currencies with other
// precisions and the default quantity.
func TestCartPromotionsAmounts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		// Products unknown to the catalog: product rules still match.
		create(t, srv, body("pct", 1, `{"product":{"id":"p-pct","quantity":1}}`, `{"product":{"id":"p-pct","quantity":1,"discount":{"rate":12.5,"isPercentage":true}}}`))
		create(t, srv, body("off", 1, `{"product":{"id":"p-off","quantity":1}}`, `{"product":{"id":"p-off","quantity":1,"discount":{"rate":3}}}`))
		discount := func(got string) string {
			var r struct {
				ItemDiscounts []struct {
					Discounts []struct {
						Quantity int             `json:"quantity"`
						Price    json.RawMessage `json:"price"`
						Discount json.RawMessage `json:"discount"`
					} `json:"discounts"`
				} `json:"itemDiscounts"`
			}
			json.Unmarshal([]byte(got), &r)
			var parts []string
			for _, it := range r.ItemDiscounts {
				for _, d := range it.Discounts {
					parts = append(parts, fmt.Sprintf("%d x %s off %s", d.Quantity, d.Discount, d.Price))
				}
			}
			return strings.Join(parts, "; ")
		}
		for _, tc := range []struct {
			name string
			req  map[string]any
			want string
		}{
			{"percentage rounds half away from zero per unit", map[string]any{"cartId": "c", "items": []any{
				map[string]any{"id": "e", "productId": "p-pct", "price": 10.1}}}, // 12.5% of 10.10 = 1.2625
				"1 x 1.26 off 10.1"},
			{"amount off, default quantity 1", map[string]any{"cartId": "c", "items": []any{
				map[string]any{"id": "e", "productId": "p-off", "price": 2}}},
				"1 x 2 off 2"},
			{"v1 in JPY", map[string]any{"cartId": "c", "currency": "JPY", "items": []any{
				map[string]any{"id": "e", "productId": "p-pct", "quantity": 3, "price": 1001}}},
				"3 x 125 off 1001"},
			{"v2 in JOD", map[string]any{"cartId": "c", "items": []any{
				map[string]any{"id": "e", "productId": "p-off", "quantity": 2, "price": map[string]any{"amount": 10500, "currency": "JOD", "precision": 3}}}},
				`2 x {"amount":3000,"currency":"JOD","precision":3} off {"amount":10500,"currency":"JOD","precision":3}`},
			{"v2 in JPY", map[string]any{"cartId": "c", "currency": "JPY", "items": []any{
				map[string]any{"id": "e", "productId": "p-pct", "price": map[string]any{"amount": 999, "currency": "JPY", "precision": 0}}}},
				`1 x {"amount":125,"currency":"JPY","precision":0} off {"amount":999,"currency":"JPY","precision":0}`},
			{"no promotion matches", map[string]any{"cartId": "c", "items": []any{
				map[string]any{"id": "e", "productId": "other", "price": 5}}},
				""},
			{"no items", map[string]any{"cartId": "c", "items": []any{}}, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := cartPromotions(t, srv, "v2", tc.req)
				if d := discount(got); d != tc.want {
					t.Errorf("got %q, want %q (%s)", d, tc.want, got)
				}
				var r struct {
					Almost    json.RawMessage `json:"almostFulfilledPromos"`
					Discounts json.RawMessage `json:"itemDiscounts"`
				}
				json.Unmarshal([]byte(got), &r)
				if r.Almost[0] != '[' || r.Discounts[0] != '[' {
					t.Errorf("got %s, want both lists present", got)
				}
			})
		}
	})
}

// TestCartPromotionsValidation: every bad request is validation_error
// naming the field.
func TestCartPromotionsValidation(t *testing.T) {
	usd := func(amount any) map[string]any {
		return map[string]any{"amount": amount, "currency": "USD", "precision": 2}
	}
	item := func(id string, price any) map[string]any {
		return map[string]any{"id": id, "productId": "p", "price": price}
	}
	many := func(n int) []any {
		var out []any
		for i := range n {
			out = append(out, item(fmt.Sprint("e", i), 1))
		}
		return out
	}
	tests := []struct {
		name string
		req  any
		want string // a field path named in the error data
	}{
		{"no cartId", map[string]any{"items": []any{item("e", 1)}}, "cartId"},
		{"no items", map[string]any{"cartId": "c"}, "items"},
		{"items not a list", map[string]any{"cartId": "c", "items": "e"}, "items"},
		{"51 entries", map[string]any{"cartId": "c", "items": many(51)}, "items"},
		{"no item id", map[string]any{"cartId": "c", "items": []any{map[string]any{"productId": "p", "price": 1}}}, "items[0].id"},
		{"duplicate item id", map[string]any{"cartId": "c", "items": []any{item("e", 1), item("e", 2)}}, "items[1].id"},
		{"no productId", map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "price": 1}}}, "items[0].productId"},
		{"quantity 0", map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p", "quantity": 0, "price": 1}}}, "items[0].quantity"},
		{"quantity 101", map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p", "quantity": 101, "price": 1}}}, "items[0].quantity"},
		{"quantity fractional", map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p", "quantity": 1.5, "price": 1}}}, "items[0].quantity"},
		{"unknown item field", map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p", "price": 1, "discount": 1}}}, "items[0].discount"},
		{"no price", map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p"}}}, "items[0].price"},
		{"price a string", map[string]any{"cartId": "c", "items": []any{item("e", "10")}}, "items[0].price"},
		{"mixed forms", map[string]any{"cartId": "c", "items": []any{item("e", 1), item("f", usd(100))}}, "items[1].price"},
		{"v1 negative price", map[string]any{"cartId": "c", "items": []any{item("e", -1)}}, "items[0].price"},
		{"v1 too many decimals", map[string]any{"cartId": "c", "items": []any{item("e", 1.001)}}, "items[0].price"},
		{"v1 decimals in JPY", map[string]any{"cartId": "c", "currency": "JPY", "items": []any{item("e", 1.5)}}, "items[0].price"},
		{"v1 unknown currency", map[string]any{"cartId": "c", "currency": "XYZ", "items": []any{item("e", 1)}}, "currency"},
		{"v1 lower-case currency", map[string]any{"cartId": "c", "currency": "usd", "items": []any{item("e", 1)}}, "currency"},
		{"v2 fractional amount", map[string]any{"cartId": "c", "items": []any{item("e", usd(10.5))}}, "items[0].price.amount"},
		{"v2 negative amount", map[string]any{"cartId": "c", "items": []any{item("e", usd(-1))}}, "items[0].price.amount"},
		{"v2 no amount", map[string]any{"cartId": "c", "items": []any{item("e", map[string]any{"currency": "USD", "precision": 2})}}, "items[0].price.amount"},
		{"v2 no currency", map[string]any{"cartId": "c", "items": []any{item("e", map[string]any{"amount": 1, "precision": 2})}}, "items[0].price.currency"},
		{"v2 unknown currency", map[string]any{"cartId": "c", "items": []any{item("e", map[string]any{"amount": 1, "currency": "ABC", "precision": 2})}}, "items[0].price.currency"},
		{"v2 no precision", map[string]any{"cartId": "c", "items": []any{item("e", map[string]any{"amount": 1, "currency": "USD"})}}, "items[0].price.precision"},
		{"v2 wrong precision", map[string]any{"cartId": "c", "items": []any{item("e", map[string]any{"amount": 1, "currency": "JPY", "precision": 2})}}, "items[0].price.precision"},
		{"v2 unknown field", map[string]any{"cartId": "c", "items": []any{item("e", map[string]any{"amount": 1, "currency": "USD", "precision": 2, "cents": true})}}, "items[0].price.cents"},
		{"v2 two currencies", map[string]any{"cartId": "c", "items": []any{item("e", usd(1)), item("f", map[string]any{"amount": 1, "currency": "EUR", "precision": 2})}}, "items[1].price.currency"},
		{"v2 currency argument differs", map[string]any{"cartId": "c", "currency": "EUR", "items": []any{item("e", usd(1))}}, "currency"},
		{"unknown top-level field", map[string]any{"cartId": "c", "items": []any{item("e", 1)}, "customerId": "x"}, "customerId"},
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		create(t, srv, body("any", 1, prodIf, prodThen))
		for _, tc := range tests {
			for _, version := range []string{"v1", "v2"} {
				t.Run(tc.name+" "+version, func(t *testing.T) {
					r := srv.Post(t, "/promotion/"+version+"/promotion.cartPromotions", srv.API, tc.req).Expect(t, 400, "validation_error")
					var problems []string
					if err := json.Unmarshal(r.Data, &problems); err != nil {
						t.Fatalf("data: got %s, want a list of problems", r.Data)
					}
					if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, tc.want+":") }) {
						t.Errorf("data: got %q, want a problem of %q", problems, tc.want)
					}
				})
			}
		}
	})
}

// TestSubcategoryMembership: a product in a descendant of the promotion's
// category gets the discount; one in another branch does not.
func TestSubcategoryMembership(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		appliances := category(t, srv, "Appliances", "ROOT")
		fridges := category(t, srv, "Fridges", appliances)
		combi := category(t, srv, "Combi", fridges)
		sports := category(t, srv, "Sports", "ROOT")
		deep, shallow, other := product(t, srv, "DEEP", combi), product(t, srv, "SHALLOW", appliances), product(t, srv, "OTHER", sports)
		p := create(t, srv, body("20% on appliances", 1,
			fmt.Sprintf(`{"category":{"id":%q,"quantity":1}}`, appliances),
			fmt.Sprintf(`{"category":{"id":%q,"quantity":1,"discount":{"rate":20,"isPercentage":true}}}`, appliances)))
		got := cartPromotions(t, srv, "v1", map[string]any{"cartId": "c", "items": []any{
			map[string]any{"id": "deep", "productId": deep, "price": 100},
			map[string]any{"id": "other", "productId": other, "price": 100},
			map[string]any{"id": "shallow", "productId": shallow, "price": 50},
			map[string]any{"id": "unknown", "productId": "no-such-product", "price": 100},
		}})
		d := func(id string, price, discount int) string {
			return fmt.Sprintf(`{"id":%q,"discounts":[{"promotionId":%q,"promotionTitle":"20%% on appliances","quantity":1,"price":%d,"discount":%d}]}`, id, p.ID, price, discount)
		}
		want := compact(t, `{"ok":true,"almostFulfilledPromos":[],"itemDiscounts":[`+d("deep", 100, 20)+`,`+d("shallow", 50, 10)+`]}`)
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
}

// TestDeactivateStopsImmediately: the instance that changes a promotion
// uses the change in the very next evaluation.
func TestDeactivateStopsImmediately(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		p := create(t, srv, body("5 off p1", 1, prodIf, prodThen))
		req := map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p1", "price": 20}}}
		discounted := func() bool {
			return strings.Contains(cartPromotions(t, srv, "v1", req), p.ID)
		}
		if !discounted() {
			t.Fatal("active promotion did not fire")
		}
		for i, active := range []bool{false, true, false} {
			srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"id": p.ID, "active": active}).Must(t)
			if got := discounted(); got != active {
				t.Fatalf("step %d: active=%v, discounted=%v", i, active, got)
			}
		}
		// A new promotion is in use at once too.
		q := create(t, srv, body("2 for 1", 1, `{"product":{"id":"p1","quantity":2}}`, `{"product":{"id":"p1","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`))
		if got := cartPromotions(t, srv, "v1", req); !strings.Contains(got, q.ID) {
			t.Errorf("new promotion not reported as almost fulfilled: %s", got)
		}
	})
}

// TestPriorityOrder: the lower priority fires first and takes the units.
func TestPriorityOrder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		late := create(t, srv, body("late", 10, prodIf, prodThen))
		early := create(t, srv, body("early", 1, prodIf, `{"product":{"id":"p1","quantity":1,"discount":{"rate":1}}}`))
		req := map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p1", "quantity": 1, "price": 20}}}
		got := cartPromotions(t, srv, "v1", req)
		if !strings.Contains(got, early.ID) || strings.Contains(got, late.ID) {
			t.Errorf("got %s, want only %s (priority 1)", got, early.ID)
		}
		// Raising the other's priority swaps them.
		srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"id": late.ID, "priority": 0}).Must(t)
		got = cartPromotions(t, srv, "v1", req)
		if !strings.Contains(got, late.ID) || strings.Contains(got, early.ID) {
			t.Errorf("got %s, want only %s (priority 0)", got, late.ID)
		}
	})
}

// TestCrossInstanceRefresh: two instances on one PostgreSQL database; a
// promotion created or deactivated through one is in use by the other
// within a second.
func TestCrossInstanceRefresh(t *testing.T) {
	url := testdb.PostgresURL(t)
	one, two := apitest.New(t, testdb.PostgresAt(t, url)), apitest.New(t, testdb.PostgresAt(t, url))
	req := map[string]any{"cartId": "c", "items": []any{map[string]any{"id": "e", "productId": "p1", "price": 20}}}
	fires := func(srv *apitest.Server, id string) bool {
		return strings.Contains(cartPromotions(t, srv, "v1", req), id)
	}
	// within polls the second instance until it agrees, and returns how
	// long that took.
	within := func(id string, want bool) time.Duration {
		t.Helper()
		start := time.Now()
		for fires(two, id) != want {
			if time.Since(start) > 3*time.Second {
				t.Fatalf("instance two: promotion %s firing=%v after 3s, want %v", id, !want, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start)
	}
	// Warm instance two's cache before the change.
	if fires(two, "promotionId") {
		t.Fatal("a discount with no promotions")
	}
	p := create(t, one, body("5 off p1", 1, prodIf, prodThen))
	if !fires(one, p.ID) {
		t.Fatal("instance one does not use its own new promotion at once")
	}
	if d := within(p.ID, true); d > time.Second {
		t.Errorf("instance two used the new promotion after %v, want within 1s", d)
	}
	one.Post(t, "/promotion/v1/promotion.update", one.Admin, map[string]any{"id": p.ID, "active": false}).Must(t)
	if fires(one, p.ID) {
		t.Fatal("instance one still uses its deactivated promotion")
	}
	if d := within(p.ID, false); d > time.Second {
		t.Errorf("instance two stopped the promotion after %v, want within 1s", d)
	}
}

// TestCartPromotionsInProcess runs the worked example of docs/api.md
// section 7 through the service, with requests built in Go (PlainPrice,
// MoneyPrice) rather than decoded: the same form rules and results.
func TestCartPromotionsInProcess(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		cat := mapCatalog{"a": {"fridges"}, "b": {"fridges"}, "c": {"combi", "fridges"}}
		svc := promotion.NewService(sqldb.NewPromotionStore(db), cat, nil)
		p := createPromo(t, svc, "3 fridges at 10", true,
			`{"category":{"id":"fridges","quantity":3,"lowestPrice":true}}`,
			`{"category":{"id":"fridges","quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`)
		usd := func(amount int64) promotion.Price {
			return promotion.MoneyPrice(money.Money{Amount: amount, Currency: "USD", Precision: 2})
		}
		two := 2
		for _, tc := range []struct {
			name   string
			prices [3]promotion.Price
			want   string
		}{
			{"v1", [3]promotion.Price{promotion.PlainPrice("577.65"), promotion.PlainPrice("321.47"), promotion.PlainPrice("469")},
				`[{"id":"B","discounts":[{"promotionId":"%[1]s","promotionTitle":"3 fridges at 10","quantity":2,"price":321.47,"discount":311.47}]},` +
					`{"id":"C","discounts":[{"promotionId":"%[1]s","promotionTitle":"3 fridges at 10","quantity":1,"price":469,"discount":459}]}]`},
			{"v2", [3]promotion.Price{usd(57765), usd(32147), usd(46900)},
				`[{"id":"B","discounts":[{"promotionId":"%[1]s","promotionTitle":"3 fridges at 10","quantity":2,"price":{"amount":32147,"currency":"USD","precision":2},"discount":{"amount":31147,"currency":"USD","precision":2}}]},` +
					`{"id":"C","discounts":[{"promotionId":"%[1]s","promotionTitle":"3 fridges at 10","quantity":1,"price":{"amount":46900,"currency":"USD","precision":2},"discount":{"amount":45900,"currency":"USD","precision":2}}]}]`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, err := svc.CartPromotions(context.Background(), promotion.CartInput{CartID: "c", Items: []promotion.CartItem{
					{ID: "A", ProductID: "a", Price: tc.prices[0]},
					{ID: "B", ProductID: "b", Quantity: &two, Price: tc.prices[1]},
					{ID: "C", ProductID: "c", Quantity: &two, Price: tc.prices[2]},
				}})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := show(res.ItemDiscounts), fmt.Sprintf(tc.want, p.ID); got != want {
					t.Errorf("got  %s\nwant %s", got, want)
				}
				if len(res.AlmostFulfilledPromos) != 1 || res.AlmostFulfilledPromos[0].PromotionID != p.ID {
					t.Errorf("almost fulfilled: got %s, want the promotion (C and A left)", show(res.AlmostFulfilledPromos))
				}
			})
		}
		// A price of neither form, and mixed forms, as the transport would
		// have decoded them.
		_, err := svc.CartPromotions(context.Background(), promotion.CartInput{CartID: "c", Items: []promotion.CartItem{
			{ID: "A", ProductID: "a", Price: promotion.PlainPrice(`"1"`)},
			{ID: "B", ProductID: "b", Price: promotion.PlainPrice("1")},
			{ID: "C", ProductID: "c", Price: usd(100)},
			{ID: "D", ProductID: "c"},
		}})
		want := []string{
			"items[0].price: must be a number or a money object {amount, currency, precision}",
			"items[2].price: must have the same form as the other items' prices (plain numbers)",
			"items[3].price: required",
		}
		if got, _ := commerce.ErrorData(err).([]string); !slices.Equal(got, want) {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}
