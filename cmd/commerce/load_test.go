package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
)

// fakeLoadTarget answers every operation with ok, except that it checks the
// bearer token with keys and refuses product sku "bad"; it records the
// claims' subjects it saw.
func fakeLoadTarget(t *testing.T, keys *auth.Keys) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var subs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := keys.Verify(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		if err != nil {
			w.WriteHeader(401)
			io.WriteString(w, `{"ok":false,"error":"invalid_token"}`)
			return
		}
		if !c.IsAdmin() {
			w.WriteHeader(403)
			io.WriteString(w, `{"ok":false,"error":"forbidden"}`)
			return
		}
		mu.Lock()
		subs = append(subs, c.Subject)
		mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"sku":"bad"`)) {
			w.WriteHeader(400)
			io.WriteString(w, `{"ok":false,"error":"validation_error","data":["title: too long"]}`)
			return
		}
		io.WriteString(w, `{"ok":true,"data":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), subs...) }
}

func TestLoadCommand(t *testing.T) {
	work := t.TempDir()
	dataDir := filepath.Join(work, "sample")
	os.Mkdir(dataDir, 0o755)
	os.WriteFile(filepath.Join(dataDir, "dataProducts.jsonl"), []byte(`{"sku":"ok","title":"A","categories":[]}
{"sku":"bad","title":"B","categories":[]}
`), 0o644)
	secretDir := filepath.Join(work, "data")
	os.Mkdir(secretDir, 0o755)
	os.WriteFile(filepath.Join(secretDir, "jwt-secret"), []byte("file-secret-0123456789abcdef0123456789\n"), 0o600)
	dbFlag := "sqlite:" + filepath.Join(secretDir, "commerce.db")

	fileKeys, _ := auth.New([]byte("file-secret-0123456789abcdef0123456789"))
	srv, subjects := fakeLoadTarget(t, fileKeys)
	apiToken, _ := fileKeys.Issue(commerce.Claims{Subject: "api", Scopes: []string{commerce.ScopeAPI}}, time.Now(), time.Hour)
	adminToken, _ := fileKeys.Issue(commerce.Claims{Subject: "given", Scopes: []string{commerce.ScopeAdmin}}, time.Now(), time.Hour)

	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string // "" for success
		wantSub string
	}{
		{"token minted from the secret file, flags after DIR", []string{dataDir, "--url", srv.URL, "--db", dbFlag}, nil, "", "loader"},
		{"url and token from the environment", []string{dataDir}, map[string]string{"COMMERCE_URL": srv.URL, "COMMERCE_TOKEN": adminToken}, "", "given"},
		{"token flag wins over the environment", []string{"--token", adminToken, "--url", srv.URL, dataDir}, map[string]string{"COMMERCE_TOKEN": "junk"}, "", "given"},
		{"token from COMMERCE_JWT_SECRET", []string{"--url", srv.URL, dataDir}, map[string]string{"COMMERCE_JWT_SECRET": "file-secret-0123456789abcdef0123456789", "COMMERCE_DB": "sqlite:" + filepath.Join(work, "none", "x.db")}, "", "loader"},
		{"wrong secret is fatal", []string{"--url", srv.URL, "--jwt-secret", "other-secret-0123456789abcdef0123456789", dataDir}, nil, "refused the token", ""},
		{"api token is fatal", []string{"--url", srv.URL, "--token", apiToken, dataDir}, nil, "admin scope", ""},
		{"no token and no secret", []string{"--url", srv.URL, "--db", "sqlite:" + filepath.Join(work, "none", "x.db"), dataDir}, nil, "no token", ""},
		{"unreachable service", []string{"--url", "http://127.0.0.1:1", "--db", dbFlag, dataDir}, nil, "cannot reach", ""},
		{"no DIR", []string{"--url", srv.URL}, nil, "want one DIR", ""},
		{"two DIRs", []string{dataDir, dataDir}, nil, "want one DIR", ""},
		{"bad stock status", []string{"--stock-status", "3", dataDir}, nil, "--stock-status", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(subjects())
			var out, errOut bytes.Buffer
			err := run(context.Background(), append([]string{"load"}, tc.args...), func(k string) string { return tc.env[k] }, &out, &errOut)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			// A rejected record is reported, not an error.
			if err != nil {
				t.Fatalf("got %v, want success; stderr:\n%s", err, errOut.String())
			}
			if want := "products (dataProducts.jsonl): loaded 1, rejected 1\n" +
				`  line 2 (sku "bad"): validation_error ["title: too long"]` + "\n"; out.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
			}
			if !strings.Contains(errOut.String(), "] 2/2 products\n") {
				t.Errorf("stderr has no progress bar: %q", errOut.String())
			}
			if subs := subjects()[before:]; len(subs) == 0 || subs[0] != tc.wantSub {
				t.Errorf("token subjects %v, want %s", subs, tc.wantSub)
			}
		})
	}
}
