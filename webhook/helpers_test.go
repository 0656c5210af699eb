package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/apitest"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/webhook"
)

// testKey is the sealing key of the test services (their JWT secret).
var testKey = []byte(apitest.Secret)

// options returns the app options of a test service: private targets
// allowed, a short retry schedule and timeout.
func options(retry string, timeout time.Duration) func(*app.Options) {
	return func(o *app.Options) {
		o.WebhookKey = testKey
		o.WebhookAllowPrivate = true
		o.WebhookTimeout = timeout
		o.WebhookLease = 3 * time.Second
		for p := range strings.SplitSeq(retry, ",") {
			d, err := time.ParseDuration(p)
			if err != nil {
				panic(err)
			}
			o.WebhookRetry = append(o.WebhookRetry, d)
		}
	}
}

// hit is one request the receiver got.
type hit struct {
	id, ts, sig string
	body        []byte
	valid       bool // the signature verified
}

// receiver is a webhook endpoint: it answers each request by the script
// (status codes in order; 0 is "never answer in time"), then 200, and
// verifies every signature with its own implementation of the Standard
// Webhooks algorithm.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	secret   string
	script   []int
	hits     []hit
	inFlight map[string]int
	overlap  int           // requests that arrived while one with the same id was in flight
	delay    time.Duration // before answering
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{script: script, inFlight: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) setSecret(s string) { r.mu.Lock(); r.secret = s; r.mu.Unlock() }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	h := hit{id: req.Header.Get("webhook-id"), ts: req.Header.Get("webhook-timestamp"), sig: req.Header.Get("webhook-signature"), body: body}
	r.mu.Lock()
	h.valid = verify(r.secret, h)
	r.hits = append(r.hits, h)
	r.inFlight[h.id]++
	if r.inFlight[h.id] > 1 {
		r.overlap++
	}
	code := 200
	if len(r.script) > 0 {
		code, r.script = r.script[0], r.script[1:]
	}
	delay := r.delay
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.inFlight[h.id]--; r.mu.Unlock() }()
	if delay > 0 {
		time.Sleep(delay)
	}
	if code == 0 { // time out: answer only once the sender gave up
		<-req.Context().Done()
		return
	}
	w.WriteHeader(code)
}

// verify checks a request's signature as the Standard Webhooks
// specification publishes it, independently of package webhook: the key
// is the base64 after "whsec_", the signed content "id.timestamp.body",
// the header a space-separated list of "v1,<base64 HMAC-SHA256>".
func verify(secret string, h hit) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) < 24 {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.id + "." + h.ts + "." + string(h.body)))
	want := mac.Sum(nil)
	for _, s := range strings.Fields(h.sig) {
		v, b64, ok := strings.Cut(s, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

func (r *receiver) snapshot() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// appendEvent writes an event to the outbox directly, as a committed
// change would.
func appendEvent(t *testing.T, db *sqldb.DB, channel, typ string) event.Event {
	t.Helper()
	e, err := event.New(channel, typ, time.Now(), map[string]any{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Append(context.Background(), []event.Event{e}); err != nil {
		t.Fatal(err)
	}
	return e
}

// createWebhook creates a webhook on the receiver and returns its id,
// giving the receiver the secret.
func createWebhook(t *testing.T, s *apitest.Server, r *receiver, body map[string]any) string {
	t.Helper()
	if body["url"] == nil {
		body["url"] = r.URL + "/hook"
	}
	res := s.Post(t, "/event/v1/webhook.create", s.Admin, body).Must(t)
	var secret string
	res.Decode(t, "secret", &secret)
	r.setSecret(secret)
	var w webhook.Webhook
	res.Decode(t, "webhook", &w)
	return w.ID
}

// deliveries lists a webhook's deliveries.
func deliveries(t *testing.T, s *apitest.Server, webhookID string) []webhook.Delivery {
	t.Helper()
	res := s.Post(t, "/event/v1/webhook.deliveries", s.Admin, map[string]any{"webhookId": webhookID, "limit": 1000}).Must(t)
	var ds []webhook.Delivery
	res.Decode(t, "data", &ds)
	return ds
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// start runs the service over db until stop is called (or the test ends).
func start(t *testing.T, db *sqldb.DB, opts ...func(*app.Options)) (*apitest.Server, func()) {
	t.Helper()
	return apitest.Start(t, db, opts...)
}

func base64Decode(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }
