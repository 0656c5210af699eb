package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/auth"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var readyRE = regexp.MustCompile(`commerce ready"? addr=(\S+)`)

// startServe runs `serve` in-process on a free port and returns its base URL
// and a stop function that returns run's error.
func startServe(t *testing.T, args []string, env map[string]string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, io.Discard, &stderr)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := readyRE.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1], func() error { cancel(); return <-errc }
		}
		select {
		case err := <-errc:
			t.Fatalf("serve exited: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not get ready:\n%s", stderr.String())
	return "", nil
}

func TestServeTokenAndShutdown(t *testing.T) {
	dir := t.TempDir()
	dbFlag := "sqlite:" + filepath.Join(dir, "data", "commerce.db")
	base, stop := startServe(t, []string{"--db", dbFlag}, nil)

	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("healthz: got %d", res.StatusCode)
	}

	// token prints the token and nothing else, signed with the secret
	// serve generated next to the database.
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"token", "--scope", "admin", "--db", dbFlag, "--sub", "alice"}, func(string) string { return "" }, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSuffix(out.String(), "\n")
	if strings.ContainsAny(tok, " \n") || strings.Count(tok, ".") != 2 {
		t.Fatalf("token output is not just a JWT: %q", out.String())
	}
	secret, err := os.ReadFile(filepath.Join(dir, "data", "jwt-secret"))
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := auth.New(bytes.TrimSpace(secret))
	c, err := keys.Verify(tok)
	if err != nil || c.Subject != "alice" || !c.IsAdmin() {
		t.Fatalf("token claims %+v, %v", c, err)
	}

	req, _ := http.NewRequest("GET", base+"/event/v1/event.list", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		OK   bool              `json:"ok"`
		Data []json.RawMessage `json:"data"`
	}
	json.NewDecoder(res.Body).Decode(&body)
	res.Body.Close()
	if res.StatusCode != 200 || !body.OK {
		t.Fatalf("event.list: got %d %+v", res.StatusCode, body)
	}

	if err := stop(); err != nil {
		t.Fatalf("serve returned %v on shutdown, want nil", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"COMMERCE_DB":         "sqlite:" + filepath.Join(dir, "env.db"),
		"COMMERCE_JWT_SECRET": "from-env-0123456789abcdef0123456789",
	}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	// The environment's secret signs the token.
	if err := run(context.Background(), []string{"token", "--scope", "api"}, getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	keys, _ := auth.New([]byte("from-env-0123456789abcdef0123456789"))
	if _, err := keys.Verify(strings.TrimSpace(out.String())); err != nil {
		t.Errorf("token not signed with COMMERCE_JWT_SECRET: %v", err)
	}
	// The flag wins over the environment.
	out.Reset()
	if err := run(context.Background(), []string{"token", "--scope", "api", "--jwt-secret", "from-flag-0123456789abcdef0123456789"}, getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	keys, _ = auth.New([]byte("from-flag-0123456789abcdef0123456789"))
	if _, err := keys.Verify(strings.TrimSpace(out.String())); err != nil {
		t.Errorf("token not signed with --jwt-secret: %v", err)
	}
	// migrate uses COMMERCE_DB.
	if err := run(context.Background(), []string{"migrate"}, getenv, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "env.db")); err != nil {
		t.Errorf("migrate did not use COMMERCE_DB: %v", err)
	}
}

func TestCommandErrors(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"unknown command", []string{"frobnicate"}},
		{"token without scope", []string{"token", "--jwt-secret", testSecret}},
		{"token with bad scope", []string{"token", "--scope", "root", "--jwt-secret", testSecret}},
		{"bad db", []string{"migrate", "--db", "mysql://x"}},
		{"negative cart ttl", []string{"serve", "--cart-ttl", "-1h"}},
		{"bad reservation ttl", []string{"serve", "--reservation-ttl", "soon"}},
		{"negative access ttl", []string{"serve", "--access-ttl", "-1m"}},
		{"zero refresh ttl", []string{"serve", "--refresh-ttl", "0s"}},
		{"bad regex timeout", []string{"migrate", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--regex-timeout", "soon"}},
		{"bad sqlite sync", []string{"migrate", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--sqlite-sync", "off"}},
		{"negative regex timeout", []string{"migrate", "--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--regex-timeout", "-1s"}},
		{"postgres without secret", []string{"token", "--scope", "api", "--db", "postgres://127.0.0.1/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), tc.args, getenv, &out, io.Discard); err == nil {
				t.Errorf("got no error, want one")
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", out.String())
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for _, dsn := range []string{"postgres://u:secret@h:5432/db", "postgres://u@h/db?sslmode=disable&password=secret", "sqlite:./data/secret.db"} {
		got := redact(dsn)
		if strings.Contains(got, "secret") && !strings.HasPrefix(dsn, "sqlite:") {
			t.Errorf("redact(%q) = %q, still shows the password", dsn, got)
		}
		if strings.HasPrefix(dsn, "sqlite:") && got != dsn {
			t.Errorf("redact(%q) = %q, want it unchanged", dsn, got)
		}
	}
}

func TestTokenNeedsAnExistingSecret(t *testing.T) {
	dbFlag := "sqlite:" + filepath.Join(t.TempDir(), "commerce.db")
	var out bytes.Buffer
	err := run(context.Background(), []string{"token", "--scope", "api", "--db", dbFlag}, func(string) string { return "" }, &out, io.Discard)
	if err == nil || out.Len() != 0 {
		t.Fatalf("got %v and %q, want an error and no token before serve made a secret", err, out.String())
	}
}

// TestServeAddressInUse: serve on an address another process holds (a
// server left running) fails at once with an error naming the address and
// the cause, which main prints on stderr before exiting 1, rather than
// leaving the other server to answer in its place; a server that starts
// names its pid in its ready line (README's walk-through waits for it).
func TestServeAddressInUse(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := t.TempDir()
	var stderr syncBuffer
	err = run(context.Background(), []string{"serve", "--addr", held.Addr().String(), "--db", "sqlite:" + filepath.Join(dir, "commerce.db")},
		func(string) string { return "" }, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "listen on --addr "+held.Addr().String()) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve on a held address: got %v, want an error naming --addr %s and \"address already in use\"", err, held.Addr())
	}
	if strings.Contains(stderr.String(), "commerce ready") {
		t.Errorf("serve logged ready although it could not listen:\n%s", stderr.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", "sqlite:" + filepath.Join(dir, "commerce.db")},
			func(string) string { return "" }, io.Discard, &out)
	}()
	pidRE := regexp.MustCompile(`commerce ready"? addr=\S+ pid=(\d+) `)
	deadline := time.Now().Add(10 * time.Second)
	for !readyRE.MatchString(out.String()) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("serve: %v\n%s", err, out.String())
	}
	if m := pidRE.FindStringSubmatch(out.String()); m == nil || m[1] != strconv.Itoa(os.Getpid()) {
		t.Errorf("ready line without pid=%d:\n%s", os.Getpid(), out.String())
	}
}
