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

// TestReturnErrors: every refusal of the return operations, with its code,
// status and data, and nothing changed.
func TestReturnErrors(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now()}
		s := newShop(t, db, func(o *app.Options) { o.Now = clk.Now })
		cust := s.customer("c1")
		other := s.customer("c2")
		o, _ := s.shipped(cust, 3)
		item := o.Items[0].ID
		req := func(q int) map[string]any {
			return map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": item, "quantity": q}}}
		}
		// Who may ask: the order's customer and admin; others do not see
		// the order; an api token without customerId neither.
		s.Post(t, "/order/v1/return.request", other, req(1)).Expect(t, 404, "order_not_found")
		s.Post(t, "/order/v1/return.request", s.API, req(1)).Expect(t, 404, "order_not_found")
		s.Post(t, "/order/v1/return.request", "", req(1)).Expect(t, 401, "invalid_token")
		// Bad input.
		r := s.Post(t, "/order/v1/return.request", cust, map[string]any{"orderId": o.ID,
			"items": []map[string]any{{"itemId": item, "quantity": 1, "reason": "BROKEN"}}})
		r.Expect(t, 400, "validation_error")
		s.Post(t, "/order/v1/return.request", cust, map[string]any{"orderId": o.ID,
			"items": []map[string]any{{"itemId": "nope", "quantity": 1}}}).Expect(t, 400, "validation_error")
		// More than shipped.
		r = s.Post(t, "/order/v1/return.request", cust, req(4)).Expect(t, 400, "return_exceeds_quantity")
		var data struct {
			ItemID    string `json:"itemId"`
			Remaining int64  `json:"remaining"`
		}
		if err := json.Unmarshal(r.Data, &data); err != nil || data.ItemID != item || data.Remaining != 3 {
			t.Errorf("data %s: want {itemId, remaining 3}", r.Data)
		}
		// Nothing shipped.
		unshipped, _ := s.order(cust, 1)
		s.Post(t, "/order/v1/return.request", cust, map[string]any{"orderId": unshipped.ID,
			"items": []map[string]any{{"itemId": unshipped.Items[0].ID, "quantity": 1}}}).Expect(t, 400, "invalid_order_state")
		// The window: 720h after the delivery, the customer is refused,
		// admin is not.
		clk.Advance(order.DefaultReturnWindow + time.Hour)
		r = s.Post(t, "/order/v1/return.request", cust, req(1)).Expect(t, 400, "return_window_expired")
		var win struct {
			DeliveredAt time.Time `json:"deliveredAt"`
		}
		if err := json.Unmarshal(r.Data, &win); err != nil || !win.DeliveredAt.Equal(*s.info(o.ID).Fulfillments[0].DeliveredAt) {
			t.Errorf("data %s: want {deliveredAt} the delivery", r.Data)
		}
		if cur := s.info(o.ID); len(cur.Returns) != 0 {
			t.Fatalf("returns %v after refusals: want none", cur.Returns)
		}
		ret := s.ret(s.Admin, "request", req(2))
		// Receive more than asked; unknown return; admin only.
		s.Post(t, "/order/v1/return.receive", s.Admin, map[string]any{"id": ret.ID,
			"items": []map[string]any{{"itemId": item, "quantity": 3}}}).Expect(t, 400, "return_exceeds_quantity")
		s.Post(t, "/order/v1/return.receive", cust, map[string]any{"id": ret.ID}).Expect(t, 403, "forbidden")
		s.Post(t, "/order/v1/return.refund", cust, map[string]any{"id": ret.ID}).Expect(t, 403, "forbidden")
		s.Post(t, "/order/v1/return.reject", cust, map[string]any{"id": ret.ID}).Expect(t, 403, "forbidden")
		s.Post(t, "/order/v1/return.receive", s.Admin, map[string]any{"id": "nope"}).Expect(t, 404, "return_not_found")
		s.Get(t, "/order/v1/return.info?id=nope", s.Admin).Expect(t, 404, "return_not_found")
		// Refund before receipt: invalid_return_state {status}.
		r = s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": ret.ID}).Expect(t, 400, "invalid_return_state")
		if string(r.Data) != `{"status":"REQUESTED"}` {
			t.Errorf("data %s: want {status: REQUESTED}", r.Data)
		}
		// Others cannot cancel or see it; its customer can.
		s.Post(t, "/order/v1/return.cancel", other, map[string]any{"id": ret.ID}).Expect(t, 404, "return_not_found")
		s.Get(t, "/order/v1/return.list", s.API).Expect(t, 403, "forbidden")
		var list []order.Return
		s.Get(t, "/order/v1/return.list?customerId=c2", cust).Must(t).Decode(t, "data", &list)
		if len(list) != 0 {
			t.Errorf("a customer's filter on another customer: %d returns, want none", len(list))
		}
		s.Get(t, "/order/v1/return.list?orderId="+o.ID, cust).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != ret.ID {
			t.Errorf("the customer's returns %v: want the one", list)
		}
		c := s.ret(cust, "cancel", map[string]any{"id": ret.ID})
		if c.Status != "CANCELLED" {
			t.Fatalf("status %s, want CANCELLED", c.Status)
		}
		s.Post(t, "/order/v1/return.cancel", cust, map[string]any{"id": ret.ID}).Expect(t, 400, "invalid_return_state")
		// Cancelled units can be returned again.
		again := s.ret(s.Admin, "request", req(3))
		again = s.ret(s.Admin, "receive", map[string]any{"id": again.ID, "items": []map[string]any{{"itemId": item, "quantity": 1, "restock": false}}})
		if again.Items[0].Restock || again.Items[0].ReceivedQuantity != 1 {
			t.Errorf("received %+v: want 1 unit, not restocked", again.Items[0])
		}
		// Refund more than captured: refund_exceeds_captured.
		s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": again.ID, "amount": 1000}).
			Expect(t, 400, "refund_exceeds_captured")
		// Shipping refunded by one return only.
		done := s.ret(s.Admin, "refund", map[string]any{"id": again.ID, "shipping": true})
		if done.Refund.Amount.Amount != 12500 || !done.Refund.Shipping {
			t.Errorf("refund %+v: want 100.00 + 25.00 shipping", done.Refund)
		}
		s.Post(t, "/order/v1/return.reject", s.Admin, map[string]any{"id": again.ID}).Expect(t, 400, "invalid_return_state")
	})
}
