package order_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/stripemock"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestStripeJourneys runs the journeys with the stripe provider against
// stripe-mock (through the official SDK): checkout, capture, two partial
// fulfilments and their deliveries (COMPLETED); a partial refund with
// restock; a cancel before shipping (stock back, payment voided).
func TestStripeJourneys(t *testing.T) {
	url := stripemock.Start(t)
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db, func(o *app.Options) {
			o.StripeKey, o.StripeURL, o.StripeWebhookSecret = stripemock.Key, url, webhookSecret
		})
		p := s.product("S1", "100.00", 10)
		checkout := func(n int) *order.Order {
			t.Helper()
			body := checkoutBody(s.cart(s.API, p, n))
			body["paymentId"] = "stripe"
			body["paymentData"] = map[string]any{"paymentMethod": "pm_card_visa"}
			var o order.Order
			s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
			if len(o.Payments) != 1 || o.Payments[0].Provider != "stripe" || o.Payments[0].Status != "AUTHORIZED" || o.Payments[0].Reference == "" {
				t.Fatalf("payments %+v, want one stripe authorisation", o.Payments)
			}
			return &o
		}
		t.Run("capture, ship twice, deliver", func(t *testing.T) {
			s.t = t
			o := checkout(3)
			if got := s.op("capture", map[string]any{"id": o.ID}); got.PaymentStatus != "PAID" || got.Payments[0].Captured != got.Payments[0].Amount {
				t.Fatalf("capture: %+v", got.Payments[0])
			}
			s.op("fulfill", map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
			got := s.op("fulfill", map[string]any{"id": o.ID})
			for _, f := range got.Fulfillments {
				got = s.op("deliver", map[string]any{"id": o.ID, "fulfillmentId": f.ID})
			}
			if got.Status != "COMPLETED" || got.FulfillmentStatus != "DELIVERED" || len(got.Fulfillments) != 2 {
				t.Errorf("after two fulfilments delivered: %s / %s", got.Status, got.FulfillmentStatus)
			}
		})
		t.Run("partial refund with restock", func(t *testing.T) {
			s.t = t
			o := checkout(2)
			before, _ := s.stock(p)
			s.op("capture", map[string]any{"id": o.ID})
			got := s.op("refund", map[string]any{"id": o.ID, "amount": 50, "restock": true, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
			if got.PaymentStatus != "PARTIALLY_REFUNDED" || got.Payments[0].Refunded.Amount != 5000 {
				t.Errorf("refund: %s %+v", got.PaymentStatus, got.Payments[0])
			}
			if q, _ := s.stock(p); q != before+1 {
				t.Errorf("stock %d after restocking 1, want %d", q, before+1)
			}
		})
		t.Run("webhook: payment_intent.succeeded, once", func(t *testing.T) {
			s.t = t
			o := checkout(1)
			evt := fmt.Sprintf(`{"id":"evt_%s","object":"event","type":"payment_intent.succeeded",
				"data":{"object":{"id":%q,"object":"payment_intent","amount_received":%d}}}`, o.ID, o.Payments[0].Reference, o.Payments[0].Amount.Amount)
			for range 2 {
				if status, body := postWebhook(t, s.URL, evt); status != 200 || body != `{"received":true}` {
					t.Fatalf("webhook: %d %s", status, body)
				}
			}
			var got order.Order
			s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
			if got.PaymentStatus != "PAID" || got.Status != "PLACED" || got.Version != 2 {
				t.Errorf("after the event (twice): %s / %s, version %d; want PAID, PLACED, 2", got.Status, got.PaymentStatus, got.Version)
			}
			// A refund made in Stripe's dashboard (amounts in Stripe's
			// units, USD: cents), then the events' types on ORDERS.
			evt = fmt.Sprintf(`{"id":"evt_r_%s","object":"event","type":"charge.refunded",
				"data":{"object":{"id":"ch_1","object":"charge","amount_refunded":1000,"currency":"usd","payment_intent":%q}}}`, o.ID, o.Payments[0].Reference)
			if status, body := postWebhook(t, s.URL, evt); status != 200 || body != `{"received":true}` {
				t.Fatalf("webhook: %d %s", status, body)
			}
			s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
			if got.PaymentStatus != "PARTIALLY_REFUNDED" || got.Payments[0].Refunded.Amount != 1000 {
				t.Errorf("after charge.refunded: %s, refunded %d; want PARTIALLY_REFUNDED, 10.00", got.PaymentStatus, got.Payments[0].Refunded.Amount)
			}
			s.wantEvents(o.ID, "CREATE", "CAPTURE", "REFUND")
			o = checkout(1)
			evt = fmt.Sprintf(`{"id":"evt_c_%s","object":"event","type":"payment_intent.canceled",
				"data":{"object":{"id":%q,"object":"payment_intent"}}}`, o.ID, o.Payments[0].Reference)
			if status, body := postWebhook(t, s.URL, evt); status != 200 || body != `{"received":true}` {
				t.Fatalf("webhook: %d %s", status, body)
			}
			s.wantEvents(o.ID, "CREATE", "UPDATE")
		})
		t.Run("cancel before shipping", func(t *testing.T) {
			s.t = t
			o := checkout(2)
			before, _ := s.stock(p)
			got := s.op("cancel", map[string]any{"id": o.ID})
			if got.Status != "CANCELLED" || got.PaymentStatus != "VOIDED" {
				t.Errorf("cancel: %s / %s", got.Status, got.PaymentStatus)
			}
			if q, _ := s.stock(p); q != before+2 {
				t.Errorf("stock %d after cancel, want %d", q, before+2)
			}
		})
	})
}

const webhookSecret = "whsec_order_test"

// postWebhook posts a Stripe event signed as Stripe signs it.
func postWebhook(t *testing.T, base, body string) (int, string) {
	t.Helper()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(webhookSecret))
	mac.Write([]byte(ts + "." + body))
	req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/stripe", strings.NewReader(body))
	req.Header.Set("Stripe-Signature", "t="+ts+",v1="+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(b))
}
