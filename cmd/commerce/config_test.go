package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
)

// testSecret is a JWT secret of the required length.
const testSecret = "cmd-test-secret-0123456789abcdef"

// Issue 9 defect 8: a flag beats its environment variable, which is not
// even parsed when the flag is given.
func TestFlagBeatsEnvironment(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"COMMERCE_CART_TTL":        "bogus",
		"COMMERCE_RESERVATION_TTL": "-5m",
		"COMMERCE_ADDR":            "not an address",
		"COMMERCE_DB":              "mysql://nowhere",
		"COMMERCE_JWT_SECRET":      "short",
		"COMMERCE_REGEX_TIMEOUT":   "never",
		"COMMERCE_SQLITE_SYNC":     "off",
		"COMMERCE_DB_MAX_CONNS":    "many",
		"COMMERCE_ACCESS_TTL":      "soon",
		"COMMERCE_REFRESH_TTL":     "a month",

		"COMMERCE_WEBHOOK_ALLOW_PRIVATE": "maybe",
		"COMMERCE_WEBHOOK_RETRY":         "soon",
		"COMMERCE_WEBHOOK_LEASE":         "a while",
	}
	base, stop := startServe(t, []string{"--cart-ttl", "1h", "--reservation-ttl", "30m", "--access-ttl", "10m", "--refresh-ttl", "240h",
		"--db", "sqlite:" + filepath.Join(dir, "c.db"), "--jwt-secret", testSecret, "--regex-timeout", "3s", "--sqlite-sync", "normal", "--db-max-conns", "20",
		"--webhook-allow-private=false", "--webhook-retry", "1s,2s", "--webhook-lease", "30s"}, env)
	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("healthz: got %d", res.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// Without its flag, a bad environment variable is an error naming it.
func TestBadEnvironmentVariable(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"COMMERCE_CART_TTL", "bogus"},
		{"COMMERCE_RESERVATION_TTL", "soon"},
		{"COMMERCE_REGEX_TIMEOUT", "never"},
		{"COMMERCE_SQLITE_SYNC", "off"},
		{"COMMERCE_DB_MAX_CONNS", "many"},
		{"COMMERCE_ACCESS_TTL", "soon"},
		{"COMMERCE_REFRESH_TTL", "a month"},
		{"COMMERCE_WEBHOOK_ALLOW_PRIVATE", "maybe"},
		{"COMMERCE_WEBHOOK_RETRY", "soon"},
		{"COMMERCE_WEBHOOK_LEASE", "a while"},
		{"COMMERCE_MAIL", "pigeon://coop"},
		{"COMMERCE_MAIL_FROM", "not an address"},
		{"COMMERCE_MAIL_TEMPLATES", "/nonexistent/templates"},
		{"COMMERCE_MAIL_RETRY", "soon"},
		{"COMMERCE_MAIL_LEASE", "a while"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{tc.name: tc.value, "COMMERCE_JWT_SECRET": testSecret,
				"COMMERCE_DB": "sqlite:" + filepath.Join(t.TempDir(), "c.db")}
			err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.name) {
				t.Errorf("got %v, want an error naming %s", err, tc.name)
			}
		})
	}
}

// Issue 9 defect 10: serve, token and load refuse a JWT secret under 32
// bytes, from the flag, the environment or the secret file, and say why.
func TestShortSecretRefused(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "data", "c.db")
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "jwt-secret"), []byte("x\n"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"serve flag", []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--jwt-secret", "x"}, nil},
		{"serve env", []string{"serve", "--addr", "127.0.0.1:0", "--db", db}, map[string]string{"COMMERCE_JWT_SECRET": strings.Repeat("s", 31)}},
		{"serve file", []string{"serve", "--addr", "127.0.0.1:0", "--db", db}, nil},
		{"token flag", []string{"token", "--scope", "api", "--db", db, "--jwt-secret", "x"}, nil},
		{"token env", []string{"token", "--scope", "api", "--db", db}, map[string]string{"COMMERCE_JWT_SECRET": "x"}},
		{"token file", []string{"token", "--scope", "api", "--db", db}, nil},
		{"load", []string{"load", "--url", "http://127.0.0.1:1", "--jwt-secret", "x", dir}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A serve that (wrongly) starts stops after a while, to fail
			// rather than hang.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var out bytes.Buffer
			err := run(ctx, tc.args, func(k string) string { return tc.env[k] }, &out, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "at least 32 bytes") {
				t.Fatalf("got %v, want an error saying at least 32 bytes", err)
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", out.String())
			}
		})
	}
	// A generated secret is long enough.
	gen := "sqlite:" + filepath.Join(t.TempDir(), "c.db")
	_, stop := startServe(t, []string{"--db", gen}, nil)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"token", "--scope", "api", "--db", gen}, func(string) string { return "" }, &out, io.Discard); err != nil || out.Len() == 0 {
		t.Errorf("token with the generated secret: %v", err)
	}
}

