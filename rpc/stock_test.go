package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// stockReserve reserves q units of the product in w1 for a cart as the
// cart will: through the app's stock service, in a store transaction.
func stockReserve(t *testing.T, srv *apitest.Server, product, cart string, q int64) {
	t.Helper()
	ctx := context.Background()
	err := sqldb.NewStockStore(srv.DB).Update(ctx, func(tx stock.Tx) error {
		_, err := srv.App.Stock.Reserve(ctx, tx, stock.Reservation{CartID: cart, ItemID: "i1", ProductID: product, WarehouseID: "w1", Quantity: q})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stockProducts creates a category and one product per sku in it (the
// first ONLINE, the others DRAFT) and returns their ids.
func stockProducts(t *testing.T, srv *apitest.Server, skus ...string) []string {
	t.Helper()
	var cat struct{ ID string }
	srv.Post(t, "/catalog/v1/category.create", srv.Admin, map[string]any{"title": "Stock", "slug": "stock"}).Must(t).Decode(t, "category", &cat)
	ids := make([]string, len(skus))
	for i, sku := range skus {
		status := "DRAFT"
		if i == 0 {
			status = "ONLINE"
		}
		var p struct{ ID string }
		srv.Post(t, "/catalog/v1/product.create", srv.Admin, map[string]any{"sku": sku, "status": status, "title": "Product " + sku,
			"categories": []string{cat.ID}, "stockStatus": 0}).Must(t).Decode(t, "product", &p)
		ids[i] = p.ID
	}
	return ids
}

// stockJSON replaces the product placeholders P1 and P3 of want by the
// products' ids.
func stockJSON(want string, p1, p3 string) string {
	return strings.NewReplacer(`"P1"`, `"`+p1+`"`, `"P3"`, `"`+p3+`"`).Replace(want)
}

// wantJSON fails unless raw holds the same JSON value as want.
func wantJSON(t *testing.T, what string, raw []byte, want string) {
	t.Helper()
	var got, exp any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s: %v: %s", what, err, raw)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("%s: got %s, want %s", what, raw, want)
	}
}

func TestStockOperations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		token := map[string]string{"admin": srv.Admin, "api": srv.API, "none": ""}
		ids := stockProducts(t, srv, "S1", "S3")
		p1, p3 := ids[0], ids[1]
		fix := func(v any) any {
			switch v := v.(type) {
			case string:
				return strings.NewReplacer("=p1", "="+p1, "=p3", "="+p3).Replace(v)
			case map[string]any:
				out := map[string]any{}
				for k, x := range v {
					switch x {
					case "p1":
						x = p1
					case "p3":
						x = p3
					}
					out[k] = x
				}
				return out
			}
			return v
		}

		res := srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 10}).Must(t)
		wantJSON(t, "created", res.Body["stock"], stockJSON(`{"productId":"P1","warehouseId":"w1","quantity":10,"reserved":0,"available":10}`, p1, p3))
		res = srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w2", "quantity": 0}).Must(t)
		wantJSON(t, "created empty", res.Body["stock"], stockJSON(`{"productId":"P1","warehouseId":"w2","quantity":0,"reserved":0,"available":0}`, p1, p3))
		stockReserve(t, srv, p1, "c1", 4)

		ok := []struct {
			name, method, path, token string
			body                      any
			want                      string
		}{
			{"info by GET with the api scope", "GET", "/stock/v1/stock.info?productId=p1&warehouseId=w1", "api", nil,
				`{"productId":"p1","warehouseId":"w1","quantity":10,"reserved":4,"available":6}`},
			{"info by POST", "POST", "/stock/v1/stock.info", "admin", map[string]any{"productId": "p1", "warehouseId": "w1"},
				`{"productId":"p1","warehouseId":"w1","quantity":10,"reserved":4,"available":6}`},
			{"info under /services", "GET", "/services/stock/v1/stock.info?productId=p1&warehouseId=w2", "api", nil,
				`{"productId":"p1","warehouseId":"w2","quantity":0,"reserved":0,"available":0}`},
			{"update", "POST", "/stock/v1/stock.update", "admin", map[string]any{"productId": "p1", "warehouseId": "w1", "quantity": 20},
				`{"productId":"p1","warehouseId":"w1","quantity":20,"reserved":4,"available":16}`},
			{"update down to the reserved quantity", "POST", "/stock/v1/stock.update?productId=p1&warehouseId=w1&quantity=4", "admin", nil,
				`{"productId":"p1","warehouseId":"w1","quantity":4,"reserved":4,"available":0}`},
		}
		for _, tc := range ok {
			t.Run(tc.name, func(t *testing.T) {
				res := srv.Do(t, tc.method, fix(tc.path).(string), token[tc.token], fix(tc.body)).Must(t)
				wantJSON(t, "stock", res.Body["stock"], stockJSON(strings.ReplaceAll(tc.want, `"p1"`, `"P1"`), p1, p3))
			})
		}

		p1w1 := map[string]any{"productId": "p1", "warehouseId": "w1"}
		errs := []struct {
			name, method, path, token string
			body                      any
			status                    int
			code                      string
			data                      string // "" when not checked
		}{
			{"second create of a pair", "POST", "/stock/v1/stock.create", "admin", map[string]any{"productId": "p1", "warehouseId": "w1", "quantity": 5},
				409, "duplicate_key", `{"index":"product_warehouse","productId":"p1","warehouseId":"w1"}`},
			{"create of an unknown product", "POST", "/stock/v1/stock.create", "admin", map[string]any{"productId": "nope", "warehouseId": "w1", "quantity": 5},
				404, "product_not_found", `"nope"`},
			{"create without quantity", "POST", "/stock/v1/stock.create", "admin", p1w1,
				400, "validation_error", `["quantity: required"]`},
			{"create with a negative quantity", "POST", "/stock/v1/stock.create", "admin", map[string]any{"productId": "p3", "warehouseId": "w1", "quantity": -1},
				400, "validation_error", `["quantity: must be a non-negative integer"]`},
			{"create with a fractional quantity", "POST", "/stock/v1/stock.create", "admin", map[string]any{"productId": "p3", "warehouseId": "w1", "quantity": 1.5},
				400, "validation_error", `["quantity: must be an integer"]`},
			{"create with a string quantity", "POST", "/stock/v1/stock.create", "admin", map[string]any{"productId": "p3", "warehouseId": "w1", "quantity": "5"},
				400, "validation_error", `["quantity: must be an integer"]`},
			{"create without ids", "POST", "/stock/v1/stock.create", "admin", map[string]any{"quantity": 1},
				400, "validation_error", `["productId: required","warehouseId: required"]`},
			{"create with an unknown field", "POST", "/stock/v1/stock.create", "admin", map[string]any{"productId": "p3", "warehouseId": "w1", "quantity": 1, "reserved": 0},
				400, "validation_error", `["reserved: unknown field"]`},
			{"create with the api scope", "POST", "/stock/v1/stock.create", "api", map[string]any{"productId": "p3", "warehouseId": "w1", "quantity": 1},
				403, "forbidden", ""},
			{"create by GET", "GET", "/stock/v1/stock.create?productId=p3&warehouseId=w1&quantity=1", "admin", nil,
				405, "method_not_allowed", ""},
			{"update of an unknown pair", "POST", "/stock/v1/stock.update", "admin", map[string]any{"productId": "p1", "warehouseId": "w9", "quantity": 1},
				404, "stock_not_found", `{"productId":"p1","warehouseId":"w9"}`},
			{"update below the reserved quantity", "POST", "/stock/v1/stock.update", "admin", map[string]any{"productId": "p1", "warehouseId": "w1", "quantity": 3},
				400, "validation_error", `["quantity: must not be below the reserved quantity 4"]`},
			{"update with the api scope", "POST", "/stock/v1/stock.update", "api", map[string]any{"productId": "p1", "warehouseId": "w1", "quantity": 30},
				403, "forbidden", ""},
			{"info of an unknown pair", "GET", "/stock/v1/stock.info?productId=p9&warehouseId=w1", "api", nil,
				404, "stock_not_found", `{"productId":"p9","warehouseId":"w1"}`},
			{"info without warehouse", "GET", "/stock/v1/stock.info?productId=p1", "api", nil,
				400, "validation_error", `["warehouseId: required"]`},
			{"info without a token", "GET", "/stock/v1/stock.info?productId=p1&warehouseId=w1", "none", nil,
				401, "invalid_token", ""},
			{"info under another service", "GET", "/catalog/v1/stock.info?productId=p1&warehouseId=w1", "api", nil,
				404, "operation_not_found", ""},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				res := srv.Do(t, tc.method, fix(tc.path).(string), token[tc.token], fix(tc.body)).Expect(t, tc.status, tc.code)
				if tc.data != "" {
					wantJSON(t, "data", res.Data, stockJSON(strings.NewReplacer(`"p1"`, `"P1"`, `"p3"`, `"P3"`).Replace(tc.data), p1, p3))
				}
			})
		}

		// No failed call changed anything.
		res = srv.Get(t, "/stock/v1/stock.info?productId="+p1+"&warehouseId=w1", srv.API).Must(t)
		wantJSON(t, "after the errors", res.Body["stock"], stockJSON(`{"productId":"P1","warehouseId":"w1","quantity":4,"reserved":4,"available":0}`, p1, p3))
		srv.Get(t, "/stock/v1/stock.info?productId="+p3+"&warehouseId=w1", srv.API).Expect(t, 404, "stock_not_found")
		srv.Get(t, "/stock/v1/stock.info?productId=nope&warehouseId=w1", srv.API).Expect(t, 404, "stock_not_found")

		// A DRAFT product may have stock.
		res = srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p3, "warehouseId": "w1", "quantity": 2}).Must(t)
		wantJSON(t, "created for a DRAFT product", res.Body["stock"], stockJSON(`{"productId":"P3","warehouseId":"w1","quantity":2,"reserved":0,"available":2}`, p1, p3))
	})
}

