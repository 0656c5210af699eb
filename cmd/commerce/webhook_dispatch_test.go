package main

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

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/testdb"
)

// overlapReceiver counts the webhook requests per webhook-id, the requests
// that arrived while another with the same id was being answered, and the
// requests whose Standard Webhooks signature does not verify (checked
// independently of package webhook).
type overlapReceiver struct {
	mu       sync.Mutex
	secret   string
	got      map[string]int
	inFlight map[string]int
	overlap  int
	bad      int
}

func (r *overlapReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts, sig := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature")
	r.mu.Lock()
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	if !hmac.Equal([]byte(sig), []byte("v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))) {
		r.bad++
	}
	r.got[id]++
	r.inFlight[id]++
	if r.inFlight[id] > 1 {
		r.overlap++
	}
	r.mu.Unlock()
	time.Sleep(3 * time.Millisecond) // an attempt takes a while: room for a second one to overlap
	r.mu.Lock()
	r.inFlight[id]--
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// TestWebhookTwoProcesses runs two `serve` processes on one PostgreSQL
// database over a backlog of 300 events for one webhook: every delivery
// is delivered, each attempted once, and no two attempts of one delivery
// ever overlap (deliveries are claimed FOR UPDATE SKIP LOCKED and leased).
func TestWebhookTwoProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "ops", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	rcv := &overlapReceiver{got: map[string]int{}, inFlight: map[string]int{}}
	hs := httptest.NewServer(rcv)
	defer hs.Close()
	flags := []string{"--webhook-allow-private", "--webhook-retry", "200ms", "--webhook-lease", "1m"}
	client := &http.Client{Timeout: 10 * time.Second}

	// The webhook, then a backlog written while no process runs.
	a := startChild(t, url, flags...)
	status, body, err := post(client, a.base+"/event/v1/webhook.create", admin, map[string]any{"url": hs.URL + "/hook", "channels": "PRODUCTS"})
	if err != nil || status != 200 {
		t.Fatalf("webhook.create: %d %v %s", status, err, body["error"])
	}
	var secret string
	var w struct{ ID string }
	json.Unmarshal(body["secret"], &secret)
	json.Unmarshal(body["webhook"], &w)
	rcv.mu.Lock()
	rcv.secret = secret
	rcv.mu.Unlock()
	a.stop(t)
	db := testdb.PostgresAt(t, url)
	const n = 300
	var backlog []event.Event
	for range n {
		e, err := event.New("PRODUCTS", event.Create, time.Now(), map[string]int{"n": 1})
		if err != nil {
			t.Fatal(err)
		}
		backlog = append(backlog, e)
	}
	if err := db.Append(context.Background(), backlog); err != nil {
		t.Fatal(err)
	}

	a, b := startChild(t, url, flags...), startChild(t, url, flags...)
	defer a.stop(t)
	defer b.stop(t)
	deadline := time.Now().Add(90 * time.Second)
	for {
		rcv.mu.Lock()
		done := 0
		for _, e := range backlog {
			if rcv.got[e.ID] > 0 {
				done++
			}
		}
		rcv.mu.Unlock()
		if done == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events delivered", done, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // let a wrong repeat show
	rcv.mu.Lock()
	for _, e := range backlog {
		if c := rcv.got[e.ID]; c != 1 {
			t.Errorf("event %s: %d requests, want 1", e.ID, c)
		}
	}
	if rcv.overlap != 0 || rcv.bad != 0 || len(rcv.got) != n {
		t.Errorf("%d overlapping attempts, %d bad signatures, %d ids; want 0, 0, %d", rcv.overlap, rcv.bad, len(rcv.got), n)
	}
	rcv.mu.Unlock()
	status, body, err = post(client, b.base+"/event/v1/webhook.deliveries", admin, map[string]any{"webhookId": w.ID, "limit": 1000})
	if err != nil || status != 200 {
		t.Fatalf("webhook.deliveries: %d %v", status, err)
	}
	var ds []struct {
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
	}
	json.Unmarshal(body["data"], &ds)
	if len(ds) != n {
		t.Fatalf("%d deliveries, want %d", len(ds), n)
	}
	for _, d := range ds {
		if d.Status != "DELIVERED" || d.Attempts != 1 {
			t.Fatalf("delivery %+v, want DELIVERED after 1 attempt", d)
		}
	}
}
