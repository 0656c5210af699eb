package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce/testkit/testdb"
)

// Two `serve` processes on one PostgreSQL database, 200 shoppers racing
// for the last 7 units through both: exactly 7 get one, and the stock
// shows 7 reserved.
func TestNoOversellTwoServeProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	servers, admin, api := startPair(t, url)
	client := &http.Client{Timeout: 30 * time.Second}
	must := func(c *child, op, token string, body any, into string, v any) {
		t.Helper()
		status, res, err := post(client, c.base+op, token, body)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s %s", op, status, err, res["error"], res["data"])
		}
		if into != "" {
			json.Unmarshal(res[into], v)
		}
	}
	var cat, prod struct{ ID string }
	must(servers[0], "/catalog/v1/category.create", admin, map[string]any{"title": "Race", "slug": "race"}, "category", &cat)
	must(servers[1], "/catalog/v1/product.create", admin, map[string]any{"sku": "race-1", "status": "ONLINE", "title": "Last units",
		"categories": []string{cat.ID}, "stockStatus": 0, "prices": []map[string]any{{"amount": 100, "currency": "USD"}}}, "product", &prod)
	must(servers[0], "/stock/v1/stock.create", admin, map[string]any{"productId": prod.ID, "warehouseId": "w1", "quantity": 7}, "", nil)

	var won, short atomic.Int32
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			c := servers[i%2]
			status, res, err := post(client, c.base+"/cart/v1/cart.create", api, map[string]any{})
			if err != nil || status != 200 {
				t.Errorf("cart.create: %d %v", status, err)
				return
			}
			var cart struct{ ID string }
			json.Unmarshal(res["cart"], &cart)
			status, res, err = post(client, c.base+"/cart/v1/cart.addToCart", api, map[string]any{"cartId": cart.ID,
				"items": []map[string]any{{"productId": prod.ID, "quantity": 1, "warehouseId": "w1"}}})
			switch {
			case err != nil:
				t.Errorf("addToCart: %v", err)
			case status == 200:
				won.Add(1)
			case string(res["error"]) == `"not_enough_stock"`:
				short.Add(1)
			default:
				t.Errorf("addToCart: %d %s %s", status, res["error"], res["data"])
			}
		})
	}
	wg.Wait()
	if won.Load() != 7 || short.Load() != 193 {
		t.Errorf("got %d carts with the product and %d not_enough_stock, want 7 and 193", won.Load(), short.Load())
	}
	var st struct{ Quantity, Reserved, Available int }
	must(servers[1], "/stock/v1/stock.info", admin, map[string]any{"productId": prod.ID, "warehouseId": "w1"}, "stock", &st)
	if st.Quantity != 7 || st.Reserved != 7 || st.Available != 0 {
		t.Errorf("stock after the race: %+v, want quantity 7, reserved 7, available 0", st)
	}
}