func TestParseRetry(t *testing.T) {
	got, err := parseRetry("1s, 1s,2s")
	if err != nil || len(got) != 3 || got[0] != time.Second || got[2] != 2*time.Second {
		t.Fatalf("got %v %v", got, err)
	}
	if got, err := parseRetry(""); got != nil || err != nil {
		t.Fatalf("empty: %v %v", got, err)
	}
	for _, bad := range []string{"1s,,2s", "soon", "0s", "-1s", "1s,x"} {
		if _, err := parseRetry(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// COMMERCE_WEBHOOK_ALLOW_PRIVATE lets a webhook target a private address,
// unless --webhook-allow-private=false is given (the flag wins).
func TestWebhookAllowPrivateEnvironment(t *testing.T) {
	keys, err := auth.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := keys.Issue(commerce.Claims{Subject: "ops", Scopes: []string{commerce.ScopeAdmin}}, time.Now(), time.Hour)
	env := map[string]string{"COMMERCE_WEBHOOK_ALLOW_PRIVATE": "true"}
	for _, tc := range []struct {
		name   string
		flags  []string
		status int
	}{
		{"from the environment", nil, 200},
		{"the flag wins", []string{"--webhook-allow-private=false"}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--jwt-secret", testSecret}, tc.flags...)
			base, stop := startServe(t, args, env)
			defer func() {
				if err := stop(); err != nil {
					t.Error(err)
				}
			}()
			status, body, err := post(http.DefaultClient, base+"/event/v1/webhook.create", admin,
				map[string]any{"url": "http://127.0.0.1:9/hook", "channels": "PRODUCTS"})
			if err != nil || status != tc.status {
				t.Fatalf("webhook.create of a loopback URL: %d %s %v, want %d", status, body["error"], err, tc.status)
			}
		})
	}
}

// TestMailSender: --mail's default is a folder mail beside the SQLite file
// (./data/mail with PostgreSQL), created; none sends nothing; smtp and
// smtps URLs are checked without showing their password.
func TestMailSender(t *testing.T) {
	dir := t.TempDir()
	c := config{db: "sqlite:" + filepath.Join(dir, "shop", "c.db")}
	s, where, err := c.mailSender("")
	if err != nil || s == nil || where != "file:"+filepath.Join(dir, "shop", "mail") {
		t.Fatalf("default with SQLite: %v %q %v", s, where, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "shop", "mail")); err != nil || !st.IsDir() {
		t.Errorf("the folder was not created: %v", err)
	}
	pg := config{db: "postgres://u:p@db/shop"}
	t.Chdir(dir)
	if _, where, err := pg.mailSender(""); err != nil || where != "file:"+filepath.Join("data", "mail") {
		t.Errorf("default with PostgreSQL: %q %v", where, err)
	}
	if s, where, err := c.mailSender("none"); s != nil || where != "none" || err != nil {
		t.Errorf("none: %v %q %v", s, where, err)
	}
	if _, where, err := c.mailSender("smtp://user:hunter2@127.0.0.1:1025?tls=required"); err != nil || strings.Contains(where, "hunter2") {
		t.Errorf("smtp: %q %v", where, err)
	}
	for _, bad := range []string{"file:", "smtp://", "smtp://host?tls=sometimes", "pigeon://coop"} {
		if _, _, err := c.mailSender(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
