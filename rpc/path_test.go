package rpc_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/rpc"
)

// fixturePath is a PathHandler that answers 201, or panics when asked to.
type fixturePath struct{}

func (fixturePath) Serve(w http.ResponseWriter, r *http.Request) int {
	if r.URL.Query().Get("panic") != "" {
		panic("fixture panic")
	}
	w.WriteHeader(http.StatusCreated)
	return http.StatusCreated
}

func (fixturePath) Fail(w http.ResponseWriter, _ *http.Request) int {
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(`{"error":"server_error"}`))
	return http.StatusInternalServerError
}

// TestHandlePath: a path served outside the operations' envelope gets what
// every operation gets: a panic is recovered and answered (the handler's
// own shape), and requests are counted in the metrics with the path's
// service and operation (version "").
func TestHandlePath(t *testing.T) {
	keys, err := auth.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	s := rpc.NewServer(keys, slog.New(slog.DiscardHandler), func(context.Context) error { return nil })
	s.HandlePath("/fixture/path", "fixture", "fixture.path", fixturePath{})
	hs := httptest.NewServer(s)
	defer hs.Close()

	get := func(url string) (int, string) {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if st, _ := get(hs.URL + "/fixture/path"); st != http.StatusCreated {
		t.Errorf("status %d, want 201", st)
	}
	if st, body := get(hs.URL + "/fixture/path?panic=1"); st != http.StatusInternalServerError || body != `{"error":"server_error"}` {
		t.Errorf("after a panic: %d %s, want 500 in the handler's shape", st, body)
	}
	// The metrics are counted once the answer is sent: wait for them.
	want := []string{
		`commerce_requests_total{operation="fixture.path",service="fixture",status="201",version=""} 1`,
		`commerce_requests_total{operation="fixture.path",service="fixture",status="500",version=""} 1`,
		`commerce_request_duration_seconds_count{operation="fixture.path",service="fixture",status="201",version=""} 1`,
	}
	var m string
	for range 200 {
		_, m = get(hs.URL + "/metrics")
		if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(m, w) }) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, w := range want {
		if !strings.Contains(m, w) {
			t.Errorf("metrics lack %s:\n%s", w, grepLines(m, "fixture"))
		}
	}
}
