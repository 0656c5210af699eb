package order_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestJourney: checkout places the order (snapshot, number 1001, the
// cart's orderId), then capture, two partial fulfilments and their
// deliveries make it COMPLETED, with one ORDERS event per change.
func TestJourney(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("A1", "100.00", 10)
		cartID := s.cart(s.API, p, 3)
		body := checkoutBody(cartID)
		body["email"] = "ada@example.com"
		r := s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t)
		var o order.Order
		r.Decode(t, "order", &o)
		var c struct {
			Status  string `json:"status"`
			OrderID string `json:"orderId"`
		}
		r.Decode(t, "cart", &c)
		if c.Status != "CHECKED_OUT" || c.OrderID != o.ID || o.ID == "" {
			t.Fatalf("cart %+v, order id %q: want CHECKED_OUT with the order's id", c, o.ID)
		}
		if o.Number != "1001" || o.CartID != cartID || o.CustomerID != "ANON" || o.Email != "ada@example.com" ||
			o.Status != "PLACED" || o.PaymentStatus != "AUTHORIZED" || o.FulfillmentStatus != "NOT_SHIPPED" || o.Version != 1 {
			t.Fatalf("order %+v: want number 1001, PLACED/AUTHORIZED/NOT_SHIPPED, version 1", o)
		}
		if len(o.Items) != 1 || o.Items[0].SKU != "A1" || o.Items[0].Quantity != 3 || o.Items[0].WarehouseID != "W1" ||
			o.Items[0].UnitPrice.Amount != 10000 || o.Items[0].Total.Amount != 30000 || o.Items[0].Tax.Amount == 0 {
			t.Fatalf("items %+v: want 3 x A1 at 100.00 from W1, total 300.00 with tax", o.Items[0])
		}
		if o.Totals.Items.Amount != 30000 || o.Totals.Shipping.Amount != 2500 || o.Totals.Total.Amount != 32500 ||
			o.Totals.Discount.Amount != 0 || o.Totals.Tax.Amount <= o.Items[0].Tax.Amount {
			t.Errorf("totals %+v: want items 300.00, shipping 25.00, total 325.00", o.Totals)
		}
		if len(o.Payments) != 1 || o.Payments[0].Provider != "manual" || o.Payments[0].Status != "AUTHORIZED" ||
			o.Payments[0].Amount.Amount != 32500 || o.Payments[0].Reference == "" {
			t.Errorf("payments %+v: want one manual authorisation of 325.00", o.Payments)
		}
		if o.ShippingMethod == nil || o.ShippingMethod.Rate.Amount != 2500 || len(o.ShippingAddress) == 0 || len(o.BillingAddress) == 0 {
			t.Errorf("shipping %+v / addresses %s %s: want the method and both addresses", o.ShippingMethod, o.ShippingAddress, o.BillingAddress)
		}
		// The raw answer names the fields exactly.
		var raw map[string]json.RawMessage
		r.Decode(t, "order", &raw)
		for _, f := range []string{"id", "number", "cartId", "customerId", "email", "status", "paymentStatus", "fulfillmentStatus",
			"currency", "country", "channel", "items", "shippingAddress", "billingAddress", "shippingMethod", "coupons", "totals",
			"payments", "fulfillments", "refunds", "createdAt", "updatedAt", "version"} {
			if _, ok := raw[f]; !ok {
				t.Errorf("order has no %q: %s", f, r.Body["order"])
			}
		}
		if q, res := s.stock(p); q != 7 || res != 0 {
			t.Errorf("stock %d (reserved %d), want 7 after checkout", q, res)
		}

		o2 := s.op("capture", map[string]any{"id": o.ID})
		if o2.PaymentStatus != "PAID" || o2.Payments[0].Status != "CAPTURED" || o2.Payments[0].Captured.Amount != 32500 || o2.Version != 2 {
			t.Fatalf("captured: %+v %+v", o2, o2.Payments[0])
		}
		item := o.Items[0].ID
		o3 := s.op("fulfill", map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": item, "quantity": 2}}, "carrier": "UPS", "trackingNumber": "1Z"})
		if o3.FulfillmentStatus != "PARTIALLY_SHIPPED" || o3.Items[0].ShippedQuantity != 2 || len(o3.Fulfillments) != 1 ||
			o3.Fulfillments[0].Carrier != "UPS" || o3.Fulfillments[0].Status != "SHIPPED" {
			t.Fatalf("first fulfilment: %+v", o3)
		}
		o4 := s.op("fulfill", map[string]any{"id": o.ID}) // the rest
		if o4.FulfillmentStatus != "SHIPPED" || o4.Items[0].ShippedQuantity != 3 || len(o4.Fulfillments) != 2 || o4.Fulfillments[1].Items[0].Quantity != 1 {
			t.Fatalf("second fulfilment: %+v", o4)
		}
		s.Post(t, "/order/v1/order.fulfill", s.Admin, map[string]any{"id": o.ID}).Expect(t, 400, "invalid_order_state")
		o5 := s.op("deliver", map[string]any{"id": o.ID, "fulfillmentId": o4.Fulfillments[0].ID})
		if o5.FulfillmentStatus != "SHIPPED" || o5.Status != "PLACED" || o5.Fulfillments[0].DeliveredAt == nil {
			t.Fatalf("first delivery: %+v", o5)
		}
		s.Post(t, "/order/v1/order.deliver", s.Admin, map[string]any{"id": o.ID, "fulfillmentId": o4.Fulfillments[0].ID}).
			Expect(t, 400, "invalid_order_state")
		o6 := s.op("deliver", map[string]any{"id": o.ID, "fulfillmentId": o4.Fulfillments[1].ID})
		if o6.FulfillmentStatus != "DELIVERED" || o6.Status != "COMPLETED" || o6.Version != 6 {
			t.Fatalf("second delivery: %+v", o6)
		}
		var types []string
		for _, e := range s.events() {
			types = append(types, e.Type)
			var pl struct{ Order order.Order }
			if err := json.Unmarshal(e.Payload, &pl); err != nil || pl.Order.ID != o.ID {
				t.Errorf("event %s payload %s: want {order}", e.Type, e.Payload)
			}
		}
		want := []string{"CREATE", "CAPTURE", "FULFILL", "FULFILL", "DELIVER", "DELIVER"}
		if len(types) != len(want) {
			t.Fatalf("ORDERS events %v, want %v", types, want)
		}
		for i := range want {
			if types[i] != want[i] {
				t.Fatalf("ORDERS events %v, want %v", types, want)
			}
		}
		// A later refund leaves it COMPLETED.
		o7 := s.op("refund", map[string]any{"id": o.ID, "amount": 10})
		if o7.Status != "COMPLETED" || o7.PaymentStatus != "PARTIALLY_REFUNDED" {
			t.Errorf("refund after completion: %s / %s, want COMPLETED / PARTIALLY_REFUNDED", o7.Status, o7.PaymentStatus)
		}
	})
}

