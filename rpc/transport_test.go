package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/rpc"
)

// testSecret is a JWT secret of the required length (auth.MinSecretLen).
const testSecret = "rpc-test-secret-0123456789abcdef"

// records is a slog handler keeping every record, to assert on levels.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

func (r *records) atLeast(l slog.Level) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.list {
		if rec.Level >= l {
			out = append(out, rec.Message)
		}
	}
	return out
}

// Fixture arguments for the transport's checks.
type shapeArgs struct {
	ID     string            `json:"id"`
	Tags   []string          `json:"tags"`
	Meta   map[string]string `json:"meta"`
	Data   json.RawMessage   `json:"data"`
	Any    any               `json:"any"`
	Nested []struct {
		Note string `json:"note"`
	} `json:"nested"`
	List commerce.StringList `json:"list"`
}

// evenLen is a Checker with a pointer receiver: its value must have an even
// number of bytes.
type evenLen string

func (e *evenLen) Check() string {
	if len(*e)%2 != 0 {
		return "must have an even length"
	}
	return ""
}

type patternArgs struct {
	Title    *commerce.Pattern            `json:"title"`
	Patterns []commerce.Pattern           `json:"patterns"`
	ByField  map[string]*commerce.Pattern `json:"byField"`
	Inner    struct {
		Description commerce.Pattern `json:"description"`
	} `json:"inner"`
	Even *evenLen `json:"even"`
}

type transportFixture struct {
	hs    *httptest.Server
	srv   *rpc.Server
	keys  *auth.Keys
	logs  *records
	calls atomic.Int64 // calls of the fixture operations that got past decoding

	slowStarted chan struct{}
	slowDone    chan error
	// broken.create waits for brokenRelease, then fails with the error
	// it receives: a failure that is not the request's cancellation.
	brokenStarted chan struct{}
	brokenRelease chan error
	gotPattern    atomic.Pointer[patternArgs]
}

func newTransportFixture(t *testing.T) *transportFixture {
	t.Helper()
	keys, err := auth.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	f := &transportFixture{keys: keys, logs: &records{}, slowStarted: make(chan struct{}, 1), slowDone: make(chan error, 1),
		brokenStarted: make(chan struct{}, 1), brokenRelease: make(chan error, 1)}
	s := rpc.NewServer(keys, slog.New(f.logs), func(context.Context) error { return nil })
	f.srv = s
	rpc.Handle(s, rpc.Op{Service: "test", Name: "shape.info", Read: true},
		func(ctx context.Context, a *shapeArgs) (any, error) {
			f.calls.Add(1)
			return map[string]any{"id": a.ID}, nil
		})
	rpc.Handle(s, rpc.Op{Service: "test", Name: "pattern.list", Read: true},
		func(ctx context.Context, a *patternArgs) (any, error) {
			f.calls.Add(1)
			f.gotPattern.Store(a)
			return nil, nil
		})
	rpc.Handle(s, rpc.Op{Service: "test", Name: "slow.info", Read: true},
		func(ctx context.Context, a *shapeArgs) (any, error) {
			f.slowStarted <- struct{}{}
			<-ctx.Done()
			// As a store reports a query cut short by the caller.
			err := commerce.Errorf(commerce.EInternal, "query products: %w", ctx.Err())
			f.slowDone <- err
			return nil, err
		})
	rpc.Handle(s, rpc.Op{Service: "test", Name: "broken.create"},
		func(ctx context.Context, a *shapeArgs) (any, error) {
			f.brokenStarted <- struct{}{}
			return nil, <-f.brokenRelease
		})
	rpc.Handle(s, rpc.Op{Service: "test", Name: "panicky.info", Read: true},
		func(ctx context.Context, a *shapeArgs) (any, error) { panic(errFixturePanic) })
	// The same operation name in two services, and one in two versions.
	for _, svc := range []string{"catalog", "tax"} {
		rpc.Handle(s, rpc.Op{Service: svc, Name: "tax.cartTaxes"},
			func(ctx context.Context, a *shapeArgs) (any, error) { return nil, nil })
	}
	rpc.Handle(s, rpc.Op{Service: "promotion", Name: "promotion.create", Versions: []string{"v1", "v2"}, Admin: true},
		func(ctx context.Context, a *shapeArgs) (any, error) { return nil, nil })
	f.hs = httptest.NewServer(s)
	t.Cleanup(f.hs.Close)
	return f
}

