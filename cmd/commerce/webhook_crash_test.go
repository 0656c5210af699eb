package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/webhook"
)

// crashReceiver counts the webhook requests of each run of the service
// and checks their Standard Webhooks signatures and timestamps
// independently (standardWebhookProblem).
type crashReceiver struct {
	mu     sync.Mutex
	secret string
	run    int
	got    map[int]map[string]int // run -> event id -> requests
	bad    int
}

func (r *crashReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts, sig := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature")
	r.mu.Lock()
	defer r.mu.Unlock()
	var e struct{ ID string }
	if standardWebhookProblem(r.secret, id, ts, sig, body, time.Now()) != "" || json.Unmarshal(body, &e) != nil || e.ID != id {
		r.bad++
	}
	if r.got[r.run] == nil {
		r.got[r.run] = map[string]int{}
	}
	r.got[r.run][id]++
	w.WriteHeader(http.StatusNoContent)
}

// webhookCrashTest subscribes a webhook to CATEGORIES, writes a burst of
// 500 categories, kills the service with SIGKILL in the middle, starts it
// again and writes the rest: every CATEGORIES event of the log reaches the
// receiver, validly signed, and none twice within one run of the service.
func webhookCrashTest(t *testing.T, db string) {
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "crash", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	rcv := &crashReceiver{got: map[int]map[string]int{}}
	hs := httptest.NewServer(rcv)
	defer hs.Close()
	flags := []string{"--webhook-allow-private", "--webhook-retry", "200ms,200ms,500ms,1s,1s,1s,1s,1s", "--webhook-lease", "3s"}
	c := startChild(t, db, flags...)
	client := &http.Client{Timeout: 10 * time.Second}

	_, secret := createChildWebhook(t, client, c, admin, hs.URL+"/hook", "CATEGORIES")
	rcv.mu.Lock()
	rcv.secret = secret
	rcv.mu.Unlock()

	const total = 500
	var next, acked atomic.Int64
	burst := func(base string, stopAt int64) {
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				for acked.Load() < total {
					i := next.Add(1)
					status, body, err := post(client, base+"/catalog/v1/category.create", admin,
						map[string]any{"title": fmt.Sprintf("C%d", i), "slug": fmt.Sprintf("c-%d", i), "parent": "ROOT"})
					if err != nil {
						return // the server died
					}
					if status != 200 {
						t.Errorf("category.create %d: %d %s", i, status, body["error"])
						return
					}
					if acked.Add(1) == stopAt {
						c.kill()
					}
				}
			})
		}
		wg.Wait()
	}
	burst(c.base, total/2)
	if acked.Load() < total/2 || acked.Load() >= total {
		t.Fatalf("%d writes acknowledged before the kill", acked.Load())
	}
	rcv.mu.Lock()
	rcv.run = 1
	rcv.mu.Unlock()

	c = startChild(t, db, flags...)
	defer c.stop(t)
	next.Store(acked.Load() + 100) // categories of the writes cut short may exist: new slugs
	burst(c.base, -1)

	// Every CATEGORIES event of the log.
	var events []string
	after := ""
	for {
		args := map[string]any{"channel": "CATEGORIES", "limit": 1000}
		if after != "" {
			args["after"] = after
		}
		status, body, err := post(client, c.base+"/event/v1/event.list", admin, args)
		if err != nil || status != 200 {
			t.Fatalf("event.list: %d %v %s", status, err, body["error"])
		}
		var data []struct{ ID string }
		json.Unmarshal(body["data"], &data)
		for _, e := range data {
			events = append(events, e.ID)
			after = e.ID
		}
		if len(data) < 1000 {
			break
		}
	}
	if len(events) < total {
		t.Fatalf("%d CATEGORIES events, want at least %d", len(events), total)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		rcv.mu.Lock()
		missing := 0
		for _, id := range events {
			if rcv.got[0][id]+rcv.got[1][id] == 0 {
				missing++
			}
		}
		rcv.mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never delivered", missing, len(events))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // let a wrong repeat show
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.bad != 0 {
		t.Errorf("%d requests with a bad signature or body", rcv.bad)
	}
	again := 0
	for run, got := range rcv.got {
		for id, n := range got {
			if n != 1 {
				t.Errorf("run %d: event %s delivered %d times", run, id, n)
			}
		}
		if run == 1 {
			for id := range got {
				if rcv.got[0][id] > 0 {
					again++
				}
			}
		}
	}
	t.Logf("%d events, %d delivered before the kill, %d after the restart (%d of them again: attempts cut short by the kill)",
		len(events), len(rcv.got[0]), len(rcv.got[1]), again)
}

func TestWebhookCrashSQLite(t *testing.T) {
	webhookCrashTest(t, "sqlite:"+filepath.Join(t.TempDir(), "commerce.db"))
}

func TestWebhookCrashPostgres(t *testing.T) {
	webhookCrashTest(t, testdb.PostgresURL(t))
}

