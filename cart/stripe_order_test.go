package cart_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/stripemock"
	"github.com/commercekit/commerce/testkit/testdb"
)

type stripeOrder struct {
	ID            string `json:"id"`
	Number        string `json:"number"`
	Status        string `json:"status"`
	PaymentStatus string `json:"paymentStatus"`
	Version       int64  `json:"version"`
	Payments      []struct {
		Provider  string `json:"provider"`
		Status    string `json:"status"`
		Reference string `json:"reference"`
	} `json:"payments"`
}

// TestStripeOrderJourney: orders paid with stripe through the SDK against
// stripe-mock (checkout, capture, refund, cancel), and Stripe's webhook
// events, signed with the secret, applied to them once.
func TestStripeOrderJourney(t *testing.T) {
	mock := stripemock.Start(t)
	const secret = "whsec_journey"
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		front := newStripeFront(t, mock)
		s := newShop(t, db, func(o *app.Options) {
			o.StripeKey, o.StripeURL, o.StripeWebhookSecret = stripemock.Key, front.URL, secret
		})
		shippingMethods(t, s)
		product := s.product("P", nil)
		s.stock(product, "W1", 10)

		// checkout places an order of 2 units (225.00) paid with stripe.
		checkout := func() stripeOrder {
			t.Helper()
			c := s.newCart(s.API, nil)
			s.add(s.API, c.ID, product, 2)
			setShipping(t, s, s.API, c.ID, address("US", "HI"))
			var o stripeOrder
			s.Post(t, "/cart/v1/cart.checkout", s.API, map[string]any{"cartId": c.ID, "paymentId": "stripe",
				"paymentData": map[string]any{"paymentMethod": "pm_card_visa"}}).Must(t).Decode(t, "order", &o)
			if o.PaymentStatus != "AUTHORIZED" || len(o.Payments) != 1 || o.Payments[0].Provider != "stripe" ||
				!strings.HasPrefix(o.Payments[0].Reference, "pi_") {
				t.Fatalf("got order %+v, want an AUTHORIZED stripe PaymentIntent", o)
			}
			posts := front.take()
			if len(posts) != 1 || posts[0].Get("_path") != "/v1/payment_intents" || posts[0].Get("metadata[orderNumber]") != o.Number {
				t.Errorf("Stripe got %v, want one PaymentIntent with metadata orderNumber %s", posts, o.Number)
			}
			return o
		}
		op := func(name string, body map[string]any) stripeOrder {
			t.Helper()
			var o stripeOrder
			s.Post(t, "/order/v1/"+name, s.Admin, body).Must(t).Decode(t, "order", &o)
			return o
		}
		info := func(id string) stripeOrder { return op("order.info", map[string]any{"id": id}) }
		// onePost checks that Stripe got one POST to path with the form values.
		onePost := func(path string, want map[string]string) {
			t.Helper()
			posts := front.take()
			if len(posts) != 1 || posts[0].Get("_path") != path || posts[0].Get("_key") == "" {
				t.Fatalf("Stripe got %v, want one POST %s with an Idempotency-Key", posts, path)
			}
			for k, v := range want {
				if got := posts[0].Get(k); got != v {
					t.Errorf("POST %s: got %s=%q, want %q", path, k, got, v)
				}
			}
		}
		webhook := func(id, typ, object string) {
			t.Helper()
			body := `{"id": "` + id + `", "object": "event", "api_version": "2019-02-19", "type": "` + typ + `", "data": {"object": ` + object + `}}`
			ts := time.Now().Unix()
			mac := hmac.New(sha256.New, []byte(secret))
			fmt.Fprintf(mac, "%d.%s", ts, body)
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/webhooks/stripe", strings.NewReader(body))
			req.Header.Set("Stripe-Signature", fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil))))
			req.Header.Set("Content-Type", "application/json; charset=utf-8") // as Stripe sends it
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("webhook %s %s: got %d, want 200", id, typ, res.StatusCode)
			}
		}

		// Captured and partly refunded through the API, then fully
		// refunded at Stripe (a webhook, delivered twice).
		a := checkout()
		ref := a.Payments[0].Reference
		if o := op("order.capture", map[string]any{"id": a.ID}); o.PaymentStatus != "PAID" {
			t.Errorf("capture: got paymentStatus %s, want PAID", o.PaymentStatus)
		}
		onePost("/v1/payment_intents/"+url.PathEscape(ref)+"/capture", map[string]string{"amount_to_capture": "22500"})
		if o := op("order.refund", map[string]any{"id": a.ID, "amount": 50}); o.PaymentStatus != "PARTIALLY_REFUNDED" {
			t.Errorf("refund: got paymentStatus %s, want PARTIALLY_REFUNDED", o.PaymentStatus)
		}
		onePost("/v1/refunds", map[string]string{"payment_intent": ref, "amount": "5000"})
		refunded := `{"id": "ch_a", "object": "charge", "amount": 22500, "amount_refunded": 22500, "payment_intent": "` + ref + `"}`
		webhook("evt_a_refunded", "charge.refunded", refunded)
		o := info(a.ID)
		if o.PaymentStatus != "REFUNDED" || o.Status != "PLACED" {
			t.Errorf("after charge.refunded: got %s/%s, want PLACED/REFUNDED", o.Status, o.PaymentStatus)
		}
		webhook("evt_a_refunded", "charge.refunded", refunded)
		if again := info(a.ID); again.Version != o.Version || again.PaymentStatus != "REFUNDED" {
			t.Errorf("the same event again: got version %d %s, want %d unchanged", again.Version, again.PaymentStatus, o.Version)
		}

		// Cancelled: the PaymentIntent is cancelled at Stripe.
		b := checkout()
		if o := op("order.cancel", map[string]any{"id": b.ID, "reason": "changed my mind"}); o.PaymentStatus != "VOIDED" || o.Status != "CANCELLED" {
			t.Errorf("cancel: got %s/%s, want CANCELLED/VOIDED", o.Status, o.PaymentStatus)
		}
		onePost("/v1/payment_intents/"+url.PathEscape(b.Payments[0].Reference)+"/cancel", nil)

		// Captured in Stripe's dashboard: the webhook marks it PAID.
		c := checkout()
		webhook("evt_c_succeeded", "payment_intent.succeeded",
			`{"id": "`+c.Payments[0].Reference+`", "object": "payment_intent", "amount": 22500, "amount_received": 22500}`)
		if o := info(c.ID); o.PaymentStatus != "PAID" || o.Status != "PLACED" || o.Payments[0].Status != "CAPTURED" {
			t.Errorf("after payment_intent.succeeded: got %+v, want PLACED/PAID with the payment CAPTURED", o)
		}
		if posts := front.take(); len(posts) != 0 {
			t.Errorf("Stripe got %v, want nothing for a webhook", posts)
		}
	})
}
