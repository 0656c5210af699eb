package order_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	mailfile "github.com/commercekit/commerce/mail/file"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// ret calls a return operation with the token and returns the return.
func (s *shop) ret(token, name string, body map[string]any) *order.Return {
	s.t.Helper()
	var r order.Return
	s.Post(s.t, "/order/v1/return."+name, token, body).Must(s.t).Decode(s.t, "return", &r)
	return &r
}

// info returns the order id as stored.
func (s *shop) info(id string) *order.Order {
	s.t.Helper()
	var o order.Order
	s.Get(s.t, "/order/v1/order.info?id="+id, s.Admin).Must(s.t).Decode(s.t, "order", &o)
	return &o
}

// shipped places an order of n units of a new product (100.00, 10 in
// stock) for the token, captures, ships and delivers it.
func (s *shop) shipped(token string, n int) (*order.Order, string) {
	s.t.Helper()
	return s.shippedTo(token, "", n)
}

// shippedTo is shipped with the order's email (none when "").
func (s *shop) shippedTo(token, email string, n int) (*order.Order, string) {
	s.t.Helper()
	p := s.product(commerce.NewID(), "100.00", 10)
	body := checkoutBody(s.cart(token, p, n))
	if email != "" {
		body["email"] = email
	}
	var o *order.Order
	s.Post(s.t, "/cart/v1/cart.checkout", token, body).Must(s.t).Decode(s.t, "order", &o)
	s.op("capture", map[string]any{"id": o.ID})
	o = s.op("fulfill", map[string]any{"id": o.ID})
	return s.op("deliver", map[string]any{"id": o.ID, "fulfillmentId": o.Fulfillments[0].ID}), p
}

// channelEvents returns the types of the events on the channel, oldest
// first.
func (s *shop) channelEvents(channel string) []string {
	s.t.Helper()
	var evs []event.Event
	s.Get(s.t, "/event/v1/event.list?channel="+channel+"&limit=1000", s.Admin).Must(s.t).Decode(s.t, "data", &evs)
	types := []string{}
	for _, e := range evs {
		types = append(types, e.Type)
	}
	return types
}

