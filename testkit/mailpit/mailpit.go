// Package mailpit runs Mailpit (github.com/axllent/mailpit, an SMTP server
// that keeps what it receives and shows it through an HTTP API) for tests:
//
//	mp := mailpit.Start(t)       // SMTP on mp.SMTP ("127.0.0.1:PORT")
//	msgs := mp.Wait(t, 1)        // the messages received, newest first
//	m := mp.Message(t, msgs[0].ID)
//
// Start finds the binary in $COMMERCE_TEST_MAILPIT, on PATH, or in
// $(go env GOPATH)/bin, starts it on free ports with a database of its own
// and stops it when the test ends. Without the binary the test is skipped
// with a message saying how to install it (go install
// github.com/axllent/mailpit@v1.33.1); when COMMERCE_TEST_MAILPIT is set
// (CI sets it), a binary that is missing or does not start fails the test
// instead.
package mailpit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the Mailpit version the tests are written against.
const Version = "v1.33.1"

// Env names the variable giving the Mailpit binary; when set, a missing
// binary fails the tests instead of skipping them.
const Env = "COMMERCE_TEST_MAILPIT"

// Binary returns the path of the Mailpit binary, and whether its absence
// must fail the test (COMMERCE_TEST_MAILPIT is set).
func Binary() (path string, required bool, err error) {
	if p := os.Getenv(Env); p != "" {
		if lp, err := exec.LookPath(p); err == nil {
			return lp, true, nil
		}
		return "", true, fmt.Errorf("%s=%s: not an executable", Env, p)
	}
	if p, err := exec.LookPath("mailpit"); err == nil {
		return p, false, nil
	}
	gopath := os.Getenv("GOPATH")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gopath = strings.TrimSpace(string(out))
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "mailpit")
		if _, err := os.Stat(p); err == nil {
			return p, false, nil
		}
	}
	return "", false, errors.New("mailpit is not on PATH nor in $(go env GOPATH)/bin")
}

// Server is a running Mailpit.
type Server struct {
	// SMTP is the SMTP server's address (127.0.0.1:PORT); API the base URL
	// of the HTTP API (http://127.0.0.1:PORT).
	SMTP, API string

	bin  string
	args []string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts Mailpit for the test, stopped when the test ends; extra
// are more command-line flags (TLS, authentication).
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin, required, err := Binary()
	if err != nil {
		if required {
			t.Fatalf("mailpit: %v", err)
		}
		t.Skipf("mailpit is not installed (%v): go install github.com/axllent/mailpit@%s, or set %s", err, Version, Env)
	}
	s := &Server{bin: bin, SMTP: freeAddr(t), API: "http://" + freeAddr(t)}
	s.args = append([]string{"--smtp", s.SMTP, "--listen", strings.TrimPrefix(s.API, "http://"), "--smtp-disable-rdns",
		"--disable-version-check", "-d", filepath.Join(t.TempDir(), "mailpit.db")}, extra...)
	if err := s.start(); err != nil {
		t.Fatalf("mailpit: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start runs the process and waits until both servers answer.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, s.args...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &syncWriter{w: &log}, &syncWriter{w: &log}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-done:
			return fmt.Errorf("mailpit exited: %s", log.String())
		default:
		}
		c, err := net.DialTimeout("tcp", s.SMTP, 200*time.Millisecond)
		if err == nil {
			c.Close()
			if res, err := http.Get(s.API + "/api/v1/info"); err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return fmt.Errorf("mailpit did not answer within 30s: %s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Stop stops the server (SMTP connections are then refused); calling it
// again does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Restart starts the stopped server again on the same ports, with the
// messages it had.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatalf("mailpit restart: %v", err)
	}
}

// Address is a name and address.
type Address struct{ Name, Address string }

// Summary is a message as the list shows it.
type Summary struct {
	ID        string
	MessageID string
	From      Address
	To        []Address
	Subject   string
}

// Message is a whole message.
type Message struct {
	Summary
	Text, HTML string
}

func (s *Server) get(t testing.TB, path string, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.API+path, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("mailpit GET %s: %v", path, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("mailpit GET %s: %d %s", path, res.StatusCode, b)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("mailpit GET %s: %v", path, err)
	}
}

// Messages returns every message received, newest first.
func (s *Server) Messages(t testing.TB) []Summary {
	t.Helper()
	var out []Summary
	for start := 0; ; {
		var page struct {
			Total    int
			Messages []Summary
		}
		s.get(t, fmt.Sprintf("/api/v1/messages?start=%d&limit=500", start), &page)
		out = append(out, page.Messages...)
		start += len(page.Messages)
		if len(page.Messages) == 0 || start >= page.Total {
			return out
		}
	}
}

// Wait waits (up to a minute) until the server has at least n messages
// and returns them.
func (s *Server) Wait(t testing.TB, n int) []Summary {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ms := s.Messages(t)
		if len(ms) >= n {
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpit: %d messages after a minute, want %d", len(ms), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Message returns a message with its text and HTML parts.
func (s *Server) Message(t testing.TB, id string) Message {
	t.Helper()
	var m Message
	s.get(t, "/api/v1/message/"+id, &m)
	return m
}

// Headers returns a message's headers.
func (s *Server) Headers(t testing.TB, id string) http.Header {
	t.Helper()
	var h map[string][]string
	s.get(t, "/api/v1/message/"+id+"/headers", &h)
	return h
}
