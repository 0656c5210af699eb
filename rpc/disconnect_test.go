package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
)

// memIdempotency is an IdempotencyStore that lets every request run and
// remembers what became of its key.
type memIdempotency struct {
	mu       sync.Mutex
	finished []int // statuses stored
	aborted  int
}

func (m *memIdempotency) Begin(context.Context, string, string, string, time.Time) (int, []byte, error) {
	return 0, nil, nil
}

func (m *memIdempotency) Finish(_ context.Context, _, _ string, status int, _ []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finished = append(m.finished, status)
	return nil
}

func (m *memIdempotency) Abort(context.Context, string, string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.aborted++
	return nil
}

// waitMetric waits until the metrics count a request of the operation and
// returns the commerce_requests_total lines.
func (f *transportFixture) waitMetric(t *testing.T, op string) string {
	t.Helper()
	var m string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m = grepLines(f.metrics(t), "commerce_requests_total"); strings.Contains(m, `operation="`+op+`"`) {
			return m
		}
	}
	t.Fatalf("no request of %s counted:\n%s", op, m)
	return ""
}

// A genuine failure of an operation is a server error even when the client
// has gone by the time it is answered: only the request's own cancellation
// in the error's chain makes a 499. Under an idempotency key the run is
// detached from the request, so not even a cancellation in its chain is
// the client's doing.
func TestFailureWhileClientGoneIsServerError(t *testing.T) {
	for _, tc := range []struct {
		name       string
		idempotent bool
		err        error
		want       int
		log        string
	}{
		{"internal", false, commerce.Errorf(commerce.EInternal, "disk on fire"), 500, "internal error"},
		{"unavailable", false, commerce.Errorf(commerce.EUnavailable, "database restarting"), 503, "storage unavailable"},
		{"idempotent internal", true, commerce.Errorf(commerce.EInternal, "disk on fire"), 500, "internal error"},
		{"idempotent run's own cancellation", true,
			commerce.Errorf(commerce.EInternal, "provider call: %w", context.Canceled), 500, "internal error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newTransportFixture(t)
			idem := &memIdempotency{}
			if tc.idempotent {
				f.srv.SetIdempotency(idem, nil)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := httptest.NewRequestWithContext(ctx, "POST", "/test/v1/broken.create", strings.NewReader(`{"id":"x"}`))
			req.Header.Set("Authorization", "Bearer "+f.token(t, "api"))
			if tc.idempotent {
				req.Header.Set("Idempotency-Key", "k-1")
			}
			rec := httptest.NewRecorder()
			done := make(chan struct{})
			go func() {
				defer close(done)
				f.srv.ServeHTTP(rec, req)
			}()
			<-f.brokenStarted
			cancel() // the client goes away while the operation runs
			f.brokenRelease <- tc.err
			<-done
			if rec.Code != tc.want {
				t.Errorf("answered %d %s, want %d", rec.Code, rec.Body, tc.want)
			}
			m := f.waitMetric(t, "broken.create")
			if want := `status="` + strconv.Itoa(tc.want) + `"`; !strings.Contains(m, want) || strings.Contains(m, `status="499"`) {
				t.Errorf("metrics lack %s (or count 499):\n%s", want, m)
			}
			if errs := f.logs.atLeast(slog.LevelError); !slices.Contains(errs, tc.log) {
				t.Errorf("logged at ERROR %q, want %q", errs, tc.log)
			}
			if tc.idempotent && (idem.aborted != 1 || len(idem.finished) != 0) {
				t.Errorf("key aborted %d times, answers stored %v: want the key released, nothing stored", idem.aborted, idem.finished)
			}
		})
	}
}

// rawRequest sends head and body on a new connection to the fixture's
// server; with cut, it closes the connection right after (the client goes
// away during the upload) and returns nil, else it returns the answer.
func rawRequest(t *testing.T, f *transportFixture, head, body string, cut bool) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", f.hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	if cut {
		return nil
	}
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// A client that disconnects during the body upload closed its request (499,
// logged below ERROR); a body that arrives whole but malformed is still the
// client's error (400 validation_error).
func TestBodyUploadCutShort(t *testing.T) {
	t.Run("disconnect during upload", func(t *testing.T) {
		f := newTransportFixture(t)
		head := "POST /test/v1/shape.info HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + f.token(t, "api") +
			"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
		rawRequest(t, f, head, `{"id":`, true)
		m := f.waitMetric(t, "shape.info")
		if !strings.Contains(m, `status="499"`) || strings.Contains(m, `status="400"`) {
			t.Errorf("want the cut upload counted as 499, not 400:\n%s", m)
		}
		if errs := f.logs.atLeast(slog.LevelError); len(errs) != 0 {
			t.Errorf("logged at ERROR: %v", errs)
		}
		if n := f.calls.Load(); n != 0 {
			t.Errorf("the operation ran %d times", n)
		}
	})
	t.Run("malformed chunked body", func(t *testing.T) {
		f := newTransportFixture(t)
		head := "POST /test/v1/shape.info HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + f.token(t, "api") +
			"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
		res := rawRequest(t, f, head, "zz\r\n{}\r\n0\r\n\r\n", false)
		raw, _ := io.ReadAll(res.Body)
		var e envelope
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("answer %d %q is not an envelope", res.StatusCode, raw)
		}
		if res.StatusCode != 400 || e.Error != commerce.EValidation || !strings.Contains(string(e.Data), "body: could not be read") {
			t.Errorf("got %d %s, want 400 validation_error body: could not be read", res.StatusCode, raw)
		}
		if m := f.waitMetric(t, "shape.info"); !strings.Contains(m, `status="400"`) {
			t.Errorf("want 400 counted:\n%s", m)
		}
	})
}
