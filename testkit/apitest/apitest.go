// Package apitest runs the whole service over a test database behind
// httptest and calls it as a client would, for black-box API tests.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/sqldb"
)

// Secret is the JWT secret of test servers.
const Secret = "test-secret-0123456789abcdef0123456789"

// Server is a running service. Every request that reaches URL, from Do or
// from any other client, and its response must match /openapi.json: a
// mismatch fails the test that started the server.
type Server struct {
	URL  string
	DB   *sqldb.DB
	App  *app.App
	Keys *auth.Keys
	// Admin and API are tokens with the admin and the api scope.
	Admin, API string

	badInput bool // requests deliberately off the document (BadInput)
}

// New starts the service over db, with its background work, both stopped
// at the end of the test. opts may adjust the app options (clock, ...).
func New(t testing.TB, db *sqldb.DB, opts ...func(*app.Options)) *Server {
	t.Helper()
	s, _ := Start(t, db, opts...)
	return s
}

// Start is New that also returns a function stopping the service before
// the test ends (a restart; calling it again does nothing).
func Start(t testing.TB, db *sqldb.DB, opts ...func(*app.Options)) (*Server, func()) {
	t.Helper()
	keys, err := auth.New([]byte(Secret))
	if err != nil {
		t.Fatal(err)
	}
	o := app.Options{DB: db, Keys: keys, ViewedFlush: 50 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	a, err := app.New(o)
	if err != nil {
		t.Fatal(err)
	}
	// Every exchange with the server is checked against /openapi.json.
	hs := httptest.NewServer(checking(t, a.Handler(), a.RPC().Arguments))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	var once sync.Once
	stop := func() { once.Do(func() { hs.Close(); cancel(); <-done }) }
	t.Cleanup(stop)
	s := &Server{URL: hs.URL, DB: db, App: a, Keys: keys}
	s.Admin = s.Token(t, commerce.Claims{Subject: "admin-user", Scopes: []string{commerce.ScopeAdmin}})
	s.API = s.Token(t, commerce.Claims{Subject: "api-user", Scopes: []string{commerce.ScopeAPI}})
	return s, stop
}

// Token returns a token for the claims, valid for an hour.
func (s *Server) Token(t testing.TB, c commerce.Claims) string {
	t.Helper()
	tok, err := s.Keys.Issue(c, time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Response is a decoded envelope.
type Response struct {
	Status int
	OK     bool            `json:"ok"`
	Error  string          `json:"error"`
	Data   json.RawMessage `json:"data"`
	// Body is the whole JSON body, for operation-specific properties.
	Body map[string]json.RawMessage
	Raw  []byte
}

// Do sends method to path (with query) with the token and a body (nil, a
// []byte or string sent as is, or a value marshaled to JSON). The request
// and the response must match /openapi.json (the server's middleware
// checks them; see BadInput).
func (s *Server) Do(t testing.TB, method, path, token string, body any) Response {
	t.Helper()
	return s.DoHeader(t, method, path, token, nil, body)
}

// DoHeader is Do with more request headers (Accept-Language, ...).
func (s *Server) DoHeader(t testing.TB, method, path, token string, header http.Header, body any) Response {
	t.Helper()
	var payload []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		payload = b
	case string:
		payload = []byte(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		payload = j
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if s.badInput {
		req.Header.Set(badInputHeader, "1")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := Response{Status: res.StatusCode, Raw: raw}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s %s: body is not JSON (status %d): %s", method, path, res.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %s", method, path, raw)
	}
	return r
}

// Post sends a POST with a JSON body.
func (s *Server) Post(t testing.TB, path, token string, body any) Response {
	t.Helper()
	return s.Do(t, http.MethodPost, path, token, body)
}

// Get sends a GET.
func (s *Server) Get(t testing.TB, path, token string) Response {
	t.Helper()
	return s.Do(t, http.MethodGet, path, token, nil)
}

// Must fails the test unless the response is ok, and returns it.
func (r Response) Must(t testing.TB) Response {
	t.Helper()
	if !r.OK || r.Status != http.StatusOK {
		t.Fatalf("got status %d %s, want 200 ok: %s", r.Status, r.Error, r.Raw)
	}
	return r
}

// Expect fails the test unless the response is the error code with status.
func (r Response) Expect(t testing.TB, status int, code string) Response {
	t.Helper()
	if r.OK || r.Status != status || r.Error != code {
		t.Fatalf("got status %d error %q, want %d %q: %s", r.Status, r.Error, status, code, r.Raw)
	}
	return r
}

// Decode unmarshals the property name of the body into v.
func (r Response) Decode(t testing.TB, name string, v any) {
	t.Helper()
	raw, ok := r.Body[name]
	if !ok {
		t.Fatalf("response has no %q: %s", name, r.Raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %q: %v: %s", name, err, raw)
	}
}
