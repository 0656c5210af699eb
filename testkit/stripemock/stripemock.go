// Package stripemock runs stripe-mock (github.com/stripe/stripe-mock,
// Stripe's own mock of its API) for tests:
//
//	url := stripemock.Start(t) // "http://127.0.0.1:PORT"
//	p, err := stripe.New(stripe.Options{Key: stripemock.Key, URL: url})
//
// Start finds the binary in $COMMERCE_TEST_STRIPE_MOCK, on PATH, or in
// $(go env GOPATH)/bin, starts it on a free port, waits until it listens
// and stops it when the test ends. Without the binary the test is skipped
// with a message saying how to install it (go install
// github.com/stripe/stripe-mock@v0.203.0); when COMMERCE_TEST_STRIPE_MOCK
// is set (CI sets it), a binary that is missing or does not start fails
// the test instead.
//
// stripe-mock is stateless: every test may share one process, and it
// answers every valid request with fixtures (it never declines a card).
// Starting it takes a few seconds, so start it once per top-level test and
// use subtests.
package stripemock

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the stripe-mock version the tests are written against.
const Version = "v0.203.0"

// Env names the variable giving the stripe-mock binary; when set, a
// missing binary fails the tests instead of skipping them.
const Env = "COMMERCE_TEST_STRIPE_MOCK"

// Key is a test API key stripe-mock accepts (it takes any sk_test_ key).
const Key = "sk_test_commerce"

// StartTimeout is how long Start waits for stripe-mock to listen.
const StartTimeout = 60 * time.Second

// Binary returns the path of the stripe-mock binary, and whether its
// absence must fail the test (COMMERCE_TEST_STRIPE_MOCK is set).
func Binary() (path string, required bool, err error) {
	if p := os.Getenv(Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			if lp, lerr := exec.LookPath(p); lerr == nil {
				return lp, true, nil
			}
			return "", true, fmt.Errorf("%s=%s: %w", Env, p, err)
		}
		return p, true, nil
	}
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p, false, nil
	}
	gopath := os.Getenv("GOPATH")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gopath = strings.TrimSpace(string(out))
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "stripe-mock")
		if _, err := os.Stat(p); err == nil {
			return p, false, nil
		}
	}
	return "", false, errors.New("stripe-mock is not on PATH nor in $(go env GOPATH)/bin")
}

// Start starts stripe-mock for the test and returns its base URL
// (http://127.0.0.1:PORT), for stripe.Options.URL or --stripe-url. It is
// stopped when the test ends. See the package documentation for where
// the binary is found and when the test is skipped.
func Start(t testing.TB) string {
	t.Helper()
	bin, required, err := Binary()
	if err != nil {
		if required {
			t.Fatalf("stripemock: %v", err)
		}
		t.Skipf("stripemock: %v; install it with `go install github.com/stripe/stripe-mock@%s` (or set %s) to run this test", err, Version, Env)
	}
	url, stop, err := start(bin)
	if err != nil {
		t.Fatalf("stripemock: %v", err)
	}
	t.Cleanup(stop)
	return url
}

// start runs bin on a port the system chooses (-http-port 0: HTTP only,
// no HTTPS listener) and reads the port from its "Listening for HTTP at
// address: [::]:PORT" line.
func start(bin string) (url string, stop func(), err error) {
	cmd := exec.Command(bin, "-http-port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	var logs lockedBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", bin, err)
	}
	var wg sync.WaitGroup
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		wg.Wait()
	}
	addr := make(chan string, 1)
	wg.Go(func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(&logs, line)
			if a, ok := strings.CutPrefix(line, "Listening for HTTP at address: "); ok {
				select {
				case addr <- a:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		close(addr)
	})
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	select {
	case a, ok := <-addr:
		if !ok {
			stop()
			return "", nil, fmt.Errorf("%s exited before listening: %s", bin, logs.String())
		}
		_, port, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil {
			stop()
			return "", nil, fmt.Errorf("%s: unexpected address %q: %w", bin, a, err)
		}
		host := net.JoinHostPort("127.0.0.1", port)
		if err := waitListening(ctx, host); err != nil {
			stop()
			return "", nil, fmt.Errorf("%s on %s: %w: %s", bin, host, err, logs.String())
		}
		return "http://" + host, stop, nil
	case <-ctx.Done():
		stop()
		return "", nil, fmt.Errorf("%s did not listen within %s: %s", bin, StartTimeout, logs.String())
	}
}

// waitListening waits until a TCP connection to host succeeds.
func waitListening(ctx context.Context, host string) error {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", host)
		if err == nil {
			return c.Close()
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
