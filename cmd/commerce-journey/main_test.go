package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/loader"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestJourney: against the service with the sample catalog, both
// scenarios complete without an error, and the checkout scenario leaves
// captured orders behind (as many as it counted, at least).
func TestJourney(t *testing.T) {
	dir := sample.Dir(t)
	srv := apitest.New(t, testdb.SQLite(t))
	if _, err := loader.Load(t.Context(), dir, loader.Options{URL: srv.URL, Token: srv.Admin, FixSpelling: true}); err != nil {
		t.Fatal(err)
	}
	toks := filepath.Join(t.TempDir(), "tokens")
	var lines []string
	for _, id := range []string{"a", "b"} {
		lines = append(lines, srv.Token(t, commerce.Claims{Subject: "load-" + id, Scopes: []string{commerce.ScopeAPI}, CustomerID: id}))
	}
	if err := os.WriteFile(toks, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"checkout", "add"} {
		var out strings.Builder
		err := run(config{url: srv.URL, admin: srv.Admin, tokens: toks, scenario: sc, c: 2, d: 700 * time.Millisecond, products: 5}, &out)
		t.Log(out.String())
		if err != nil || !strings.Contains(out.String(), "errors 0") || strings.Contains(out.String(), "\t0.0 ") {
			t.Errorf("%s: %v\n%s", sc, err, out.String())
		}
	}
	var paid struct {
		Data []struct{ PaymentStatus string }
	}
	srv.Get(t, "/order/v1/order.list?limit=5", srv.Admin).Must(t).Decode(t, "data", &paid.Data)
	if len(paid.Data) == 0 || paid.Data[0].PaymentStatus != "PAID" {
		t.Errorf("orders after the checkout scenario: %+v, want captured ones", paid.Data)
	}
	// Reads: the paths of a file, with the admin token and an api one.
	paths := filepath.Join(t.TempDir(), "paths")
	if err := os.WriteFile(paths, []byte("/catalog/v1/product.list?limit=5\n\n/catalog/v1/product.search?q=combi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, as := range []string{"admin", "api"} {
		var out strings.Builder
		err := run(config{url: srv.URL, admin: srv.Admin, tokens: toks, scenario: "get", paths: paths, as: as, c: 3, d: 500 * time.Millisecond}, &out)
		if err != nil || !strings.Contains(out.String(), "errors 0") || !strings.Contains(out.String(), "req/s") || strings.Contains(out.String(), "\t0.0 ") {
			t.Errorf("get as %s: %v\n%s", as, err, out.String())
		}
	}
	// A read that fails is counted.
	if err := os.WriteFile(paths, []byte("/catalog/v1/product.info?id=nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(config{url: srv.URL, admin: srv.Admin, tokens: toks, scenario: "get", paths: paths, as: "admin", c: 1, d: 200 * time.Millisecond}, &out); err == nil ||
		!strings.Contains(out.String(), "product_not_found") {
		t.Errorf("get of a missing product: %v\n%s", err, out.String())
	}
	// Bad flags are refused before any request.
	if err := run(config{url: srv.URL, admin: srv.Admin, tokens: toks, scenario: "browse", c: 1}, &strings.Builder{}); err == nil {
		t.Error("an unknown scenario: no error")
	}
	if err := run(config{url: srv.URL, admin: srv.Admin, tokens: toks, scenario: "get", c: 1}, &strings.Builder{}); err == nil {
		t.Error("get without paths: no error")
	}
	if err := run(config{url: srv.URL, admin: srv.Admin, tokens: toks, scenario: "add", c: 3}, &strings.Builder{}); err == nil {
		t.Error("more users than tokens: no error")
	}
}