// TestRefund: partial refund with restock, the limit (with {available}),
// and a full refund.
func TestRefund(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o, p := s.order(s.API, 2) // 200.00 + 25.00 shipping
		s.Post(t, "/order/v1/order.refund", s.Admin, map[string]any{"id": o.ID, "amount": 10}).Expect(t, 400, "invalid_order_state")
		s.op("capture", map[string]any{"id": o.ID})
		item := o.Items[0].ID
		r := s.op("refund", map[string]any{"id": o.ID, "amount": 100.5, "restock": true, "reason": "broken",
			"items": []map[string]any{{"itemId": item, "quantity": 1}}})
		if r.PaymentStatus != "PARTIALLY_REFUNDED" || r.Payments[0].Refunded.Amount != 10050 || len(r.Refunds) != 1 ||
			r.Refunds[0].Amount.Amount != 10050 || r.Refunds[0].Reason != "broken" || r.Items[0].RefundedQuantity != 1 {
			t.Fatalf("partial refund: %+v %+v", r, r.Refunds)
		}
		if q, _ := s.stock(p); q != 9 {
			t.Errorf("stock %d after a restocked refund of 1, want 9", q)
		}
		e := s.Post(t, "/order/v1/order.refund", s.Admin, map[string]any{"id": o.ID, "amount": 124.51}).Expect(t, 400, "refund_exceeds_captured")
		var data struct{ Available map[string]any }
		if err := json.Unmarshal(e.Data, &data); err != nil || data.Available["amount"] != float64(12450) || data.Available["currency"] != "USD" {
			t.Errorf("refund_exceeds_captured data %s, want {available: 124.50 USD}", e.Data)
		}
		for _, bad := range []map[string]any{{"id": o.ID, "amount": 0}, {"id": o.ID, "amount": -1}, {"id": o.ID},
			{"id": o.ID, "amount": 1.001}, {"id": o.ID, "amount": 1, "items": []map[string]any{{"itemId": "nope", "quantity": 1}}},
			{"id": o.ID, "amount": 1, "items": []map[string]any{{"itemId": item, "quantity": 2}}}} {
			s.Post(t, "/order/v1/order.refund", s.Admin, bad).Expect(t, 400, "validation_error")
		}
		full := s.op("refund", map[string]any{"id": o.ID, "amount": 124.50})
		if full.PaymentStatus != "REFUNDED" || full.Payments[0].Status != "REFUNDED" || full.Payments[0].Refunded.Amount != 22500 {
			t.Fatalf("full refund: %+v", full.Payments[0])
		}
		e = s.Post(t, "/order/v1/order.refund", s.Admin, map[string]any{"id": o.ID, "amount": 0.01}).Expect(t, 400, "refund_exceeds_captured")
		if err := json.Unmarshal(e.Data, &data); err != nil || data.Available["amount"] != float64(0) {
			t.Errorf("nothing left: data %s, want available 0", e.Data)
		}
		if q, _ := s.stock(p); q != 9 {
			t.Errorf("stock %d after an unrestocked refund, want 9", q)
		}
		s.wantEvents(o.ID, "CREATE", "CAPTURE", "REFUND", "REFUND")
	})
}

