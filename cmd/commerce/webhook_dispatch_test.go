package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/testkit/testdb"
)

// standardWebhookProblem checks a webhook request as the Standard
// Webhooks specification publishes it, independently of package webhook:
// the signature "v1,<base64 HMAC-SHA256>" of "id.timestamp.body" keyed
// with the base64 after "whsec_", and the timestamp: Unix seconds in
// decimal digits, within 5 seconds of now (when it was received, just
// after it was sent). It returns what is wrong, or "".
func standardWebhookProblem(secret, id, ts, sig string, body []byte, now time.Time) string {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) < 24 {
		return "bad secret"
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	if !hmac.Equal([]byte(sig), []byte("v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))) {
		return "bad signature"
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || strings.Trim(ts, "0123456789") != "" {
		return "webhook-timestamp " + ts + ": not Unix seconds"
	}
	if d := now.Unix() - sec; d < -5 || d > 5 {
		return fmt.Sprintf("webhook-timestamp %s: %ds from the time it was received", ts, d)
	}
	return ""
}

// pidKey is the context key of the process that opened a connection to a
// test receiver (connPID).
type pidKey struct{}

// withSenderPID returns a receiver server whose requests carry, in their
// context (pidKey), which of the processes pids() names opened their
// connection (0: none of them).
func withSenderPID(h http.Handler, pids func() []int) *httptest.Server {
	hs := httptest.NewUnstartedServer(h)
	hs.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, pidKey{}, connPID(c, pids()))
	}
	hs.Start()
	return hs
}

// connPID returns the process among pids that holds the client end of c,
// a loopback connection accepted by a test server, or 0: the socket whose
// local port is c's remote port and whose remote port is c's local port
// (/proc/net/tcp and tcp6), found by its inode among the processes' open
// files (/proc/<pid>/fd). A test-only way to learn which `serve` process
// sent a request without changing what the service sends.
func connPID(c net.Conn, pids []int) int {
	remote, ok1 := c.RemoteAddr().(*net.TCPAddr)
	local, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return 0
	}
	inode := ""
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 {
				continue
			}
			if hexPort(f[1]) == remote.Port && hexPort(f[2]) == local.Port {
				inode = f[9]
			}
		}
	}
	if inode == "" {
		return 0
	}
	for _, pid := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && l == "socket:["+inode+"]" {
				return pid
			}
		}
	}
	return 0
}

// hexPort is the port of an address of /proc/net/tcp ("0100007F:1F90").
func hexPort(addr string) int {
	_, p, ok := strings.Cut(addr, ":")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(p, 16, 32)
	if err != nil {
		return -1
	}
	return int(n)
}

// overlapReceiver counts the webhook requests per webhook-id and per
// sending process, the requests that arrived while another with the same
// id was being answered, and the requests whose Standard Webhooks
// signature or timestamp does not verify (standardWebhookProblem). Until
// every process of pids has sent one, it holds each request (at most 5
// seconds, within the attempts' 10), so that the first process to start
// cannot take the whole backlog before the other claims.
type overlapReceiver struct {
	mu       sync.Mutex
	secret   string
	pids     []int
	got      map[string]int
	byPID    map[int]int
	inFlight map[string]int
	overlap  int
	bad      []string
}

func (r *overlapReceiver) processes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.pids...)
}

func (r *overlapReceiver) allSent() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pids {
		if r.byPID[p] == 0 {
			return false
		}
	}
	return true
}

func (r *overlapReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts, sig := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature")
	pid, _ := req.Context().Value(pidKey{}).(int)
	r.mu.Lock()
	if p := standardWebhookProblem(r.secret, id, ts, sig, body, time.Now()); p != "" {
		r.bad = append(r.bad, id+": "+p)
	}
	r.got[id]++
	r.byPID[pid]++
	r.inFlight[id]++
	if r.inFlight[id] > 1 {
		r.overlap++
	}
	r.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); !r.allSent() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(3 * time.Millisecond) // an attempt takes a while: room for a second one to overlap
	r.mu.Lock()
	r.inFlight[id]--
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// createChildWebhook creates a webhook of url on the channels through the
// serve process c and returns its id and secret.
func createChildWebhook(t *testing.T, client *http.Client, c *child, admin, url, channels string) (id, secret string) {
	t.Helper()
	status, body, err := post(client, c.base+"/event/v1/webhook.create", admin, map[string]any{"url": url, "channels": channels})
	if err != nil || status != 200 {
		t.Fatalf("webhook.create: %d %v %s", status, err, body["error"])
	}
	var w struct{ ID string }
	if json.Unmarshal(body["secret"], &secret) != nil || json.Unmarshal(body["webhook"], &w) != nil || secret == "" || w.ID == "" {
		t.Fatalf("webhook.create: %s %s", body["webhook"], body["secret"])
	}
	return w.ID, secret
}

// TestWebhookTwoProcesses runs two `serve` processes on one PostgreSQL
// database over a backlog of 300 events for one webhook: both processes
// send attempts (the receiver tells them apart by their connections:
// connPID), every delivery is delivered, each attempted once, and no two
// attempts of one delivery ever overlap (deliveries are claimed FOR
// UPDATE SKIP LOCKED and leased).
func TestWebhookTwoProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "ops", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	rcv := &overlapReceiver{got: map[string]int{}, byPID: map[int]int{}, inFlight: map[string]int{}}
	hs := withSenderPID(rcv, rcv.processes)
	defer hs.Close()
	flags := []string{"--webhook-allow-private", "--webhook-retry", "200ms", "--webhook-lease", "1m"}
	client := &http.Client{Timeout: 10 * time.Second}

	a := startChild(t, url, flags...)
	webhookID, secret := createChildWebhook(t, client, a, admin, hs.URL+"/hook", "PRODUCTS")
	rcv.mu.Lock()
	rcv.secret = secret
	rcv.mu.Unlock()
	a.stop(t)

	// Both processes, then a backlog they find in the log.
	a, b := startChild(t, url, flags...), startChild(t, url, flags...)
	defer a.stop(t)
	defer b.stop(t)
	rcv.mu.Lock()
	rcv.pids = []int{a.cmd.Process.Pid, b.cmd.Process.Pid}
	rcv.mu.Unlock()
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
	if rcv.overlap != 0 || len(rcv.bad) != 0 || len(rcv.got) != n {
		t.Errorf("%d overlapping attempts, bad requests %q, %d ids; want 0, none, %d", rcv.overlap, rcv.bad, len(rcv.got), n)
	}
	pa, pb := a.cmd.Process.Pid, b.cmd.Process.Pid
	if rcv.byPID[pa] == 0 || rcv.byPID[pb] == 0 || rcv.byPID[pa]+rcv.byPID[pb] != n {
		t.Errorf("attempts by process %v (processes %d and %d), want both > 0 and %d in all", rcv.byPID, pa, pb, n)
	}
	t.Logf("attempts by process: %v", rcv.byPID)
	rcv.mu.Unlock()
	status, body, err := post(client, b.base+"/event/v1/webhook.deliveries", admin, map[string]any{"webhookId": webhookID, "limit": 1000})
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
