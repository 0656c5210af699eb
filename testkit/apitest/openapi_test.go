package apitest_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestDocumentValid checks /openapi.json with a standard OpenAPI 3.1
// validator (libopenapi-validator against the 3.1 meta-schema) and that
// it lists every registered operation, reads with GET and POST, writes
// with POST only.
func TestDocumentValid(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	raw, v := s.Document(t)
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, f := range e.SchemaValidationErrors {
				t.Errorf("  %s at %s (%s)", f.Reason, f.FieldPath, f.KeywordLocation)
			}
		}
		t.FailNow()
	}
	var d struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", d.OpenAPI)
	}
	ops := s.App.RPC().Operations()
	if len(ops) < 40 {
		t.Fatalf("only %d operations registered", len(ops))
	}
	for path, read := range ops {
		item, ok := d.Paths[path]
		if !ok {
			t.Errorf("%s: registered, not in the document", path)
			continue
		}
		_, get := item["get"]
		if _, post := item["post"]; !post || get != read {
			t.Errorf("%s: methods %v, want POST and GET=%v", path, keys(item), read)
		}
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/oauth/token", "/webhooks/stripe", "/openapi.json", "/docs"} {
		if _, ok := d.Paths[p]; !ok {
			t.Errorf("%s: not in the document", p)
		}
	}
	for path := range d.Paths {
		if strings.HasPrefix(path, "/services/") {
			t.Errorf("%s: the /services alias is a server, not a copy of the paths", path)
		}
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestDocumentServed: /openapi.json and /docs need no token and are not
// operations (a token is not even looked at).
func TestDocumentServed(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	for _, tc := range []struct{ path, ctype, want string }{
		{"/openapi.json", "application/json", `"openapi": "3.1.0"`},
		{"/docs", "text/html", "<html"},
	} {
		res, err := http.Get(s.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = io.Copy(&b, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), tc.ctype) || !strings.Contains(b.String(), tc.want) {
			t.Errorf("GET %s: %d %s, want 200 %s containing %q", tc.path, res.StatusCode, res.Header.Get("Content-Type"), tc.ctype, tc.want)
		}
	}
}

// TestDocumentGolden: clients/typescript/openapi.json, from which the
// TypeScript types are generated, is the document the service publishes.
// `make openapi` (UPDATE_OPENAPI=1) rewrites it.
func TestDocumentGolden(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	raw, _ := s.Document(t)
	path := filepath.Join("..", "..", "clients", "typescript", "openapi.json")
	if os.Getenv("UPDATE_OPENAPI") != "" {
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, want) {
		t.Fatalf("%s is not the document the service publishes: run `make openapi`", path)
	}
}

// TestEveryErrorCodeDocumented: every error code of the service (the
// constants of error.go) is listed by at least one operation of the
// document, with its status, except the two that answer paths and methods
// the document does not list.
func TestEveryErrorCodeDocumented(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	raw, _ := s.Document(t)
	var d struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "error.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for i, name := range spec.(*ast.ValueSpec).Names {
				lit, ok := spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit)
				if !ok || !strings.HasPrefix(name.Name, "E") {
					continue
				}
				code, _ := strconv.Unquote(lit.Value)
				n++
				if code == commerce.EOperationNotFound || code == commerce.EMethodNotAllowed {
					continue
				}
				if _, ok := d.Components.Schemas["error."+code]; !ok {
					t.Errorf("%s (%s): no operation of /openapi.json lists it", code, name.Name)
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d error codes found in error.go", n)
	}
}
