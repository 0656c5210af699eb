package stripe_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// request is what a test server saw of one request.
type request struct {
	Method, Path   string
	Form           url.Values
	IdempotencyKey string
	Authorization  string
}

// recorder is a local HTTP server that records the requests it gets and
// hands them to next (stripe-mock through a reverse proxy, or a handler
// answering as Stripe does).
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newRecorder(t *testing.T, next http.HandlerFunc) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, request{Method: r.Method, Path: r.URL.Path, Form: form,
			IdempotencyKey: r.Header.Get("Idempotency-Key"), Authorization: r.Header.Get("Authorization")})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.Close)
	return rec
}

// proxyTo returns a recorder in front of the server at target.
func proxyTo(t *testing.T, target string) *recorder {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return newRecorder(t, httputil.NewSingleHostReverseProxy(u).ServeHTTP)
}

// requests returns the requests seen since the last call and forgets them.
func (rec *recorder) requests() []request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	r := rec.reqs
	rec.reqs = nil
	return r
}
