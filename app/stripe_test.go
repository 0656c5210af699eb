package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// recordedNotes records the notifications the webhook applies.
type recordedNotes struct {
	mu  sync.Mutex
	got []payment.Notification
}

func (n *recordedNotes) Apply(_ context.Context, note payment.Notification) (payment.Outcome, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, seen := range n.got {
		if seen.EventID == note.EventID {
			return payment.Duplicate, nil
		}
	}
	n.got = append(n.got, note)
	return payment.Applied, nil
}

func newApp(t *testing.T, o app.Options) *app.App {
	t.Helper()
	keys, err := auth.New([]byte(apitest.Secret))
	if err != nil {
		t.Fatal(err)
	}
	o.DB, o.Keys = testdb.SQLite(t), keys
	a, err := app.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The provider "stripe" exists only with a key, and calls the configured
// address with that key.
func TestStripeProvider(t *testing.T) {
	if ids := newApp(t, app.Options{}).Payments.IDs(); !slices.Equal(ids, []string{"manual"}) {
		t.Errorf("without a key: got providers %v, want [manual]", ids)
	}
	var auths []string
	var mu sync.Mutex
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id": "pi_app", "object": "payment_intent", "amount": 100, "status": "requires_capture"}`)
	}))
	defer fake.Close()
	a := newApp(t, app.Options{StripeKey: "sk_test_app", StripeURL: fake.URL})
	if ids := a.Payments.IDs(); !slices.Equal(ids, []string{"manual", "stripe"}) {
		t.Fatalf("with a key: got providers %v, want [manual stripe]", ids)
	}
	p, _ := a.Payments.Provider("stripe")
	got, err := p.Authorize(context.Background(), payment.AuthorizeRequest{IdempotencyKey: "k", Amount: 100, Currency: "USD",
		Precision: 2, Data: json.RawMessage(`{"paymentMethod": "pm_card_visa"}`)})
	if err != nil || got.Reference != "pi_app" {
		t.Fatalf("authorize: got %+v, %v", got, err)
	}
	if want := []string{"POST /v1/payment_intents Bearer sk_test_app"}; !slices.Equal(auths, want) {
		t.Errorf("Stripe got %q, want %q", auths, want)
	}
}

// POST /webhooks/stripe is served without a bearer token, only when a
// webhook secret is configured, and only signed events are applied; every
// answer matches /openapi.json.
func TestStripeWebhookMounted(t *testing.T) {
	const secret = "whsec_app_test"
	body := `{"id": "evt_app", "object": "event", "type": "payment_intent.canceled", "data": {"object": {"id": "pi_app"}}}`
	sign := func(key string) string {
		ts := time.Now().Unix()
		mac := hmac.New(sha256.New, []byte(key))
		fmt.Fprintf(mac, "%d.%s", ts, body)
		return fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))
	}
	post := func(t *testing.T, url, sig string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url+"/webhooks/stripe", strings.NewReader(body))
		req.Header.Set("Stripe-Signature", sig)
		req.Header.Set("Content-Type", "application/json; charset=utf-8") // as Stripe sends it
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}

	t.Run("not configured: no such endpoint", func(t *testing.T) {
		hs := httptest.NewServer(apitest.Checking(t, newApp(t, app.Options{}).Handler()))
		defer hs.Close()
		if code, b := post(t, hs.URL, sign(secret)); code != http.StatusNotFound {
			t.Errorf("got %d %s, want 404", code, b)
		}
	})
	t.Run("no Notifications: 503", func(t *testing.T) {
		a := newApp(t, app.Options{StripeWebhookSecret: secret})
		a.Notifications = nil
		hs := httptest.NewServer(apitest.Checking(t, a.Handler()))
		defer hs.Close()
		if code, b := post(t, hs.URL, sign(secret)); code != http.StatusServiceUnavailable {
			t.Errorf("got %d %s, want 503", code, b)
		}
	})
	t.Run("configured", func(t *testing.T) {
		a := newApp(t, app.Options{StripeWebhookSecret: secret})
		notes := &recordedNotes{}
		a.Notifications = notes
		hs := httptest.NewServer(apitest.Checking(t, a.Handler()))
		defer hs.Close()
		if code, b := post(t, hs.URL, sign("whsec_someone_else")); code != http.StatusBadRequest {
			t.Errorf("signed with another secret: got %d %s, want 400", code, b)
		}
		if code, b := post(t, hs.URL, sign(secret)); code != http.StatusOK || b != `{"received":true}` {
			t.Errorf("signed: got %d %s, want 200 {\"received\":true}", code, b)
		}
		want := []payment.Notification{{EventID: "evt_app", Provider: "stripe", Reference: "pi_app", Kind: payment.NotifyVoided}}
		notes.mu.Lock()
		defer notes.mu.Unlock()
		if !slices.Equal(notes.got, want) {
			t.Errorf("applied %+v, want %+v", notes.got, want)
		}
		res, err := http.Get(hs.URL + "/healthz")
		if err != nil || res.StatusCode != http.StatusOK {
			t.Errorf("/healthz: got %v, %v, want 200", res, err)
		}
		if res != nil {
			res.Body.Close()
		}
	})
}