// wantEvents checks the types of the ORDERS events of the order, in
// order, each with the payload {order} at the version it made.
func (s *shop) wantEvents(id string, types ...string) {
	s.t.Helper()
	var got []string
	for _, e := range s.events() {
		var pl map[string]json.RawMessage
		if err := json.Unmarshal(e.Payload, &pl); err != nil || len(pl) != 1 {
			s.t.Errorf("event %s payload %s: want {order}", e.Type, e.Payload)
			continue
		}
		var o order.Order
		if err := json.Unmarshal(pl["order"], &o); err != nil {
			s.t.Errorf("event %s payload %s: want {order}", e.Type, e.Payload)
			continue
		}
		if o.ID != id {
			continue
		}
		got = append(got, e.Type)
		if o.Version != int64(len(got)) {
			s.t.Errorf("event %s (#%d) carries version %d of the order", e.Type, len(got), o.Version)
		}
	}
	if !slices.Equal(got, types) {
		s.t.Errorf("ORDERS events of %s: %v, want %v", id, got, types)
	}
}

// TestCancel: before shipping, units go back to stock once, the
// authorisation is voided; after shipping, cancel is refused.
func TestCancel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o, p := s.order(s.API, 4)
		if q, _ := s.stock(p); q != 6 {
			t.Fatalf("stock %d after checkout, want 6", q)
		}
		c := s.op("cancel", map[string]any{"id": o.ID, "reason": "changed my mind"})
		if c.Status != "CANCELLED" || c.PaymentStatus != "VOIDED" || c.Payments[0].Status != "VOIDED" {
			t.Fatalf("cancelled: %+v", c)
		}
		if q, res := s.stock(p); q != 10 || res != 0 {
			t.Errorf("stock %d (reserved %d) after cancel, want 10", q, res)
		}
		for _, op := range []string{"cancel", "fulfill", "capture"} {
			s.Post(t, "/order/v1/order."+op, s.Admin, map[string]any{"id": o.ID}).Expect(t, 400, "invalid_order_state")
		}
		if q, _ := s.stock(p); q != 10 {
			t.Errorf("stock %d after a second cancel, want 10", q)
		}
		s.wantEvents(o.ID, "CREATE", "CANCEL")
		// A captured order is refunded in full.
		o2, _ := s.order(s.API, 1)
		s.op("capture", map[string]any{"id": o2.ID})
		c2 := s.op("cancel", map[string]any{"id": o2.ID})
		if c2.PaymentStatus != "REFUNDED" || c2.Payments[0].Refunded.Amount != c2.Payments[0].Captured.Amount {
			t.Errorf("cancel of a captured order: %+v", c2.Payments[0])
		}
		s.wantEvents(o2.ID, "CREATE", "CAPTURE", "CANCEL")
		// Shipped: refused.
		o3, _ := s.order(s.API, 2)
		s.op("fulfill", map[string]any{"id": o3.ID, "items": []map[string]any{{"itemId": o3.Items[0].ID, "quantity": 1}}})
		e := s.Post(t, "/order/v1/order.cancel", s.Admin, map[string]any{"id": o3.ID}).Expect(t, 400, "invalid_order_state")
		var data order.StateData
		if err := json.Unmarshal(e.Data, &data); err != nil || data.Status != "PLACED" || data.FulfillmentStatus != "PARTIALLY_SHIPPED" ||
			data.PaymentStatus != "AUTHORIZED" {
			t.Errorf("invalid_order_state data %s", e.Data)
		}
	})
}

