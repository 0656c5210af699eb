package rpc_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/rpc"
)

// Fixture operations: they exist only in this test, to exercise the
// transport without any area.
type echoArgs struct {
	ID     string        `json:"id"`
	Name   string        `json:"name"`
	Count  int           `json:"count"`
	Flag   *bool         `json:"flag"`
	Tags   []string      `json:"tags"`
	Amount money.Decimal `json:"amount"`
	Items  []struct {
		Quantity int `json:"quantity"`
	} `json:"items"`
}

type listArgs struct {
	IDs commerce.StringList `json:"id"`
}

type failArgs struct {
	Code string `json:"code"`
}

func newServer(t *testing.T) (*httptest.Server, *auth.Keys) {
	t.Helper()
	keys, err := auth.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	ready := func(context.Context) error { return nil }
	s := rpc.NewServer(keys, slog.New(slog.DiscardHandler), ready)
	rpc.Handle(s, rpc.Op{Service: "test", Name: "echo.info", Read: true},
		func(ctx context.Context, a *echoArgs) (any, error) {
			c, _ := commerce.ClaimsFrom(ctx)
			return map[string]any{"args": a, "sub": c.Subject}, nil
		})
	rpc.Handle(s, rpc.Op{Service: "test", Name: "echo.create", Admin: true},
		func(ctx context.Context, a *echoArgs) (any, error) { return map[string]any{"args": a}, nil })
	rpc.Handle(s, rpc.Op{Service: "test", Name: "echo.versioned", Versions: []string{"v1", "v2"}},
		func(ctx context.Context, a *echoArgs) (any, error) { return nil, nil })
	rpc.Handle(s, rpc.Op{Service: "test", Name: "echo.list", Read: true},
		func(ctx context.Context, a *listArgs) (any, error) { return map[string]any{"n": len(a.IDs)}, nil })
	rpc.Handle(s, rpc.Op{Service: "test", Name: "echo.fail"},
		func(ctx context.Context, a *failArgs) (any, error) {
			if a.Code == "boom" {
				return nil, io.ErrUnexpectedEOF // not a *commerce.Error: internal
			}
			if a.Code == "panic" {
				panic("fixture panic")
			}
			return nil, commerce.NewError(a.Code, "some-data")
		})
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs, keys
}