// logSink is a log sink safe for the server's goroutines.
type logSink struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStripeWebhookObserved (issue 27): POST /webhooks/stripe has a
// request log line and commerce_requests_total series as every operation
// (service webhooks, operation webhooks.stripe, version ""), and an event
// Stripe sends again is logged as a duplicate, not as applied a second
// time.
func TestStripeWebhookObserved(t *testing.T) {
	const secret = "whsec_app_observed"
	body := `{"id": "evt_obs", "object": "event", "type": "payment_intent.canceled", "data": {"object": {"id": "pi_obs"}}}`
	sign := func(key string) string {
		ts := time.Now().Unix()
		mac := hmac.New(sha256.New, []byte(key))
		fmt.Fprintf(mac, "%d.%s", ts, body)
		return fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))
	}
	logs := &logSink{}
	a := newApp(t, app.Options{StripeWebhookSecret: secret, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	a.Notifications = &recordedNotes{}
	hs := httptest.NewServer(apitest.Checking(t, a.Handler()))
	defer hs.Close()
	for _, key := range []string{secret, secret, "whsec_someone_else"} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/webhooks/stripe", strings.NewReader(body))
		req.Header.Set("Stripe-Signature", sign(key))
		req.Header.Set("Content-Type", "application/json; charset=utf-8") // as Stripe sends it
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	want := []string{
		`commerce_requests_total{operation="webhooks.stripe",service="webhooks",status="200",version=""} 2`,
		`commerce_requests_total{operation="webhooks.stripe",service="webhooks",status="400",version=""} 1`,
	}
	var m string
	for range 200 { // counted once the answer is sent
		res, err := http.Get(hs.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if m = string(b); strings.Contains(m, want[0]) && strings.Contains(m, want[1]) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, w := range want {
		if !strings.Contains(m, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
	lines := strings.Split(logs.String(), "\n")
	count := func(parts ...string) int {
		n := 0
		for _, l := range lines {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(l, p)
			}
			if all {
				n++
			}
		}
		return n
	}
	if n := count("msg=request", "service=webhooks", "operation=webhooks.stripe", "path=/webhooks/stripe"); n != 3 {
		t.Errorf("got %d request log lines of /webhooks/stripe, want 3:\n%s", n, logs)
	}
	if n := count(`msg="stripe webhook: applied"`, "event=evt_obs"); n != 1 {
		t.Errorf("the event logged as applied %d times, want once:\n%s", n, logs)
	}
	if n := count(`msg="stripe webhook: duplicate event, ignored"`, "event=evt_obs"); n != 1 {
		t.Errorf("the event sent again logged as a duplicate %d times, want once:\n%s", n, logs)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the log holds the webhook secret")
	}
}
