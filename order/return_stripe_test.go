package order_test

import (
	"testing"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/stripemock"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestStripeReturn: a return of an order paid with Stripe is refunded
// through Stripe (stripe-mock), and an exchange that costs more has its
// difference authorised with Stripe on the new order.
func TestStripeReturn(t *testing.T) {
	t.Parallel()
	url := stripemock.Start(t)
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db, func(o *app.Options) { o.StripeKey, o.StripeURL = stripemock.Key, url })
		p := s.product("S1", "100.00", 10)
		b := s.product("S2", "150.00", 10)
		body := checkoutBody(s.cart(s.API, p, 2))
		body["paymentId"] = "stripe"
		body["paymentData"] = map[string]any{"paymentMethod": "pm_card_visa"}
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
		s.op("capture", map[string]any{"id": o.ID})
		s.op("fulfill", map[string]any{"id": o.ID})

		r := s.ret(s.Admin, "request", map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
		s.ret(s.Admin, "receive", map[string]any{"id": r.ID})
		r = s.ret(s.Admin, "refund", map[string]any{"id": r.ID})
		cur := s.info(o.ID)
		if r.Status != "REFUNDED" || cur.Payments[0].Refunded.Amount != 10000 || cur.PaymentStatus != "PARTIALLY_REFUNDED" {
			t.Fatalf("return %s, order payment %+v: want 100.00 refunded through Stripe", r.Status, cur.Payments[0])
		}
		x := s.exchangeReturn(&o, 1, b, 1)
		x = s.ret(s.Admin, "refund", map[string]any{"id": x.ID, "paymentId": "stripe", "paymentData": map[string]any{"paymentMethod": "pm_card_visa"}})
		n := s.info(x.Exchange.OrderID)
		if len(n.Payments) != 1 || n.Payments[0].Provider != "stripe" || n.Payments[0].Amount.Amount != 5000 ||
			n.Payments[0].Reference == "" || n.PaymentStatus != "AUTHORIZED" {
			t.Fatalf("exchange order payments %+v: want 50.00 authorised with Stripe", n.Payments)
		}
		if got := s.op("capture", map[string]any{"id": n.ID}); got.PaymentStatus != "PAID" {
			t.Errorf("capture of the difference: %s", got.PaymentStatus)
		}
	})
}
