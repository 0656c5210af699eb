package order_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// exchangeReturn asks (as admin) for the return of n units of the order's
// first item for q units of product p from W1, and receives it.
func (s *shop) exchangeReturn(o *order.Order, n int, p string, q int) *order.Return {
	s.t.Helper()
	r := s.ret(s.Admin, "request", map[string]any{"orderId": o.ID,
		"items":    []map[string]any{{"itemId": o.Items[0].ID, "quantity": n}},
		"exchange": map[string]any{"items": []map[string]any{{"productId": p, "quantity": q, "warehouseId": "W1"}}}})
	return s.ret(s.Admin, "receive", map[string]any{"id": r.ID})
}

// TestExchangeRunsOut: the exchange's reservation lapses and another
// customer buys the last unit; return.refund is then out_of_stock and
// nothing is half done: no refund, no order, the return still RECEIVED.
func TestExchangeRunsOut(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now()}
		s := newShop(t, db, func(o *app.Options) { o.Now = clk.Now })
		o, _ := s.shipped(s.customer("c1"), 2)
		b := s.product("B1", "50.00", 1)
		r := s.exchangeReturn(o, 1, b, 1)
		if q, res := s.stock(b); q != 1 || res != 1 {
			t.Fatalf("stock %d/%d: want 1/1 reserved by the exchange", q, res)
		}
		// Reserved units are not for others while the reservation holds.
		other := s.customer("c9")
		var c struct{ ID string }
		s.Post(t, "/cart/v1/cart.create", other, map[string]any{}).Must(t).Decode(t, "cart", &c)
		add := map[string]any{"cartId": c.ID, "items": []map[string]any{{"productId": b, "quantity": 1, "warehouseId": "W1"}}}
		s.Post(t, "/cart/v1/cart.addToCart", other, add).Expect(t, 400, "not_enough_stock")
		// A day later the reservation has lapsed, as a cart's does.
		clk.Advance(25 * time.Hour)
		s.Post(t, "/cart/v1/cart.addToCart", other, add).Must(t)
		s.Post(t, "/cart/v1/cart.checkout", other, checkoutBody(c.ID)).Must(t)

		res := s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": r.ID}).Expect(t, 400, "out_of_stock")
		var data struct {
			ProductID string `json:"productId"`
		}
		if err := json.Unmarshal(res.Data, &data); err != nil || data.ProductID != b {
			t.Errorf("data %s: want the product", res.Data)
		}
		cur := s.info(o.ID)
		if len(cur.Refunds) != 0 || cur.Payments[0].Refunded.Amount != 0 || len(cur.Pending) != 0 {
			t.Errorf("order %+v: want nothing refunded, nothing pending", cur)
		}
		var got order.Return
		s.Get(t, "/order/v1/return.info?id="+r.ID, s.Admin).Must(t).Decode(t, "return", &got)
		if got.Status != "RECEIVED" || got.Exchange.OrderID != "" || got.Version != r.Version {
			t.Errorf("return %+v: want RECEIVED as it was", got)
		}
		var list []order.Order
		s.Get(t, "/order/v1/order.list?limit=100", s.Admin).Must(t).Decode(t, "data", &list)
		if len(list) != 2 { // the one shipped, the other customer's
			t.Errorf("%d orders, want 2 (no exchange order)", len(list))
		}
		// Rejected: nothing is held any more.
		s.ret(s.Admin, "reject", map[string]any{"id": r.ID, "reason": "no replacement"})
		if q, res := s.stock(b); q != 0 || res != 0 {
			t.Errorf("stock %d/%d: want 0/0", q, res)
		}
	})
}

// TestExchangeCostsMore: an exchange worth more than the units returned
// needs a payment (payment_required, data {amount}); given one, the
// difference is authorised on the new order, nothing is refunded, and
// reject releases an exchange's reservation.
func TestExchangeCostsMore(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o, _ := s.shipped(s.customer("c1"), 2) // 100.00 a unit
		b := s.product("B1", "130.00", 5)
		r := s.exchangeReturn(o, 1, b, 1)
		res := s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": r.ID}).Expect(t, 400, "payment_required")
		var data struct {
			Amount struct{ Amount int64 } `json:"amount"`
		}
		if err := json.Unmarshal(res.Data, &data); err != nil || data.Amount.Amount != 3000 {
			t.Errorf("data %s: want {amount: 30.00}", res.Data)
		}
		done := s.ret(s.Admin, "refund", map[string]any{"id": r.ID, "paymentId": "manual", "paymentData": map[string]any{"method": "card by phone"}})
		if done.Status != "REFUNDED" || done.Refund.Amount.Amount != 0 {
			t.Fatalf("return %+v: want REFUNDED with nothing refunded", done)
		}
		x := s.info(done.Exchange.OrderID)
		if x.PaymentStatus != "AUTHORIZED" || len(x.Payments) != 1 || x.Payments[0].Amount.Amount != 3000 ||
			x.Payments[0].Provider != "manual" || x.Totals.Total.Amount != 13000 || x.ExchangeOf != o.ID {
			t.Errorf("exchange order %+v: want 30.00 authorised of a 130.00 order", x)
		}
		if cur := s.info(o.ID); len(cur.Refunds) != 0 {
			t.Errorf("refunds %v: want none", cur.Refunds)
		}
		// Another exchange, rejected: its reservation goes.
		r2 := s.exchangeReturn(o, 1, b, 2)
		if _, res := s.stock(b); res != 2 {
			t.Fatalf("reserved %d, want 2", res)
		}
		s.ret(s.Admin, "reject", map[string]any{"id": r2.ID})
		if q, res := s.stock(b); q != 4 || res != 0 {
			t.Errorf("stock %d/%d: want 4/0", q, res)
		}
	})
}