func token(t *testing.T, keys *auth.Keys, ttl time.Duration, scopes ...string) string {
	t.Helper()
	tok, err := keys.Issue(commerce.Claims{Subject: "user-1", Scopes: scopes}, time.Now(), ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type envelope struct {
	OK    bool            `json:"ok"`
	Error string          `json:"error"`
	Data  json.RawMessage `json:"data"`
	Args  echoArgs        `json:"args"`
	Sub   string          `json:"sub"`
}

func call(t *testing.T, method, url, tok, body string) (int, envelope, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var e envelope
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("body is not a JSON envelope: %s", raw)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	return res.StatusCode, e, res.Header
}

func TestStatusTable(t *testing.T) {
	hs, keys := newServer(t)
	admin := token(t, keys, time.Hour, "admin")
	for _, tc := range []struct {
		code   string
		status int
	}{
		{"validation_error", 400}, {"max_categories_per_product_reached", 400}, {"not_enough_stock", 400},
		{"product_not_found", 404}, {"cart_not_found", 404}, {"tax_not_found", 404},
		{"shipping_address_not_set", 400}, {"shipping_address_notset", 400}, {"variation_data_not_found", 400},
		{"duplicate_key", 409}, {"product_not_saved", 409}, {"concurrent_modification", 409},
		{"unavailable", 503},
	} {
		t.Run(tc.code, func(t *testing.T) {
			status, e, _ := call(t, "POST", hs.URL+"/test/v1/echo.fail", admin, `{"code":"`+tc.code+`"}`)
			if status != tc.status || e.OK || e.Error != tc.code {
				t.Fatalf("got %d %v %q, want %d false %q", status, e.OK, e.Error, tc.status, tc.code)
			}
			wantData := `"some-data"`
			if tc.code == "unavailable" {
				wantData = "" // no internals
			}
			if string(e.Data) != wantData {
				t.Errorf("data = %s, want %s", e.Data, wantData)
			}
		})
	}
	t.Run("internal_error hides details", func(t *testing.T) {
		for _, c := range []string{"boom", "panic"} {
			status, e, _ := call(t, "POST", hs.URL+"/test/v1/echo.fail", admin, `{"code":"`+c+`"}`)
			if status != 500 || e.Error != "internal_error" || len(e.Data) != 0 {
				t.Fatalf("%s: got %d %q data %s, want 500 internal_error without data", c, status, e.Error, e.Data)
			}
		}
	})
	t.Run("operation_not_found", func(t *testing.T) {
		for _, path := range []string{"/test/v1/nope.info", "/test/v3/echo.info", "/other/v1/echo.info", "/test/v2/echo.info", "/", "/test/v1/echo.info/x"} {
			status, e, _ := call(t, "POST", hs.URL+path, admin, "")
			if status != 404 || e.Error != "operation_not_found" {
				t.Errorf("%s: got %d %q, want 404 operation_not_found", path, status, e.Error)
			}
		}
	})
	t.Run("method_not_allowed", func(t *testing.T) {
		status, e, h := call(t, "GET", hs.URL+"/test/v1/echo.create", admin, "")
		if status != 405 || e.Error != "method_not_allowed" || h.Get("Allow") != "POST" {
			t.Errorf("GET on write op: got %d %q Allow %q", status, e.Error, h.Get("Allow"))
		}
		status, e, _ = call(t, "DELETE", hs.URL+"/test/v1/echo.info", admin, "")
		if status != 405 || e.Error != "method_not_allowed" {
			t.Errorf("DELETE on read op: got %d %q", status, e.Error)
		}
	})
}

func TestPrefixesAndVersions(t *testing.T) {
	hs, keys := newServer(t)
	api := token(t, keys, time.Hour, "api")
	for _, path := range []string{"/test/v1/echo.info", "/services/test/v1/echo.info", "/test/v1/echo.versioned", "/test/v2/echo.versioned", "/services/test/v2/echo.versioned"} {
		for _, method := range []string{"GET", "POST"} {
			if method == "GET" && strings.Contains(path, "versioned") {
				continue
			}
			status, e, _ := call(t, method, hs.URL+path+"?id=x", api, "")
			if status != 200 || !e.OK {
				t.Errorf("%s %s: got %d %+v, want 200 ok", method, path, status, e)
			}
		}
	}
}

func TestArgumentMerge(t *testing.T) {
	hs, keys := newServer(t)
	api := token(t, keys, time.Hour, "api")
	t.Run("query converted to types", func(t *testing.T) {
		status, e, _ := call(t, "GET", hs.URL+"/test/v1/echo.info?id=p1&count=10&flag=true&tags=a,b,,c&amount=577.65&unknown=1", api, "")
		if status != 200 {
			t.Fatalf("got %d %s", status, e.Error)
		}
		if e.Args.ID != "p1" || e.Args.Count != 10 || e.Args.Flag == nil || !*e.Args.Flag || !slices.Equal(e.Args.Tags, []string{"a", "b", "c"}) {
			t.Errorf("got %+v", e.Args)
		}
		if e.Args.Amount != (money.Decimal{Units: 57765, Scale: 2}) {
			t.Errorf("amount = %v, want 577.65", e.Args.Amount)
		}
		if e.Sub != "user-1" {
			t.Errorf("claims sub = %q, want user-1", e.Sub)
		}
	})
	t.Run("body wins over query", func(t *testing.T) {
		_, e, _ := call(t, "POST", hs.URL+"/test/v1/echo.info?id=fromquery&name=q", api, `{"id":"frombody"}`)
		if e.Args.ID != "frombody" || e.Args.Name != "q" {
			t.Errorf("got id %q name %q, want frombody and q", e.Args.ID, e.Args.Name)
		}
	})
	t.Run("a list of objects in the query string", func(t *testing.T) {
		status, e, _ := call(t, "GET", hs.URL+`/test/v1/echo.info?items=[{"quantity":2},{"quantity":3}]`, api, "")
		if status != 200 || len(e.Args.Items) != 2 || e.Args.Items[1].Quantity != 3 {
			t.Errorf("got %d %+v, want the two items", status, e.Args.Items)
		}
	})
	t.Run("string field keeps digits", func(t *testing.T) {
		_, e, _ := call(t, "GET", hs.URL+"/test/v1/echo.info?id=00123", api, "")
		if e.Args.ID != "00123" {
			t.Errorf("id = %q, want 00123", e.Args.ID)
		}
	})
	for _, tc := range []struct {
		name, url, body, want string
	}{
		{"unknown body field", "/test/v1/echo.info", `{"id":"x","isPercentaje":true}`, "isPercentaje: unknown field"},
		{"field name in another case", "/test/v1/echo.info", `{"ID":"x"}`, "ID: unknown field"},
		{"nested unknown field with its path", "/test/v1/echo.info", `{"items":[{"quantity":1},{"quantity":1,"qty":2}]}`, "items[1].qty: unknown field"},
		{"bad query number", "/test/v1/echo.info?count=ten", "", "count: must be an integer"},
		{"bad query bool", "/test/v1/echo.info?flag=maybe", "", "flag: must be a boolean"},
		{"nested type error path", "/test/v1/echo.info", `{"items":[{"quantity":1},{"quantity":1},{"quantity":"x"}]}`, "items[2].quantity: must be an integer"},
		{"not JSON", "/test/v1/echo.info", `{"id":`, "body: not valid JSON"},
		{"not an object", "/test/v1/echo.info", `[1,2]`, "body: must be a JSON object"},
		{"trailing data", "/test/v1/echo.info", `{"id":"a"} {"id":"b"}`, "body: unexpected data after the JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, e, _ := call(t, "POST", hs.URL+tc.url, api, tc.body)
			var data []string
			json.Unmarshal(e.Data, &data)
			if status != 400 || e.Error != "validation_error" || !slices.Contains(data, tc.want) {
				t.Errorf("got %d %q %v, want 400 validation_error with %q", status, e.Error, data, tc.want)
			}
		})
	}
}

func TestListLimit(t *testing.T) {
	hs, keys := newServer(t)
	api := token(t, keys, time.Hour, "api")
	ids := strings.Repeat("x,", 1000) + "x"
	for _, tc := range []struct{ name, method, query, body string }{
		{"query", "GET", "?id=" + ids, ""},
		{"body string", "POST", "", `{"id":"` + ids + `"}`},
		{"body array", "POST", "", `{"id":["` + strings.Repeat(`x","`, 1000) + `x"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, e, _ := call(t, tc.method, hs.URL+"/test/v1/echo.list"+tc.query, api, tc.body)
			var data []string
			json.Unmarshal(e.Data, &data)
			if status != 400 || !slices.Contains(data, "id: at most 1000 values") {
				t.Errorf("1001 values: got %d %s, want validation_error naming id", status, e.Data)
			}
		})
	}
	if status, e, _ := call(t, "GET", hs.URL+"/test/v1/echo.list?id="+strings.Repeat("x,", 999)+"x", api, ""); status != 200 {
		t.Errorf("1000 values: got %d %s, want 200", status, e.Error)
	}
}

func TestAuth(t *testing.T) {
	hs, keys := newServer(t)
	other, _ := auth.New([]byte("another-rpc-test-secret-0123456789"))
	wrongSecret := token(t, other, time.Hour, "admin")
	expired := token(t, keys, -time.Minute, "admin")
	noExp := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4Iiwic2NvcGUiOiJhZG1pbiJ9.invalid"
	// Signed with the server's secret, valid but for exp given as a
	// string (issue 27 defect 5: RFC 7519 wants a NumericDate).
	stringExp, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "x", "scope": "admin",
		"exp": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}).SignedString([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, header string
		status       int
		code         string
	}{
		{"missing", "", 401, "invalid_token"},
		{"not bearer", "Basic abc", 401, "invalid_token"},
		{"garbage", "Bearer garbage", 401, "invalid_token"},
		{"expired", "Bearer " + expired, 401, "invalid_token"},
		{"wrong secret", "Bearer " + wrongSecret, 401, "invalid_token"},
		{"no exp", "Bearer " + noExp, 401, "invalid_token"},
		{"exp a string", "Bearer " + stringExp, 401, "invalid_token"},
		{"api on admin op", "Bearer " + token(t, keys, time.Hour, "api"), 403, "forbidden"},
		{"no known scope", "Bearer " + token(t, keys, time.Hour, "reader"), 403, "forbidden"},
		{"admin", "Bearer " + token(t, keys, time.Hour, "admin"), 200, ""},
		{"lower-case scheme", "bearer " + token(t, keys, time.Hour, "api", "admin"), 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", hs.URL+"/test/v1/echo.create", strings.NewReader(`{}`))
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var e envelope
			json.NewDecoder(res.Body).Decode(&e)
			if res.StatusCode != tc.status || e.Error != tc.code {
				t.Errorf("got %d %q, want %d %q", res.StatusCode, e.Error, tc.status, tc.code)
			}
		})
	}
	t.Run("expired token with no exp claim is rejected without signature", func(t *testing.T) {
		// A token without exp, properly signed.
		tok, _ := keys.Issue(commerce.Claims{Subject: "x", Scopes: []string{"admin"}}, time.Now(), time.Hour)
		if _, err := keys.Verify(tok); err != nil {
			t.Fatalf("valid token rejected: %v", err)
		}
	})
	t.Run("auth checked before body size and parse", func(t *testing.T) {
		status, e, _ := call(t, "POST", hs.URL+"/test/v1/echo.create", "", strings.Repeat("x", rpc.MaxBody+10))
		if status != 401 || e.Error != "invalid_token" {
			t.Errorf("got %d %q, want 401 invalid_token", status, e.Error)
		}
	})
}

func TestBodyLimit(t *testing.T) {
	hs, keys := newServer(t)
	admin := token(t, keys, time.Hour, "admin")
	big := `{"name":"` + strings.Repeat("x", rpc.MaxBody) + `"}`
	status, e, _ := call(t, "POST", hs.URL+"/test/v1/echo.create", admin, big)
	if status != 413 || e.Error != "request_too_large" {
		t.Errorf("got %d %q, want 413 request_too_large", status, e.Error)
	}
	// Without Content-Length (chunked), the limit still holds.
	pr, pw := io.Pipe()
	go func() { pw.Write([]byte(big)); pw.Close() }()
	req, _ := http.NewRequest("POST", hs.URL+"/test/v1/echo.create", pr)
	req.Header.Set("Authorization", "Bearer "+admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 413 {
		t.Errorf("chunked: got %d, want 413", res.StatusCode)
	}
	just := `{"name":"` + strings.Repeat("x", rpc.MaxBody-12) + `"}`
	if status, e, _ := call(t, "POST", hs.URL+"/test/v1/echo.create", admin, just); status != 200 {
		t.Errorf("body of exactly 1 MiB: got %d %q, want 200", status, e.Error)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	hs, keys := newServer(t)
	call(t, "GET", hs.URL+"/test/v1/echo.info", token(t, keys, time.Hour, "api"), "")
	for _, p := range []string{"/healthz", "/readyz"} {
		status, e, _ := call(t, "GET", hs.URL+p, "", "")
		if status != 200 || !e.OK {
			t.Errorf("%s: got %d %+v", p, status, e)
		}
	}
	res, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, want := range []string{`commerce_requests_total{operation="echo.info",service="test",status="200",version="v1"} 1`, `commerce_request_duration_seconds_bucket{operation="echo.info",service="test",status="200",version="v1"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestNotReady(t *testing.T) {
	keys, _ := auth.New([]byte(testSecret))
	s := rpc.NewServer(keys, slog.New(slog.DiscardHandler), func(context.Context) error { return io.EOF })
	hs := httptest.NewServer(s)
	defer hs.Close()
	status, e, _ := call(t, "GET", hs.URL+"/readyz", "", "")
	if status != 503 || e.Error != "unavailable" {
		t.Errorf("got %d %q, want 503 unavailable", status, e.Error)
	}
}