// TestStockSweepInBackground checks that the running service releases
// expired reservations by itself, on its clock.
func TestStockSweepInBackground(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		var now atomic.Int64
		now.Store(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixNano())
		srv := apitest.New(t, db, func(o *app.Options) {
			o.Now = func() time.Time { return time.Unix(0, now.Load()) }
			o.ReservationTTL = time.Hour
			o.StockSweep = 10 * time.Millisecond
		})
		p1 := stockProducts(t, srv, "S1")[0]
		srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 10}).Must(t)
		stockReserve(t, srv, p1, "c1", 4)

		reserved := func() int64 {
			var s struct{ Reserved int64 }
			srv.Get(t, "/stock/v1/stock.info?productId="+p1+"&warehouseId=w1", srv.API).Must(t).Decode(t, "stock", &s)
			return s.Reserved
		}
		time.Sleep(50 * time.Millisecond) // several sweeps, none due
		if got := reserved(); got != 4 {
			t.Fatalf("before expiry: got reserved %d, want 4", got)
		}
		now.Add(int64(time.Hour))
		deadline := time.Now().Add(10 * time.Second)
		for reserved() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("expired reservation still held after 10s of sweeps")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// TestStockSweepFollowsTTL checks that, without a sweep interval of its
// own, the service sweeps as often as its reservation TTL needs (a quarter
// of it): with a TTL of 400 ms, units come back well within seconds, where
// a fixed 30 s interval would hold them.
func TestStockSweepFollowsTTL(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db, func(o *app.Options) { o.ReservationTTL = 400 * time.Millisecond })
		p1 := stockProducts(t, srv, "S1")[0]
		srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 10}).Must(t)
		stockReserve(t, srv, p1, "c1", 4)
		deadline := time.Now().Add(5 * time.Second)
		for {
			var s struct{ Reserved int64 }
			srv.Get(t, "/stock/v1/stock.info?productId="+p1+"&warehouseId=w1", srv.API).Must(t).Decode(t, "stock", &s)
			if s.Reserved == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("reserved %d: a reservation of 400 ms still held after 5 s", s.Reserved)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestStockEvents checks that stock.create and stock.update write their
// STOCK events, and that failed calls write none.
func TestStockEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		p1 := stockProducts(t, srv, "S1")[0]
		srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 10}).Must(t)
		stockReserve(t, srv, p1, "c1", 3)
		srv.Post(t, "/stock/v1/stock.update", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 7}).Must(t)
		srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 1}).Expect(t, 409, "duplicate_key")
		srv.Post(t, "/stock/v1/stock.create", srv.Admin, map[string]any{"productId": "nope", "warehouseId": "w1", "quantity": 1}).Expect(t, 404, "product_not_found")
		srv.Post(t, "/stock/v1/stock.update", srv.Admin, map[string]any{"productId": p1, "warehouseId": "w1", "quantity": 2}).Expect(t, 400, "validation_error")

		var evs []struct {
			Channel string          `json:"channel"`
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		srv.Get(t, "/event/v1/event.list?channel=STOCK", srv.Admin).Must(t).Decode(t, "data", &evs)
		if len(evs) != 2 || evs[0].Type != "CREATE" || evs[1].Type != "UPDATE" || evs[0].Channel != "STOCK" {
			t.Fatalf("got events %+v, want STOCK CREATE then UPDATE only", evs)
		}
		st := func(q, r int) string {
			return fmt.Sprintf(`{"productId":%q,"warehouseId":"w1","quantity":%d,"reserved":%d,"available":%d}`, p1, q, r, q-r)
		}
		in := func(q int) string { return fmt.Sprintf(`{"productId":%q,"warehouseId":"w1","quantity":%d}`, p1, q) }
		wantJSON(t, "CREATE payload", evs[0].Payload, `{"new":`+st(10, 0)+`,"data":`+in(10)+`}`)
		wantJSON(t, "UPDATE payload", evs[1].Payload, `{"data":`+in(7)+`,"old":`+st(10, 3)+`,"new":`+st(7, 3)+`}`)
	})
}