// TestReturnJourney: an order is shipped and delivered, its customer asks
// to return 2 of its 3 units for one unit of another product; staff
// receive (restock) and refund: the customer gets what the 2 units cost
// less the exchange's value, and the exchange is a new PAID order that
// ships. Stock, the order and the events are exact at each step.
func TestReturnJourney(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		sender, err := mailfile.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s := newShop(t, db, func(o *app.Options) { o.MailSender, o.MailPoll = sender, 20*time.Millisecond })
		cust := s.customer("c1")
		o, a := s.shippedTo(cust, "c1@example.com", 3) // 3 x 100.00 + 25.00 shipping, captured
		b := s.product("B1", "80.00", 5)

		r := s.ret(cust, "request", map[string]any{"orderId": o.ID,
			"items":    []map[string]any{{"itemId": o.Items[0].ID, "quantity": 2, "reason": "DAMAGED", "note": "dented"}},
			"exchange": map[string]any{"items": []map[string]any{{"productId": b, "quantity": 1, "warehouseId": "W1"}}}})
		if r.Number != "R1001" || r.Status != "REQUESTED" || r.OrderID != o.ID || r.CustomerID != "c1" || r.Version != 1 ||
			len(r.Items) != 1 || r.Items[0].Quantity != 2 || r.Items[0].Reason != "DAMAGED" || r.Items[0].Note != "dented" ||
			r.Items[0].WarehouseID != "W1" || r.Exchange == nil || len(r.Exchange.Items) != 1 ||
			r.Exchange.Items[0].UnitPrice.Amount != 8000 || r.Exchange.OrderID != "" {
			t.Fatalf("return %+v: want R1001 REQUESTED, 2 units, an exchange of B1 at 80.00", r)
		}
		if q, res := s.stock(b); q != 5 || res != 1 {
			t.Fatalf("stock of B1 %d/%d reserved: want 5/1 (the exchange reserved)", q, res)
		}
		if cur := s.info(o.ID); !slices.Equal(cur.Returns, []string{r.ID}) || cur.Source != "STOREFRONT" {
			t.Fatalf("order returns %v source %q: want [%s] STOREFRONT", cur.Returns, cur.Source, r.ID)
		}
		// The customer sees the return; another customer does not.
		s.Get(t, "/order/v1/return.info?id="+r.ID, cust).Must(t)
		s.Get(t, "/order/v1/return.info?id="+r.ID, s.customer("c2")).Expect(t, 404, "return_not_found")
		// Staff receive every unit (default), restocked in W1.
		r = s.ret(s.Admin, "receive", map[string]any{"id": r.ID})
		if r.Status != "RECEIVED" || r.Items[0].ReceivedQuantity != 2 || !r.Items[0].Restock || r.Version != 2 {
			t.Fatalf("return %+v: want RECEIVED, 2 received and restocked", r)
		}
		if q, res := s.stock(a); q != 9 || res != 0 {
			t.Fatalf("stock of the returned product %d/%d: want 9/0 (7 + 2 restocked)", q, res)
		}
		if it := s.info(o.ID).Items[0]; it.ReturnedQuantity != 2 {
			t.Fatalf("order item %+v: want returnedQuantity 2", it)
		}
		// The refund: 2 of the 3 units (300.00 for the line, tax
		// included) less the exchange's 80.00.
		r = s.ret(s.Admin, "refund", map[string]any{"id": r.ID})
		if r.Status != "REFUNDED" || r.Refund == nil || r.Refund.Amount.Amount != 12000 || r.Refund.Shipping ||
			r.Exchange.OrderID == "" {
			t.Fatalf("return %+v: want REFUNDED, 120.00 refunded, the exchange's order", r)
		}
		cur := s.info(o.ID)
		if cur.PaymentStatus != "PARTIALLY_REFUNDED" || len(cur.Refunds) != 1 || cur.Refunds[0].Amount.Amount != 12000 ||
			cur.Items[0].RefundedQuantity != 2 || cur.Status != "COMPLETED" {
			t.Fatalf("order %+v: want COMPLETED, PARTIALLY_REFUNDED by 120.00, 2 units refunded", cur)
		}
		x := s.info(r.Exchange.OrderID)
		if x.Status != "PLACED" || x.PaymentStatus != "PAID" || x.ExchangeOf != o.ID || x.CustomerID != "c1" ||
			len(x.Items) != 1 || x.Items[0].ProductID != b || x.Items[0].SKU != "B1" || x.Items[0].Quantity != 1 ||
			x.Totals.Total.Amount != 8000 || x.Totals.Shipping.Amount != 0 || len(x.Payments) != 0 || x.Number != "1002" {
			t.Fatalf("exchange order %+v: want 1002 PLACED PAID, exchangeOf the order, 1 x B1 for 80.00, no shipping", x)
		}
		if q, res := s.stock(b); q != 4 || res != 0 {
			t.Fatalf("stock of B1 %d/%d: want 4/0 (the exchange committed)", q, res)
		}
		x = s.op("fulfill", map[string]any{"id": x.ID})
		x = s.op("deliver", map[string]any{"id": x.ID, "fulfillmentId": x.Fulfillments[0].ID})
		if x.Status != "COMPLETED" || x.FulfillmentStatus != "DELIVERED" {
			t.Fatalf("exchange order %s/%s: want COMPLETED/DELIVERED", x.Status, x.FulfillmentStatus)
		}
		if got, want := s.channelEvents("RETURNS"), []string{"REQUEST", "RECEIVE", "REFUND"}; !slices.Equal(got, want) {
			t.Errorf("RETURNS events %v, want %v", got, want)
		}
		if got, want := s.channelEvents("ORDERS"), []string{"CREATE", "CAPTURE", "FULFILL", "DELIVER", "REFUND", "CREATE", "FULFILL", "DELIVER"}; !slices.Equal(got, want) {
			t.Errorf("ORDERS events %v, want %v", got, want)
		}
		// The customer's mail, in order: each step of the order, of
		// the return and of the exchange's order (docs/api.md sections
		// 22 and 24). The refund's one transaction emits the order's
		// REFUND, the exchange order's CREATE and the return's REFUND,
		// in that order.
		want := []string{"order_confirmation", "order_shipped", "return_update", "return_update", "order_refunded",
			"order_confirmation", "return_update", "order_shipped"}
		testdb.Eventually(t, "the journey's mail", strings.Join(want, " "), func() string {
			var ms []struct{ Template, Status string }
			s.Get(t, "/mail/v1/mail.list?limit=100", s.Admin).Must(t).Decode(t, "data", &ms)
			var got []string
			for _, m := range ms {
				got = append(got, m.Template)
			}
			return strings.Join(got, " ")
		})

		// The raw return names the contract's fields.
		var raw map[string]json.RawMessage
		s.Get(t, "/order/v1/return.info?id="+r.ID, s.Admin).Must(t).Decode(t, "return", &raw)
		for _, f := range []string{"id", "number", "orderId", "customerId", "status", "items", "exchange", "refund", "createdAt", "updatedAt", "version"} {
			if _, ok := raw[f]; !ok {
				t.Errorf("return has no %q", f)
			}
		}
	})
}
