package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestForbidden(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "::ffff:127.0.0.1": true,
		"10.0.0.1": true, "172.16.0.1": true, "192.168.1.1": true, "fd00::1": true, "::ffff:192.168.0.1": true,
		"169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "::": true, "0.1.2.3": true,
		"100.64.0.1": true, "64:ff9b::7f00:1": true, "224.0.0.1": true, "ff02::1": true,
		"8.8.8.8": false, "1.1.1.1": false, "2001:4860:4860::8888": false, "::ffff:8.8.8.8": false,
		"64:ff9b::808:808": false, "172.32.0.1": false,
	} {
		if got := Forbidden(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Forbidden(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"http://127.0.0.1:8080/x", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://10.1.2.3/",
		"http://169.254.169.254/latest/meta-data", "http://0.0.0.0/", "http://localhost/", "http://LOCALHOST./",
		"https://[fe80::1]/", "ftp://example.com/", "http://user:pw@example.com/", "/relative", "http:///x",
	} {
		if msg := checkURL(ctx, u, false, net.DefaultResolver); msg == "" {
			t.Errorf("%s accepted", u)
		}
	}
	// With --webhook-allow-private only the form is checked.
	if msg := checkURL(ctx, "http://127.0.0.1:8080/x", true, net.DefaultResolver); msg != "" {
		t.Errorf("allow private: %s", msg)
	}
	if msg := checkURL(ctx, "http://8.8.8.8/hook", false, net.DefaultResolver); msg != "" {
		t.Errorf("public address refused: %s", msg)
	}
}

func TestDialControl(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:80": false, "[::1]:443": false, "[::ffff:10.0.0.1]:80": false, "8.8.8.8:443": true} {
		if err := dialControl("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
}

// rebinder is a DNS that answers first, then, from the next lookup on,
// then: a host that re-resolves.
type rebinder struct {
	mu          sync.Mutex
	lookups     int
	first, then []netip.Addr
}

func (r *rebinder) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if r.lookups == 1 {
		return r.first, nil
	}
	return r.then, nil
}

// TestRebinding: a host that resolves to a public address when the
// webhook is created, and to 127.0.0.1 (or to private addresses only)
// when the attempt connects, is not called: the attempt fails with the
// refusal, and the receiver listening there gets nothing.
func TestRebinding(t *testing.T) {
	var hits atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer rcv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rcv.URL, "http://"))
	url := "http://hooks.rebind.example:" + port + "/hook"
	public := []netip.Addr{netip.MustParseAddr("93.184.216.34")}
	for name, then := range map[string][]netip.Addr{
		"loopback":          {netip.MustParseAddr("127.0.0.1")},
		"private addresses": {netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("::ffff:127.0.0.1")},
	} {
		t.Run(name, func(t *testing.T) {
			res := &rebinder{first: public, then: then}
			if msg := checkURL(context.Background(), url, false, res); msg != "" {
				t.Fatalf("at create: %s", msg)
			}
			client := newClient(false, 2*time.Second, res)
			r, err := client.Post(url, "application/json", strings.NewReader(`{}`))
			if err == nil {
				r.Body.Close()
				t.Fatalf("the attempt connected: %d", r.StatusCode)
			}
			if !strings.Contains(err.Error(), "refusing to connect") {
				t.Errorf("error %v, want a refusal", err)
			}
			if res.lookups < 2 {
				t.Errorf("%d lookups: the attempt did not resolve the host again", res.lookups)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the receiver behind the rebound host was called %d times", n)
	}
	// With private addresses allowed (--webhook-allow-private) the guard
	// is off: the receiver is reached.
	r, err := newClient(true, 2*time.Second, &rebinder{}).Post(rcv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if hits.Load() != 1 {
		t.Fatal("allowed private target not called")
	}
}
