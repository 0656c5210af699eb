package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
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
	valid       bool   // the signature verified and the timestamp is fresh
	from        string // the X-Test-Sender header of a test's own client
}

// receiver is a webhook endpoint: it answers each request by the script
// (status codes in order; 0 is "never answer in time"), then 200, and
// verifies every signature and timestamp with its own implementation of
// the Standard Webhooks algorithm.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	now      func() time.Time // the clock timestamps are checked against (the sender's: time.Now unless a test sets its own)
	secret   string
	script   []int
	hits     []hit
	inFlight map[string]int
	overlap  int           // requests that arrived while one with the same id was in flight
	delay    time.Duration // before answering
	// holdFor, when set, holds every request (at most holdMax) until each
	// of these senders (hit.from) has sent one.
	holdFor []string
	holdMax time.Duration
	senders map[string]int // requests per sender
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{script: script, inFlight: map[string]int{}, senders: map[string]int{}, now: time.Now}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) setSecret(s string) { r.mu.Lock(); r.secret = s; r.mu.Unlock() }

// setClock makes the receiver check timestamps against now (a test's
// clock, which the service signs with).
func (r *receiver) setClock(now func() time.Time) { r.mu.Lock(); r.now = now; r.mu.Unlock() }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	h := hit{id: req.Header.Get("webhook-id"), ts: req.Header.Get("webhook-timestamp"), sig: req.Header.Get("webhook-signature"), body: body,
		from: req.Header.Get("X-Test-Sender")}
	r.mu.Lock()
	h.valid = verify(r.secret, h, r.now())
	r.hits = append(r.hits, h)
	r.senders[h.from]++
	r.inFlight[h.id]++
	if r.inFlight[h.id] > 1 {
		r.overlap++
	}
	code := 200
	if len(r.script) > 0 {
		code, r.script = r.script[0], r.script[1:]
	}
	delay, holdFor, holdMax := r.delay, r.holdFor, r.holdMax
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.inFlight[h.id]--; r.mu.Unlock() }()
	for deadline := time.Now().Add(holdMax); len(holdFor) > 0 && !r.allSent(holdFor) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
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
// the header a space-separated list of "v1,<base64 HMAC-SHA256>"; and its
// timestamp: Unix seconds, in decimal digits, within 5 seconds of now
// (the time it was received: sent just before).
func verify(secret string, h hit, now time.Time) bool {
	if !freshTimestamp(h.ts, now) {
		return false
	}
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

// freshTimestamp reports whether ts is Unix seconds in decimal digits
// within 5 seconds of now.
func freshTimestamp(ts string, now time.Time) bool {
	if ts == "" || strings.Trim(ts, "0123456789") != "" {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	d := now.Unix() - sec
	return d >= -5 && d <= 5
}

// allSent reports whether each of the senders has sent a request.
func (r *receiver) allSent(senders []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range senders {
		if r.senders[s] == 0 {
			return false
		}
	}
	return true
}

// sentBy returns the number of requests per sender.
func (r *receiver) sentBy() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.senders)
}

// senderClient is an HTTP client that marks its requests with the header
// X-Test-Sender: name, so that the receiver knows which of a test's
// dispatchers sent each (the service's own client sends no such header).
func senderClient(name string, timeout time.Duration) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Timeout: timeout, Transport: senderTransport{name: name, base: base},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type senderTransport struct {
	name string
	base http.RoundTripper
}

func (s senderTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Test-Sender", s.name)
	return s.base.RoundTrip(req)
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

// TestReceiverVerifies: the test receiver's verifier itself refuses what
// it must: a wrong signature, and a timestamp that is not Unix seconds or
// not within 5 seconds.
func TestReceiverVerifies(t *testing.T) {
	key := []byte("0123456789abcdef01234567")
	secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
	now := time.Unix(1_800_000_000, 0)
	signed := func(ts string) hit {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte("msg_1." + ts + ".{}"))
		return hit{id: "msg_1", ts: ts, body: []byte("{}"), sig: "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))}
	}
	for _, c := range []struct {
		name string
		h    hit
		ok   bool
	}{
		{"fresh", signed("1800000003"), true},
		{"another signature first", func() hit { h := signed("1800000000"); h.sig = "v1,AAAA " + h.sig; return h }(), true},
		{"6 seconds old", signed("1799999994"), false},
		{"milliseconds", signed("1800000000000"), false},
		{"not digits", signed("+1800000000"), false},
		{"RFC 3339", signed("2027-01-15T08:00:00Z"), false},
		{"bad signature", func() hit { h := signed("1800000000"); h.body = []byte("{ }"); return h }(), false},
	} {
		if got := verify(secret, c.h, now); got != c.ok {
			t.Errorf("%s: verified %v, want %v", c.name, got, c.ok)
		}
	}
}