func (f *transportFixture) token(t *testing.T, scope string) string {
	t.Helper()
	tok, err := f.keys.Issue(commerce.Claims{Subject: "user-1", Scopes: []string{scope}}, time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (f *transportFixture) metrics(t *testing.T) string {
	t.Helper()
	res, err := http.Get(f.hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func problems(t *testing.T, e envelope) []string {
	t.Helper()
	var data []string
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("data %s is not a list of problems: %v", e.Data, err)
	}
	return data
}

// Issue 9 defect 2: a NUL byte in any string argument, at any depth, in the
// body or the query string, in a value or a field name, is validation_error
// naming the field, and the operation is not called.
func TestNULBytesRejected(t *testing.T) {
	f := newTransportFixture(t)
	tok := f.token(t, "api")
	for _, tc := range []struct {
		name, method, query, body, want string
	}{
		{"query id", "GET", "?id=a%00", "", "id: must not contain a NUL byte"},
		{"query list", "GET", "?tags=a,b%00c", "", "tags[1]: must not contain a NUL byte"},
		{"query string list", "GET", "?list=x,%00", "", "list[1]: must not contain a NUL byte"},
		{"body string list as text", "POST", "", `{"list":"x,\u0000"}`, "list: must not contain a NUL byte"},
		{"body string", "POST", "", `{"id":"a\u0000"}`, "id: must not contain a NUL byte"},
		{"body list", "POST", "", `{"tags":["ok","b\u0000"]}`, "tags[1]: must not contain a NUL byte"},
		{"map value", "POST", "", `{"meta":{"k":"v\u0000"}}`, "meta.k: must not contain a NUL byte"},
		{"map key", "POST", "", `{"meta":{"k\u0000":"v"}}`, "meta: field names must not contain a NUL byte"},
		{"nested struct", "POST", "", `{"nested":[{"note":"x"},{"note":"\u0000"}]}`, "nested[1].note: must not contain a NUL byte"},
		{"opaque JSON", "POST", "", `{"data":{"x":[1,{"y":"\u0000"}]}}`, "data.x[1].y: must not contain a NUL byte"},
		{"opaque JSON key", "POST", "", `{"data":{"a":{"\u0000":1}}}`, "data.a: field names must not contain a NUL byte"},
		{"any", "POST", "", `{"any":["\u0000"]}`, "any[0]: must not contain a NUL byte"},
		{"string list in body", "POST", "", `{"list":["a","\u0000"]}`, "list[1]: must not contain a NUL byte"},
		{"unknown field name", "POST", "", `{"x\u0000":1}`, "field names must not contain a NUL byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.calls.Load()
			status, e, _ := call(t, tc.method, f.hs.URL+"/test/v1/shape.info"+tc.query, tok, tc.body)
			if status != 400 || e.Error != "validation_error" || !slices.Contains(problems(t, e), tc.want) {
				t.Fatalf("got %d %q %s, want 400 validation_error with %q", status, e.Error, e.Data, tc.want)
			}
			if f.calls.Load() != before {
				t.Error("the operation was called with a NUL byte")
			}
		})
	}
	// Text that merely looks like an escape is fine.
	status, e, _ := call(t, "POST", f.hs.URL+"/test/v1/shape.info", tok, `{"id":"a\\u0000","meta":{"k":"\u0001"}}`)
	if status != 200 {
		t.Fatalf("a backslash and a control character other than NUL: got %d %q %s, want 200", status, e.Error, e.Data)
	}
}

// Every decoded value implementing commerce.Checker is checked by the
// transport, with its field path: commerce.Pattern above all.
func TestCheckersChecked(t *testing.T) {
	f := newTransportFixture(t)
	tok := f.token(t, "api")
	long := strings.Repeat("a", commerce.MaxPatternLen+1)
	for _, tc := range []struct {
		name, method, query, body, want string
	}{
		{"invalid pattern in the query", "GET", "?title=(", "", "title: must be a valid regular expression (RE2 syntax)"},
		{"invalid pattern in the body", "POST", "", `{"title":"a[b"}`, "title: must be a valid regular expression (RE2 syntax)"},
		{"long pattern", "POST", "", `{"title":"` + long + `"}`, "title: must be a regular expression of at most 1000 bytes"},
		{"in a list", "POST", "", `{"patterns":["ok","(?P<"]}`, "patterns[1]: must be a valid regular expression (RE2 syntax)"},
		{"in a map", "POST", "", `{"byField":{"sku":"*"}}`, "byField.sku: must be a valid regular expression (RE2 syntax)"},
		{"nested", "POST", "", `{"inner":{"description":"x{2,1}"}}`, "inner.description: must be a valid regular expression (RE2 syntax)"},
		{"pointer receiver", "POST", "", `{"even":"abc"}`, "even: must have an even length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.calls.Load()
			status, e, _ := call(t, tc.method, f.hs.URL+"/test/v1/pattern.list"+tc.query, tok, tc.body)
			found := false
			for _, p := range problems(t, e) {
				found = found || strings.HasPrefix(p, tc.want)
			}
			if status != 400 || e.Error != "validation_error" || !found {
				t.Fatalf("got %d %q %s, want 400 validation_error with %q", status, e.Error, e.Data, tc.want)
			}
			if f.calls.Load() != before {
				t.Error("the operation was called with an invalid value")
			}
		})
	}
	t.Run("every problem at once", func(t *testing.T) {
		status, e, _ := call(t, "POST", f.hs.URL+"/test/v1/pattern.list", tok, `{"title":"(","patterns":["["],"even":"x"}`)
		if got := problems(t, e); status != 400 || len(got) != 3 {
			t.Fatalf("got %d %v, want the three problems", status, got)
		}
	})
	t.Run("valid values reach the operation", func(t *testing.T) {
		status, e, _ := call(t, "GET", f.hs.URL+`/test/v1/pattern.list?title=^bosch$&patterns=a,b`, tok, "")
		if status != 200 {
			t.Fatalf("got %d %q %s, want 200", status, e.Error, e.Data)
		}
		got := f.gotPattern.Load()
		if got == nil || got.Title == nil || *got.Title != "^bosch$" || len(got.Patterns) != 2 {
			t.Fatalf("operation got %+v", got)
		}
		re, err := got.Title.Regexp()
		if err != nil || !re.MatchString("BOSCH") {
			t.Errorf("pattern %q does not match case-insensitively: %v", *got.Title, err)
		}
	})
}

// Issue 9 defect 3: a request whose client went away is counted as 499 and
// logged below ERROR.
func TestClientClosedRequest(t *testing.T) {
	f := newTransportFixture(t)
	tok := f.token(t, "api")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", f.hs.URL+"/test/v1/slow.info", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-f.slowStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("the operation did not start")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: got %v, want context.Canceled", err)
	}
	if err := <-f.slowDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("operation returned %v, want a cause of context.Canceled", err)
	}
	want := `commerce_requests_total{operation="slow.info",service="test",status="499",version="v1"} 1`
	var m string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m = f.metrics(t); strings.Contains(m, `operation="slow.info"`) {
			break
		}
	}
	if !strings.Contains(m, want) {
		t.Errorf("metrics lack %s:\n%s", want, grepLines(m, "commerce_requests_total"))
	}
	if strings.Contains(m, `status="500"`) {
		t.Errorf("a cancelled request counted as 500:\n%s", grepLines(m, "commerce_requests_total"))
	}
	if errs := f.logs.atLeast(slog.LevelError); len(errs) != 0 {
		t.Errorf("logged at ERROR: %v", errs)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Issue 9 defect 9: the service and version are labels of the metrics, so
// operations of the same name in different services or versions are
// separate series. The Go and process collectors are registered.
func TestMetricsLabels(t *testing.T) {
	f := newTransportFixture(t)
	admin := f.token(t, "admin")
	for _, p := range []string{"/catalog/v1/tax.cartTaxes", "/tax/v1/tax.cartTaxes", "/tax/v1/tax.cartTaxes",
		"/promotion/v1/promotion.create", "/services/promotion/v2/promotion.create", "/nowhere/v1/x.y"} {
		call(t, "POST", f.hs.URL+p, admin, "{}")
	}
	m := f.metrics(t)
	for _, want := range []string{
		`commerce_requests_total{operation="tax.cartTaxes",service="catalog",status="200",version="v1"} 1`,
		`commerce_requests_total{operation="tax.cartTaxes",service="tax",status="200",version="v1"} 2`,
		`commerce_requests_total{operation="promotion.create",service="promotion",status="200",version="v1"} 1`,
		`commerce_requests_total{operation="promotion.create",service="promotion",status="200",version="v2"} 1`,
		`commerce_requests_total{operation="unknown",service="unknown",status="404",version="unknown"} 1`,
		`commerce_request_duration_seconds_count{operation="tax.cartTaxes",service="tax",status="200",version="v1"} 2`,
		"go_goroutines ", "go_gc_duration_seconds", "process_cpu_seconds_total ",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// Issue 9 defect 15: nosniff on every response; no-store on every answer
// to a request that carried a token, errors included.
func TestSecurityHeaders(t *testing.T) {
	f := newTransportFixture(t)
	tok := f.token(t, "api")
	for _, tc := range []struct {
		name, method, path, token string
		status                    int
		noStore                   bool
	}{
		{"success with a token", "GET", "/test/v1/shape.info?id=x", tok, 200, true},
		{"validation error with a token", "GET", "/test/v1/shape.info?id=%00", tok, 400, true},
		{"forbidden with a token", "POST", "/promotion/v1/promotion.create", tok, 403, true},
		{"not found with a token", "GET", "/test/v1/nope.info", tok, 404, true},
		{"method not allowed with a token", "DELETE", "/test/v1/shape.info", tok, 405, true},
		{"invalid token", "GET", "/test/v1/shape.info", "garbage", 401, true},
		{"no token", "GET", "/test/v1/shape.info", "", 401, false},
		{"healthz", "GET", "/healthz", "", 200, false},
		{"readyz", "GET", "/readyz", "", 200, false},
		{"metrics", "GET", "/metrics", "", 200, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, f.hs.URL+tc.path, nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Fatalf("got %d, want %d", res.StatusCode, tc.status)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
			}
			if got := res.Header.Get("Cache-Control"); tc.noStore && got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
		})
	}
}

var errFixturePanic = errors.New("fixture panic")

// An operation that panics with an error is an internal error with the
// panic's error in its chain, over HTTP and in process (Call) alike.
func TestPanicErrorChain(t *testing.T) {
	f := newTransportFixture(t)
	_, err := f.srv.Call(context.Background(), commerce.Claims{Subject: "u", Scopes: []string{commerce.ScopeAPI}}, "test/v1/panicky.info", nil)
	if commerce.ErrorCode(err) != commerce.EInternal || !errors.Is(err, errFixturePanic) {
		t.Errorf("Call: got %v, want internal_error with the panic's error in its chain", err)
	}
	status, e, _ := call(t, "GET", f.hs.URL+"/test/v1/panicky.info", f.token(t, "api"), "")
	if status != 500 || e.Error != commerce.EInternal {
		t.Errorf("HTTP: got %d %q, want 500 internal_error", status, e.Error)
	}
}
