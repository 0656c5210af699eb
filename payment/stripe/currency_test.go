package stripe_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/stripe"
)

// asStripe answers as Stripe does to the calls the provider makes: a
// PaymentIntent requiring capture (or captured), a succeeded refund.
func asStripe(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/v1/refunds":
		_, _ = w.Write([]byte(`{"id": "re_1", "object": "refund", "status": "succeeded", "payment_intent": "pi_1"}`))
	case strings.HasSuffix(r.URL.Path, "/capture"):
		_, _ = w.Write([]byte(`{"id": "pi_1", "object": "payment_intent", "status": "succeeded"}`))
	default:
		_, _ = w.Write([]byte(`{"id": "pi_1", "object": "payment_intent", "status": "requires_capture"}`))
	}
}

// TestAmounts: amounts reach Stripe in Stripe's units, which are ISO 4217
// minor units except for the currencies Stripe documents otherwise
// (zero-decimal, three-decimal, and two-decimal where ISO counts none);
// an amount Stripe cannot take exactly is refused before anything is
// sent (amount_not_supported), never rounded.
func TestAmounts(t *testing.T) {
	ctx := context.Background()
	rec := newRecorder(t, asStripe)
	p, err := stripe.New(stripe.Options{Key: testKey, URL: rec.URL})
	if err != nil {
		t.Fatal(err)
	}
	data := json.RawMessage(`{"paymentMethod":"pm_card_visa"}`)
	for _, tc := range []struct {
		name     string
		currency string
		amount   int64 // minor units at the shop's (ISO) precision
		want     string
	}{
		{"two decimals", "USD", 1050, "1050"},
		{"zero-decimal", "JPY", 500, "500"},
		{"zero-decimal, ISO too", "KRW", 12000, "12000"},
		{"ISK: no decimals in ISO, hundredths at Stripe", "ISK", 500, "50000"},
		{"IDR: no decimals here, hundredths at Stripe", "IDR", 15000, "1500000"},
		{"three-decimal ending in 0", "KWD", 12340, "12340"},
		{"three-decimal JOD", "JOD", 5000, "5000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.requests()
			if _, err := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "a-" + tc.currency, Amount: tc.amount,
				Currency: tc.currency, Data: data}); err != nil {
				t.Fatalf("authorize: %v", err)
			}
			if _, err := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: "c-" + tc.currency, Reference: "pi_1", Amount: tc.amount,
				Currency: tc.currency}); err != nil {
				t.Fatalf("capture: %v", err)
			}
			if _, err := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: "r-" + tc.currency, Reference: "pi_1", Amount: tc.amount,
				Currency: tc.currency}); err != nil {
				t.Fatalf("refund: %v", err)
			}
			reqs := rec.requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			for i, field := range []string{"amount", "amount_to_capture", "amount"} {
				if got := reqs[i].Form.Get(field); got != tc.want {
					t.Errorf("%s %s: %s=%s, want %s", reqs[i].Method, reqs[i].Path, field, got, tc.want)
				}
			}
			if got := reqs[0].Form.Get("currency"); got != strings.ToLower(tc.currency) {
				t.Errorf("currency %q, want %q", got, strings.ToLower(tc.currency))
			}
		})
	}
	t.Run("refused before sending", func(t *testing.T) {
		for _, tc := range []struct {
			currency string
			amount   int64
		}{{"KWD", 12345}, {"BHD", 1}, {"TND", 999}} {
			rec.requests()
			_, a := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "x", Amount: tc.amount, Currency: tc.currency, Data: data})
			_, c := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: "x", Reference: "pi_1", Amount: tc.amount, Currency: tc.currency})
			_, r := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: "x", Reference: "pi_1", Amount: tc.amount, Currency: tc.currency})
			for op, err := range map[string]error{"authorize": a, "capture": c, "refund": r} {
				var d *payment.Decline
				if !errors.As(err, &d) || d.Code != stripe.EAmountNotSupported || !strings.Contains(d.Message, tc.currency) {
					t.Errorf("%s %d %s: %v, want a Decline %s naming the currency", op, tc.amount, tc.currency, err, stripe.EAmountNotSupported)
				}
			}
			if reqs := rec.requests(); len(reqs) != 0 {
				t.Errorf("%s %d: %d requests sent, want none", tc.currency, tc.amount, len(reqs))
			}
		}
	})
}

// TestWebhookAmounts: the amounts of webhook events come back in the
// shop's minor units.
func TestWebhookAmounts(t *testing.T) {
	rec := &notes{}
	now := time.Now()
	h := &stripe.Webhook{Secret: secret, Notifications: func() payment.Notifications { return rec }, Now: func() time.Time { return now }}
	for _, tc := range []struct {
		typ, object string
		want        int64
	}{
		{"payment_intent.succeeded", `{"id": "pi_1", "object": "payment_intent", "amount_received": 50000, "currency": "isk"}`, 500},
		{"payment_intent.succeeded", `{"id": "pi_2", "object": "payment_intent", "amount_received": 500, "currency": "jpy"}`, 500},
		{"payment_intent.succeeded", `{"id": "pi_3", "object": "payment_intent", "amount_received": 1050, "currency": "usd"}`, 1050},
		{"charge.refunded", `{"id": "ch_1", "object": "charge", "amount_refunded": 1500000, "currency": "idr", "payment_intent": "pi_4"}`, 15000},
		{"charge.refunded", `{"id": "ch_2", "object": "charge", "amount_refunded": 12340, "currency": "kwd", "payment_intent": "pi_5"}`, 12340},
	} {
		body := eventJSON("evt_"+tc.object[8:12], tc.typ, tc.object)
		expect(t, post(h, body, sign(body, now, secret)), http.StatusOK, `{"received":true}`)
		got := rec.applied()
		if len(got) == 0 || got[len(got)-1].Amount != tc.want {
			t.Errorf("%s: applied %+v, want amount %d", tc.object, got, tc.want)
		}
	}
}
