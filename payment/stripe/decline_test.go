package stripe_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/stripe"
)

const testKey = "sk_test_secret_never_shown"

// stripeError answers as Stripe does with an error: the status, a
// Request-Id and {"error": {...}}.
func stripeError(status int, typ, code, message string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_test")
		w.WriteHeader(status)
		e := map[string]string{"type": typ, "message": message, "request_log_url": "https://dashboard.stripe.com/test/logs/req_test"}
		if code != "" {
			e["code"] = code
			e["doc_url"] = "https://stripe.com/docs/error-codes/" + code
		}
		if code == "card_declined" {
			e["decline_code"] = "generic_decline"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
	}
}

// operations runs each operation of p once, each with its own key, and
// returns their errors by operation.
func operations(ctx context.Context, p payment.Provider) map[string]error {
	_, a := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "k-authorize", Amount: 1000, Currency: "USD",
		Precision: 2, Data: json.RawMessage(`{"paymentMethod":"pm_card_visa"}`)})
	_, c := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: "k-capture", Reference: "pi_123", Amount: 1000, Currency: "USD"})
	_, v := p.Void(ctx, payment.VoidRequest{IdempotencyKey: "k-void", Reference: "pi_123"})
	_, r := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: "k-refund", Reference: "pi_123", Amount: 1000, Currency: "USD"})
	return map[string]error{"authorize": a, "capture": c, "void": v, "refund": r}
}

