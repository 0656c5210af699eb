package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/testkit/testdb"
)

// TestOrdersTwoServeProcesses: two `serve` processes on one PostgreSQL
// database (docs/api.md sections 13 and 16), every race through both at
// once:
//   - 50 checkouts of carts holding a code with usageLimit 10: exactly 10
//     orders, 40 coupon_usage_limit_reached that leave their carts ACTIVE
//     with their units reserved;
//   - 200 checkouts of other carts: 200 more orders, every number distinct
//     and from 1001 on;
//   - 20 refunds of 20.00 of one order captured for 225.00: 11 succeed,
//     never more than captured;
//   - a cancel and a fulfil of the same order, five times: exactly one
//     wins, and a cancel returns the stock once.
func TestOrdersTwoServeProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	servers, admin, api := startPair(t, url)
	client := &http.Client{Timeout: 60 * time.Second}
	call := func(i int, op, token string, body any) (int, map[string]json.RawMessage) {
		t.Helper()
		status, res, err := post(client, servers[i%2].base+op, token, body)
		if err != nil {
			t.Errorf("%s: %v", op, err) // not Fatal: called from goroutines too
		}
		return status, res
	}
	must := func(i int, op, token string, body any, into string, v any) {
		t.Helper()
		status, res := call(i, op, token, body)
		if status != 200 {
			t.Fatalf("%s: %d %s %s", op, status, res["error"], res["data"])
		}
		if into != "" {
			if err := json.Unmarshal(res[into], v); err != nil {
				t.Fatalf("%s: %s: %v", op, into, err)
			}
		}
	}
	// together runs fn(i) for i in [0, n) at once.
	together := func(n int, fn func(i int)) {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() { <-start; fn(i) })
		}
		close(start)
		wg.Wait()
	}

	var cat, prod struct{ ID string }
	must(0, "/catalog/v1/category.create", admin, map[string]any{"title": "Race", "slug": "race"}, "category", &cat)
	must(1, "/catalog/v1/product.create", admin, map[string]any{"sku": "race-1", "status": "ONLINE", "title": "Fridge",
		"categories": []string{cat.ID}, "stockStatus": 0, "prices": []map[string]any{{"amount": 100, "currency": "USD"}}}, "product", &prod)
	const initial = 1000
	must(0, "/stock/v1/stock.create", admin, map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": initial}, "", nil)
	must(1, "/cart/v1/shipping.create", admin, map[string]any{"title": "Post", "active": true, "taxCode": "default",
		"rates": []map[string]any{{"locations": []map[string]any{{"country": "US"}}, "rates": []map[string]any{{"currency": "USD", "amount": 25}}}}}, "", nil)
	var promo struct{ ID string }
	must(0, "/promotion/v1/promotion.create", admin, map[string]any{"title": "Race", "class": "default", "active": true, "priority": 1,
		"code": "RACE10", "usageLimit": 10,
		"if":   map[string]any{"product": map[string]any{"id": prod.ID, "quantity": 1}},
		"then": map[string]any{"product": map[string]any{"id": prod.ID, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}},
	}, "promotion", &promo)
	addr := map[string]any{"firstName": "Ada", "lastName": "L", "address_1": "1 Main St", "postCode": "10001", "city": "New York",
		"state": "New York", "country": "US", "phone": "555"}
	// newCart returns a cart of units through server i, holding code.
	newCart := func(i, units int, code string) string {
		var c struct{ ID string }
		must(i, "/cart/v1/cart.create", api, map[string]any{}, "cart", &c)
		must(i, "/cart/v1/cart.addToCart", api, map[string]any{"cartId": c.ID,
			"items": []map[string]any{{"productId": prod.ID, "quantity": units, "warehouseId": "W1"}}}, "", nil)
		if code != "" {
			must(i, "/cart/v1/cart.applyCoupon", api, map[string]any{"cartId": c.ID, "code": code}, "", nil)
		}
		return c.ID
	}
	type orderRec struct {
		ID, Number, CartID, Status, FulfillmentStatus string
		Items                                         []struct{ ID string }
		Payments                                      []struct{ Refunded struct{ Amount int64 } }
	}
	checkout := func(i int, cartID string) (int, map[string]json.RawMessage) {
		return call(i, "/cart/v1/cart.checkout", api, map[string]any{"cartId": cartID, "shippingAddress": addr,
			"paymentId": "manual", "paymentData": map[string]any{}})
	}
	stock := func() (quantity, reserved int) {
		var st struct{ Quantity, Reserved int }
		must(0, "/stock/v1/stock.info", admin, map[string]any{"productId": prod.ID, "warehouseId": "W1"}, "stock", &st)
		return st.Quantity, st.Reserved
	}

	// The coupon race.
	coupons := make([]string, 50)
	for i := range coupons {
		coupons[i] = newCart(i, 1, "race10")
	}
	var mu sync.Mutex
	results := map[string]int{}
	together(len(coupons), func(i int) {
		status, res := checkout(i, coupons[i])
		mu.Lock()
		defer mu.Unlock()
		if status == 200 {
			results["ok"]++
		} else {
			results[string(res["error"])]++
		}
	})
	if results["ok"] != 10 || results[`"coupon_usage_limit_reached"`] != 40 {
		t.Errorf("coupon race: got %v, want 10 ok and 40 coupon_usage_limit_reached", results)
	}
	var usage struct{ UsageCount int }
	must(1, "/promotion/v1/promotion.info", admin, map[string]any{"id": promo.ID}, "promotion", &usage)
	if usage.UsageCount != 10 {
		t.Errorf("coupon race: usageCount %d, want 10", usage.UsageCount)
	}
	if q, r := stock(); q != initial-10 || r != 40 {
		t.Errorf("coupon race: stock %d reserved %d, want %d and 40 (the refused carts keep theirs)", q, r, initial-10)
	}
	for i, id := range coupons {
		var c struct{ Status string }
		must(i, "/cart/v1/cart.info", api, map[string]any{"cartId": id}, "cart", &c)
		if c.Status != "ACTIVE" && c.Status != "CHECKED_OUT" {
			t.Errorf("cart %s: %s", id, c.Status)
		}
	}

	// 200 checkouts, distinct numbers.
	carts := make([]string, 200)
	for i := range carts {
		carts[i] = newCart(i, 1, "")
	}
	var failed []string
	together(len(carts), func(i int) {
		if status, res := checkout(i, carts[i]); status != 200 {
			mu.Lock()
			failed = append(failed, string(res["error"]))
			mu.Unlock()
		}
	})
	if len(failed) > 0 {
		t.Errorf("checkouts failed: %v", failed)
	}
	var orders []orderRec
	must(1, "/order/v1/order.list", admin, map[string]any{"limit": 1000}, "data", &orders)
	numbers := map[string]bool{}
	prev := int64(1 << 62)
	for _, o := range orders {
		n, err := strconv.ParseInt(o.Number, 10, 64)
		if err != nil || n < 1001 || numbers[o.Number] || n >= prev {
			t.Errorf("order number %q: want distinct numbers from 1001 on, decreasing in the list", o.Number)
		}
		numbers[o.Number], prev = true, n
	}
	if len(orders) != 210 || len(numbers) != 210 {
		t.Errorf("got %d orders with %d distinct numbers, want 210", len(orders), len(numbers))
	}
	if q, r := stock(); q != initial-210 || r != 40 {
		t.Errorf("after the checkouts: stock %d reserved %d, want %d and 40", q, r, initial-210)
	}

	// 20 refunds at once: 11 of 20.00 fit in 2 x 100.00 + 25.00.
	var refunded orderRec
	_, res := checkout(0, newCart(0, 2, ""))
	if err := json.Unmarshal(res["order"], &refunded); err != nil || refunded.ID == "" {
		t.Fatalf("checkout: %s", res["error"])
	}
	must(1, "/order/v1/order.capture", admin, map[string]any{"id": refunded.ID}, "", nil)
	results = map[string]int{}
	together(20, func(i int) {
		status, res := call(i, "/order/v1/order.refund", admin, map[string]any{"id": refunded.ID, "amount": 20})
		mu.Lock()
		defer mu.Unlock()
		if status == 200 {
			results["ok"]++
		} else {
			results[string(res["error"])]++
		}
	})
	must(0, "/order/v1/order.info", admin, map[string]any{"id": refunded.ID}, "order", &refunded)
	if results["ok"] != 11 || results[`"refund_exceeds_captured"`] != 9 || refunded.Payments[0].Refunded.Amount != 22000 {
		t.Errorf("refunds: got %v, %d refunded; want 11 ok, 9 refund_exceeds_captured, 220.00", results, refunded.Payments[0].Refunded.Amount)
	}

	// A cancel racing a fulfil: exactly one wins; the stock shows which.
	for range 5 {
		var o orderRec
		_, res := checkout(1, newCart(1, 3, ""))
		if err := json.Unmarshal(res["order"], &o); err != nil || o.ID == "" {
			t.Fatalf("checkout: %s", res["error"])
		}
		before, _ := stock()
		var won [2]bool
		var codes [2]string
		together(2, func(i int) {
			status, res := call(i, []string{"/order/v1/order.cancel", "/order/v1/order.fulfill"}[i], admin, map[string]any{"id": o.ID})
			won[i], codes[i] = status == 200, string(res["error"])
		})
		after, _ := stock()
		must(0, "/order/v1/order.info", admin, map[string]any{"id": o.ID}, "order", &o)
		switch {
		case won[0] == won[1]:
			t.Errorf("cancel won %v, fulfil won %v (%v): want exactly one", won[0], won[1], codes)
		case won[0] && (o.Status != "CANCELLED" || after != before+3):
			t.Errorf("cancel won: %s, stock %d -> %d; want CANCELLED and 3 units back", o.Status, before, after)
		case won[1] && (o.FulfillmentStatus != "SHIPPED" || after != before || codes[0] != `"invalid_order_state"`):
			t.Errorf("fulfil won: %s, stock %d -> %d, cancel %s; want SHIPPED, the stock as it was, invalid_order_state", o.FulfillmentStatus, before, after, codes[0])
		}
	}
}