// slowReceiver answers the first webhook request after 2 seconds (unless
// its client goes away first) and every later one at once, and records
// each with when it arrived and what is wrong with it.
type slowReceiver struct {
	mu       sync.Mutex
	secret   string
	arrived  chan struct{} // closed when the first request arrives
	cutShort chan struct{} // closed when the first request's client went away before the answer
	reqs     []slowRequest
}

type slowRequest struct {
	id, problem string
	at          time.Time
}

func (r *slowReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts, sig := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature")
	r.mu.Lock()
	r.reqs = append(r.reqs, slowRequest{id: id, at: time.Now(), problem: standardWebhookProblem(r.secret, id, ts, sig, body, time.Now())})
	first := len(r.reqs) == 1
	r.mu.Unlock()
	if first {
		close(r.arrived)
		select {
		case <-req.Context().Done():
			close(r.cutShort)
			return
		case <-time.After(2 * time.Second):
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *slowReceiver) requests() []slowRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slowRequest(nil), r.reqs...)
}

// crashDelivery is what webhookCrashMidAttemptTest reads of a delivery.
type crashDelivery struct {
	Status         string `json:"status"`
	Attempts       int    `json:"attempts"`
	LastStatusCode *int   `json:"lastStatusCode"`
}

// webhookCrashMidAttemptTest kills the service with SIGKILL while an
// attempt is in flight (the receiver takes 2 seconds to answer): the
// attempt is cut short and not recorded, and after a restart the delivery
// is attempted again once the dead process's lease has ended (not
// before: the lease is stored), then DELIVERED, counted once.
func webhookCrashMidAttemptTest(t *testing.T, db string) {
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "crash", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	rcv := &slowReceiver{arrived: make(chan struct{}), cutShort: make(chan struct{})}
	hs := httptest.NewServer(rcv)
	defer hs.Close()
	const lease = webhook.Timeout + 2*time.Second // the shortest lease there is
	flags := []string{"--webhook-allow-private", "--webhook-retry", "200ms", "--webhook-lease", lease.String()}
	client := &http.Client{Timeout: 10 * time.Second}
	c := startChild(t, db, flags...)
	webhookID, secret := createChildWebhook(t, client, c, admin, hs.URL+"/hook", "CATEGORIES")
	rcv.mu.Lock()
	rcv.secret = secret
	rcv.mu.Unlock()
	if status, body, err := post(client, c.base+"/catalog/v1/category.create", admin,
		map[string]any{"title": "Slow", "slug": "slow", "parent": "ROOT"}); err != nil || status != 200 {
		t.Fatalf("category.create: %d %v %s", status, err, body["error"])
	}
	select {
	case <-rcv.arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no attempt arrived")
	}
	c.kill() // mid-attempt: the receiver is still answering
	select {
	case <-rcv.cutShort:
	case <-time.After(5 * time.Second):
		t.Fatal("the attempt was not cut short by the kill")
	}

	c = startChild(t, db, flags...)
	defer c.stop(t)
	deliveries := func() []crashDelivery {
		t.Helper()
		status, body, err := post(client, c.base+"/event/v1/webhook.deliveries", admin, map[string]any{"webhookId": webhookID})
		if err != nil || status != 200 {
			t.Fatalf("webhook.deliveries: %d %v", status, err)
		}
		var ds []crashDelivery
		json.Unmarshal(body["data"], &ds)
		return ds
	}
	if ds := deliveries(); len(ds) != 1 || ds[0].Status != "PENDING" || ds[0].Attempts != 0 {
		t.Fatalf("after the restart: %+v, want one PENDING delivery, its cut attempt not counted", ds)
	}
	deadline := time.Now().Add(lease + 30*time.Second)
	for len(rcv.requests()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the delivery was not attempted again")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var ds []crashDelivery
	for ds = deliveries(); len(ds) != 1 || ds[0].Status != "DELIVERED"; ds = deliveries() {
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v, want DELIVERED", ds)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ds[0].Attempts != 1 || ds[0].LastStatusCode == nil || *ds[0].LastStatusCode != http.StatusNoContent {
		t.Fatalf("delivery %+v, want DELIVERED by 1 recorded attempt (204)", ds[0])
	}
	reqs := rcv.requests()
	if len(reqs) != 2 || reqs[0].id != reqs[1].id {
		t.Fatalf("requests %+v, want the same event twice", reqs)
	}
	for i, r := range reqs {
		if r.problem != "" {
			t.Errorf("request %d: %s", i+1, r.problem)
		}
	}
	// The claim was made just before the first request was sent.
	if gap := reqs[1].at.Sub(reqs[0].at); gap < lease-time.Second {
		t.Fatalf("attempted again %s after the cut attempt, before its %s lease ended", gap, lease)
	}
}

func TestWebhookCrashMidAttemptSQLite(t *testing.T) {
	webhookCrashMidAttemptTest(t, "sqlite:"+filepath.Join(t.TempDir(), "commerce.db"))
}

func TestWebhookCrashMidAttemptPostgres(t *testing.T) {
	webhookCrashMidAttemptTest(t, testdb.PostgresURL(t))
}