// TestDeclines: Stripe's refusals and failures, answered by a local server
// as Stripe answers them (stripe-mock never declines), are Declines with
// Stripe's code and message, or provider_error; each operation is one
// POST carrying its idempotency key (no retry by default).
func TestDeclines(t *testing.T) {
	ctx := context.Background()
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + refused.Addr().String()
	refused.Close() // nothing listens there any more: connection refused

	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })

	tests := []struct {
		name    string
		handler http.HandlerFunc // nil: the closed address
		code    string
		message string // "" : any non-empty message
	}{
		{"card declined", stripeError(402, "card_error", "card_declined", "Your card was declined."),
			"card_declined", "Your card was declined."},
		{"expired card", stripeError(402, "card_error", "expired_card", "Your card has expired."),
			"expired_card", "Your card has expired."},
		{"invalid request with a code", stripeError(400, "invalid_request_error", "payment_intent_unexpected_state",
			"This PaymentIntent could not be captured because it has a status of canceled."),
			"payment_intent_unexpected_state", "This PaymentIntent could not be captured because it has a status of canceled."},
		{"server error", stripeError(500, "api_error", "", "An unknown error occurred"), payment.ProviderError, ""},
		{"bad gateway without JSON", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
		}, payment.ProviderError, ""},
		{"rate limited", stripeError(429, "invalid_request_error", "rate_limit", "Too many requests"), payment.ProviderError, ""},
		{"bad API key", stripeError(401, "invalid_request_error", "api_key_invalid",
			"Invalid API Key provided: sk_test_****hown"), payment.ProviderError, ""},
		{"connection refused", nil, payment.ProviderError, ""},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-hang:
			}
		}, payment.ProviderError, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := closedURL
			var rec *recorder
			if tc.handler != nil {
				rec = newRecorder(t, tc.handler)
				url = rec.URL
			}
			p, err := stripe.New(stripe.Options{Key: testKey, URL: url, Timeout: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			for op, err := range operations(ctx, p) {
				var d *payment.Decline
				if !errors.As(err, &d) {
					t.Fatalf("%s: got %v, want a *payment.Decline", op, err)
				}
				if d.Code != tc.code || d.Message == "" || (tc.message != "" && d.Message != tc.message) {
					t.Errorf("%s: got decline %q %q, want %q %q", op, d.Code, d.Message, tc.code, tc.message)
				}
				if strings.Contains(d.Message, "sk_test") {
					t.Errorf("%s: the customer's message %q shows the key", op, d.Message)
				}
				if d.Err == nil {
					t.Errorf("%s: the cause is not kept", op)
				}
			}
			if rec == nil {
				return
			}
			reqs := rec.requests()
			want := map[string]string{"/v1/payment_intents": "k-authorize", "/v1/payment_intents/pi_123/capture": "k-capture",
				"/v1/payment_intents/pi_123/cancel": "k-void", "/v1/refunds": "k-refund"}
			if len(reqs) != len(want) {
				t.Fatalf("got %d requests %+v, want one per operation (no retry)", len(reqs), reqs)
			}
			for _, r := range reqs {
				if r.Method != http.MethodPost || want[r.Path] == "" || r.IdempotencyKey != want[r.Path] {
					t.Errorf("got %s %s with Idempotency-Key %q, want POST with %q", r.Method, r.Path, r.IdempotencyKey, want[r.Path])
				}
			}
		})
	}

	t.Run("through the providers set: payment_failed with {provider, code, message}", func(t *testing.T) {
		rec := newRecorder(t, stripeError(402, "card_error", "card_declined", "Your card was declined."))
		p, err := stripe.New(stripe.Options{Key: testKey, URL: rec.URL})
		if err != nil {
			t.Fatal(err)
		}
		ps, _ := payment.NewProviders(map[string]payment.Provider{stripe.ID: p})
		sp, _ := ps.Provider(stripe.ID)
		for op, err := range operations(ctx, sp) {
			f, _ := commerce.ErrorData(err).(payment.Failure)
			if commerce.ErrorCode(err) != commerce.EPaymentFailed ||
				f != (payment.Failure{Provider: "stripe", Code: "card_declined", Message: "Your card was declined."}) {
				t.Errorf("%s: got %v (data %+v), want payment_failed card_declined", op, err, f)
			}
		}
	})

	t.Run("retries reuse the idempotency key", func(t *testing.T) {
		var n atomic.Int32
		rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 { // the connection breaks before an answer
				c, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					c.Close()
				}
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id": "re_1", "object": "refund", "amount": 1000, "status": "succeeded"}`))
		})
		p, err := stripe.New(stripe.Options{Key: testKey, URL: rec.URL, Retries: 1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: "k-refund", Reference: "pi_123", Amount: 1000, Currency: "USD"})
		if err != nil || got.Reference != "re_1" || got.Amount != 1000 {
			t.Fatalf("got %+v, %v, want the refund re_1 after a retry", got, err)
		}
		reqs := rec.requests()
		if len(reqs) != 2 || reqs[0].IdempotencyKey != "k-refund" || reqs[1].IdempotencyKey != "k-refund" {
			t.Errorf("got requests %+v, want two with Idempotency-Key k-refund", reqs)
		}
	})

	t.Run("an authentication the checkout cannot make is refused and cancelled", func(t *testing.T) {
		rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			status := "requires_action"
			if strings.HasSuffix(r.URL.Path, "/cancel") {
				status = "canceled"
			}
			_, _ = w.Write([]byte(`{"id": "pi_3ds", "object": "payment_intent", "amount": 1000, "status": "` + status + `"}`))
		})
		p, err := stripe.New(stripe.Options{Key: testKey, URL: rec.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "k3", Amount: 1000, Currency: "USD",
			Data: json.RawMessage(`{"paymentMethod":"pm_card_threeDSecure2Required"}`)})
		var d *payment.Decline
		if !errors.As(err, &d) || d.Code != "authentication_required" {
			t.Fatalf("got %v, want a decline authentication_required", err)
		}
		reqs := rec.requests()
		if len(reqs) != 2 || reqs[1].Path != "/v1/payment_intents/pi_3ds/cancel" || reqs[1].IdempotencyKey != "k3:cancel" {
			t.Errorf("got requests %+v, want the PaymentIntent created then cancelled", reqs)
		}
	})

	t.Run("the end of the caller's context is not a decline", func(t *testing.T) {
		rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-hang:
			}
		})
		p, err := stripe.New(stripe.Options{Key: testKey, URL: rec.URL})
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		for op, err := range operations(cctx, p) {
			var d *payment.Decline
			if err == nil || errors.As(err, &d) {
				t.Errorf("%s with a cancelled context: got %v, want the context's error", op, err)
			}
		}
	})

	t.Run("a reference that is not a PaymentIntent is never sent", func(t *testing.T) {
		rec := newRecorder(t, stripeError(500, "api_error", "", "unexpected"))
		p, _ := stripe.New(stripe.Options{Key: testKey, URL: rec.URL})
		_, err := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: "k", Reference: "../v1/refunds", Amount: 1})
		if commerce.ErrorCode(err) != commerce.EInternal {
			t.Errorf("got %v, want an internal error", err)
		}
		if reqs := rec.requests(); len(reqs) != 0 {
			t.Errorf("got requests %+v, want none", reqs)
		}
	})
}
