package stripe_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/stripe"
)

const secret = "whsec_test_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH"

// notes records the notifications applied (a port the orders implement;
// de-duplication by EventID is theirs).
type notes struct {
	mu  sync.Mutex
	got []payment.Notification
	err error
}

func (n *notes) Apply(_ context.Context, note payment.Notification) (payment.Outcome, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.err != nil {
		return 0, n.err
	}
	outcome := payment.Applied
	for _, seen := range n.got {
		if seen.EventID == note.EventID {
			outcome = payment.Duplicate
		}
	}
	n.got = append(n.got, note) // every call, the repeated ones too
	return outcome, nil
}

func (n *notes) applied() []payment.Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]payment.Notification(nil), n.got...)
}

// sign returns the Stripe-Signature of body made at t with key.
func sign(body string, t time.Time, key string) string {
	mac := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(mac, "%d.%s", t.Unix(), body)
	return "t=" + strconv.FormatInt(t.Unix(), 10) + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

func eventJSON(id, typ, object string) string {
	return `{"id": "` + id + `", "object": "event", "api_version": "2020-08-27", "created": 1700000000, "livemode": false,` +
		` "type": "` + typ + `", "data": {"object": ` + object + `}}`
}

// post sends body to the handler with the signature header (none when "").
func post(h http.Handler, body, sig string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, stripe.WebhookPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if sig != "" {
		r.Header.Set("Stripe-Signature", sig)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func expect(t *testing.T, w *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	if w.Code != status || (body != "" && strings.TrimSpace(w.Body.String()) != body) {
		t.Errorf("got %d %s, want %d %s", w.Code, w.Body, status, body)
	}
}

func TestWebhook(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	rec := &notes{}
	h := &stripe.Webhook{Secret: secret, Notifications: func() payment.Notifications { return rec }, Now: func() time.Time { return now }}
	const received = `{"received":true}`

	t.Run("payment events are applied", func(t *testing.T) {
		tests := []struct {
			name, body string
			want       payment.Notification
		}{
			{"payment_intent.succeeded", eventJSON("evt_1", "payment_intent.succeeded",
				`{"id": "pi_1", "object": "payment_intent", "amount": 2000, "amount_received": 1500, "status": "succeeded"}`),
				payment.Notification{EventID: "evt_1", Provider: "stripe", Reference: "pi_1", Kind: payment.NotifyCaptured, Amount: 1500}},
			{"payment_intent.canceled", eventJSON("evt_2", "payment_intent.canceled",
				`{"id": "pi_2", "object": "payment_intent", "amount": 2000, "amount_received": 0, "status": "canceled"}`),
				payment.Notification{EventID: "evt_2", Provider: "stripe", Reference: "pi_2", Kind: payment.NotifyVoided}},
			{"payment_intent.payment_failed", eventJSON("evt_3", "payment_intent.payment_failed",
				`{"id": "pi_3", "object": "payment_intent", "amount": 2000, "status": "requires_payment_method"}`),
				payment.Notification{EventID: "evt_3", Provider: "stripe", Reference: "pi_3", Kind: payment.NotifyFailed}},
			{"charge.refunded", eventJSON("evt_4", "charge.refunded",
				`{"id": "ch_4", "object": "charge", "amount": 2000, "amount_refunded": 700, "payment_intent": "pi_4", "refunded": false}`),
				payment.Notification{EventID: "evt_4", Provider: "stripe", Reference: "pi_4", Kind: payment.NotifyRefunded, Amount: 700}},
			{"charge.refunded with an expanded PaymentIntent", eventJSON("evt_5", "charge.refunded",
				`{"id": "ch_5", "object": "charge", "amount_refunded": 2000, "payment_intent": {"id": "pi_5", "object": "payment_intent"}}`),
				payment.Notification{EventID: "evt_5", Provider: "stripe", Reference: "pi_5", Kind: payment.NotifyRefunded, Amount: 2000}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				before := len(rec.applied())
				expect(t, post(h, tc.body, sign(tc.body, now.Add(-time.Minute), secret)), http.StatusOK, received)
				got := rec.applied()
				if len(got) != before+1 || got[before] != tc.want {
					t.Errorf("applied %+v, want %+v last", got, tc.want)
				}
			})
		}
	})

	t.Run("signed by Stripe's own library, any api_version", func(t *testing.T) {
		body := eventJSON("evt_sdk", "payment_intent.succeeded", `{"id": "pi_sdk", "amount_received": 99}`)
		signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(body), Secret: secret, Timestamp: now})
		before := len(rec.applied())
		expect(t, post(h, body, signed.Header), http.StatusOK, received)
		if got := rec.applied(); len(got) != before+1 || got[before].Reference != "pi_sdk" || got[before].Amount != 99 {
			t.Errorf("applied %+v, want pi_sdk captured 99", got)
		}
	})

	t.Run("the same event twice reaches the orders twice with its id", func(t *testing.T) {
		body := eventJSON("evt_dup", "charge.refunded", `{"id": "ch_d", "amount_refunded": 300, "payment_intent": "pi_d"}`)
		before := len(rec.applied())
		for range 2 {
			expect(t, post(h, body, sign(body, now, secret)), http.StatusOK, received)
		}
		got := rec.applied()[before:]
		if len(got) != 2 || got[0] != got[1] || got[0].EventID != "evt_dup" {
			t.Errorf("applied %+v, want the event evt_dup twice", got)
		}
	})

	t.Run("other events are acknowledged, not applied", func(t *testing.T) {
		before := len(rec.applied())
		for _, body := range []string{
			eventJSON("evt_o1", "customer.created", `{"id": "cus_1", "object": "customer"}`),
			eventJSON("evt_o2", "payment_intent.created", `{"id": "pi_9", "object": "payment_intent"}`),
			eventJSON("evt_o3", "charge.refunded", `{"id": "ch_9", "amount_refunded": 100, "payment_intent": null}`),
		} {
			expect(t, post(h, body, sign(body, now, secret)), http.StatusOK, received)
		}
		if got := rec.applied(); len(got) != before {
			t.Errorf("applied %+v, want nothing more", got[before:])
		}
	})

	t.Run("refused: only a fresh signature with the secret proves Stripe sent it", func(t *testing.T) {
		body := eventJSON("evt_x", "payment_intent.succeeded", `{"id": "pi_x", "amount_received": 1}`)
		good := sign(body, now, secret)
		ts := strconv.FormatInt(now.Unix(), 10)
		tests := []struct{ name, body, sig string }{
			{"no signature", body, ""},
			{"another secret", body, sign(body, now, "whsec_other")},
			{"part of the secret", body, sign(body, now, strings.TrimPrefix(secret, "whsec_"))},
			{"a changed body", strings.Replace(body, `"amount_received": 1`, `"amount_received": 100000`, 1), good},
			{"stale: 6 minutes old", body, sign(body, now.Add(-6*time.Minute), secret)},
			{"from 6 minutes in the future", body, sign(body, now.Add(6*time.Minute), secret)},
			{"another timestamp than signed", body, strings.Replace(good, "t="+ts, "t="+strconv.FormatInt(now.Unix()-1, 10), 1)},
			{"no timestamp", body, good[strings.Index(good, ",")+1:]},
			{"only a v0 signature", body, strings.Replace(good, "v1=", "v0=", 1)},
			{"garbage", body, "garbage"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				before := len(rec.applied())
				w := post(h, tc.body, tc.sig)
				expect(t, w, http.StatusBadRequest, "")
				if !strings.Contains(w.Body.String(), `"error":"validation_error"`) || !strings.Contains(w.Body.String(), "Stripe-Signature") {
					t.Errorf("got %s, want validation_error naming Stripe-Signature", w.Body)
				}
				if got := rec.applied(); len(got) != before {
					t.Errorf("applied %+v, want nothing", got[before:])
				}
			})
		}
	})

	t.Run("4 minutes old and several signatures (a rolled secret) are accepted", func(t *testing.T) {
		body := eventJSON("evt_roll", "payment_intent.canceled", `{"id": "pi_r"}`)
		old := sign(body, now.Add(-4*time.Minute), "whsec_old")
		cur := sign(body, now.Add(-4*time.Minute), secret)
		sig := old + ",v1=" + cur[strings.Index(cur, "v1=")+3:] + ",v0=abc"
		expect(t, post(h, body, sig), http.StatusOK, received)
	})

	t.Run("a signed body that is not an event", func(t *testing.T) {
		for _, body := range []string{`not json`, `{"id": "evt_1"}`, eventJSON("evt_b", "payment_intent.succeeded", `"pi_1"`)} {
			expect(t, post(h, body, sign(body, now, secret)), http.StatusBadRequest, "")
		}
	})

	t.Run("method, size, configuration, failures", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodGet, stripe.WebhookPath, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		expect(t, w, http.StatusMethodNotAllowed, `{"ok":false,"error":"method_not_allowed"}`)

		big := `{"id": "evt_big", "type": "customer.created", "pad": "` + strings.Repeat("x", stripe.MaxWebhookBody) + `"}`
		expect(t, post(h, big, sign(big, now, secret)), http.StatusRequestEntityTooLarge, `{"ok":false,"error":"request_too_large"}`)

		body := eventJSON("evt_c", "payment_intent.succeeded", `{"id": "pi_c", "amount_received": 5}`)
		for name, hh := range map[string]*stripe.Webhook{
			"no notifications":  {Secret: secret, Now: h.Now},
			"nil notifications": {Secret: secret, Now: h.Now, Notifications: func() payment.Notifications { return nil }},
			"no secret":         {Notifications: h.Notifications, Now: h.Now},
		} {
			key := secret
			if hh.Secret == "" {
				key = ""
			}
			w := post(hh, body, sign(body, now, key))
			if w.Code != http.StatusServiceUnavailable {
				t.Errorf("%s: got %d %s, want 503", name, w.Code, w.Body)
			}
		}

		failing := &notes{err: errors.New("disk full")}
		hf := &stripe.Webhook{Secret: secret, Now: h.Now, Notifications: func() payment.Notifications { return failing }}
		expect(t, post(hf, body, sign(body, now, secret)), http.StatusInternalServerError, `{"ok":false,"error":"internal_error"}`)
		failing.err = commerce.Errorf(commerce.EUnavailable, "database down")
		expect(t, post(hf, body, sign(body, now, secret)), http.StatusServiceUnavailable, `{"ok":false,"error":"unavailable"}`)
	})
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"evt_1"}`)
	tests := []struct {
		name string
		sig  string
		want error
	}{
		{"good", sign(string(body), now, secret), nil},
		{"exactly 5 minutes old", sign(string(body), now.Add(-5*time.Minute), secret), nil},
		{"5 minutes and a second old", sign(string(body), now.Add(-5*time.Minute-time.Second), secret), stripe.ErrStaleSignature},
		{"wrong", sign(string(body), now, secret+"x"), stripe.ErrBadSignature},
		{"empty", "", stripe.ErrNoSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := stripe.Verify(body, tc.sig, secret, now); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}