// TestErrors: unknown ids and items, quantities, statuses.
func TestErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o, _ := s.order(s.API, 2)
		item := o.Items[0].ID
		e := s.Get(t, "/order/v1/order.info?id=nope", s.Admin).Expect(t, 404, "order_not_found")
		if string(e.Data) != `"nope"` {
			t.Errorf("order_not_found data %s, want the id", e.Data)
		}
		for op, body := range map[string]map[string]any{
			"info": {"id": "nope"}, "capture": {"id": "nope"}, "fulfill": {"id": "nope"}, "cancel": {"id": "nope"},
			"deliver": {"id": "nope", "fulfillmentId": "f"}, "refund": {"id": "nope", "amount": 1},
		} {
			if e := s.Post(t, "/order/v1/order."+op, s.Admin, body).Expect(t, 404, "order_not_found"); string(e.Data) != `"nope"` {
				t.Errorf("order.%s of an unknown id: data %s, want the id", op, e.Data)
			}
		}
		e = s.Post(t, "/order/v1/order.fulfill", s.Admin, map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": item, "quantity": 3}}}).
			Expect(t, 400, "fulfillment_exceeds_quantity")
		if string(e.Data) != `{"itemId":"`+item+`","remaining":2}` {
			t.Errorf("fulfillment_exceeds_quantity data %s", e.Data)
		}
		s.Post(t, "/order/v1/order.fulfill", s.Admin, map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": "x", "quantity": 1}}}).
			Expect(t, 400, "validation_error")
		s.Post(t, "/order/v1/order.fulfill", s.Admin, map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": item, "quantity": 0}}}).
			Expect(t, 400, "validation_error")
		s.op("fulfill", map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": item, "quantity": 2}}})
		e = s.Post(t, "/order/v1/order.fulfill", s.Admin, map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": item, "quantity": 1}}}).
			Expect(t, 400, "fulfillment_exceeds_quantity")
		if string(e.Data) != `{"itemId":"`+item+`","remaining":0}` {
			t.Errorf("nothing left: data %s", e.Data)
		}
		e = s.Post(t, "/order/v1/order.deliver", s.Admin, map[string]any{"id": o.ID, "fulfillmentId": "f"}).Expect(t, 404, "fulfillment_not_found")
		if string(e.Data) != `"f"` {
			t.Errorf("fulfillment_not_found data %s", e.Data)
		}
		s.BadInput().Post(t, "/order/v1/order.list", s.Admin, map[string]any{"createdFrom": "yesterday"}).Expect(t, 400, "validation_error")
		s.BadInput().Post(t, "/order/v1/order.list", s.Admin, map[string]any{"limit": 0}).Expect(t, 400, "validation_error")
		// Statuses are checked, in a list or a comma-separated string, in
		// the body or the query string: a typo is no empty page.
		s.BadInput().Post(t, "/order/v1/order.list", s.Admin, map[string]any{"status": []string{"PLACED", "placed"}}).Expect(t, 400, "validation_error")
		s.BadInput().Get(t, "/order/v1/order.list?paymentStatus=PAID,CAPTURED", s.Admin).Expect(t, 400, "validation_error")
		s.BadInput().Post(t, "/order/v1/order.list", s.Admin, map[string]any{"fulfillmentStatus": "SHIPPED, LOST"}).Expect(t, 400, "validation_error")
		var none []order.Order
		s.Post(t, "/order/v1/order.list", s.Admin, map[string]any{"status": []string{"COMPLETED", "CANCELLED"}, "paymentStatus": "PAID, REFUNDED"}).
			Must(t).Decode(t, "data", &none)
		s.Get(t, "/order/v1/order.list?fulfillmentStatus=DELIVERED,PARTIALLY_SHIPPED", s.Admin).Must(t).Decode(t, "data", &none)
		if len(none) != 0 {
			t.Errorf("delivered orders: %d, want none", len(none))
		}
		s.Get(t, "/order/v1/order.capture?id="+o.ID, s.Admin).Expect(t, 405, "method_not_allowed")
		s.Post(t, "/order/v1/order.capture", s.Admin, map[string]any{"id": o.ID, "amount": 1}).Expect(t, 400, "validation_error")
		if got := s.op("capture", map[string]any{"id": o.ID}); got.Version != 3 {
			t.Errorf("failed calls changed the order: version %d, want 3", got.Version)
		}
	})
}

// TestWhoSeesWhat: admin, the customer, other customers, api tokens
// without customerId.
func TestWhoSeesWhat(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		ada, bob := s.customer("ada"), s.customer("bob")
		mine, _ := s.order(ada, 1)
		anon, _ := s.order(s.API, 1)
		s.Get(t, "/order/v1/order.info?id="+mine.ID, ada).Must(t)
		s.Get(t, "/order/v1/order.info?id="+mine.ID, s.Admin).Must(t)
		s.Get(t, "/order/v1/order.info?id="+mine.ID, bob).Expect(t, 404, "order_not_found")
		s.Get(t, "/order/v1/order.info?id="+mine.ID, s.API).Expect(t, 404, "order_not_found")
		s.Get(t, "/order/v1/order.info?id="+anon.ID, s.API).Must(t)
		s.Get(t, "/order/v1/order.info?id="+anon.ID, bob).Expect(t, 404, "order_not_found")
		s.Get(t, "/order/v1/order.list", s.API).Expect(t, 403, "forbidden")
		var list []order.Order
		s.Get(t, "/order/v1/order.list?customerId=bob,ada", ada).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != mine.ID {
			t.Errorf("ada's list: %d orders, want hers only", len(list))
		}
		s.Get(t, "/order/v1/order.list?customerId=bob", ada).Must(t).Decode(t, "data", &list)
		if len(list) != 0 {
			t.Errorf("ada asking for bob's: %d orders, want none", len(list))
		}
		s.Get(t, "/order/v1/order.list", s.Admin).Must(t).Decode(t, "data", &list)
		if len(list) != 2 || list[0].ID != anon.ID {
			t.Errorf("admin list: %d orders, want 2 newest first", len(list))
		}
		for _, op := range []string{"capture", "fulfill", "deliver", "refund"} {
			s.Post(t, "/order/v1/order."+op, ada, map[string]any{"id": mine.ID}).Expect(t, 403, "forbidden")
		}
		s.Post(t, "/order/v1/order.cancel", bob, map[string]any{"id": mine.ID}).Expect(t, 404, "order_not_found")
		s.Post(t, "/order/v1/order.cancel", s.API, map[string]any{"id": mine.ID}).Expect(t, 404, "order_not_found")
		s.Post(t, "/order/v1/order.cancel", ada, map[string]any{"id": mine.ID}).Must(t)
		s.Post(t, "/order/v1/order.cancel", s.API, map[string]any{"id": anon.ID}).Must(t)
		var got order.Order
		s.Get(t, "/order/v1/order.info?id="+mine.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if got.Status != "CANCELLED" {
			t.Errorf("after the customer's cancel: %s", got.Status)
		}
	})
}
