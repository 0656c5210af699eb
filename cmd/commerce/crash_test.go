package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestMain lets the crash test run `serve` in a child process of its own
// (this test binary, re-executed), so it can kill it with SIGKILL.
func TestMain(m *testing.M) {
	if args := os.Getenv("COMMERCE_TEST_CHILD_ARGS"); args != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, strings.Split(args, "\x1f"), os.Getenv, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const crashSecret = "crash-test-secret-0123456789abcdef"

// child is a `serve` process.
type child struct {
	cmd  *exec.Cmd
	base string
}

func startChild(t *testing.T, db string, extra ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--jwt-secret", crashSecret}, extra...)
	// A small connection budget (taken on PostgreSQL only): tests run
	// several processes on one server at once.
	cmd.Env = append(os.Environ(), "COMMERCE_TEST_CHILD_ARGS="+strings.Join(args, "\x1f"),
		fmt.Sprintf("COMMERCE_DB_MAX_CONNS=%d", testdb.MaxConns))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := readyRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return &child{cmd: cmd, base: "http://" + a}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("child serve did not get ready")
		return nil
	}
}

// startPair starts two `serve` processes on the database at url, stopped
// at the end of the test, and returns them with an admin token and an api
// token (subject "shopper") they accept.
func startPair(t *testing.T, url string) (servers []*child, admin, api string) {
	t.Helper()
	servers = []*child{startChild(t, url), startChild(t, url)}
	t.Cleanup(func() {
		for _, c := range servers {
			c.stop(t)
		}
	})
	keys, err := auth.New([]byte(crashSecret))
	if err != nil {
		t.Fatal(err)
	}
	admin, _ = keys.Issue(commerce.Claims{Subject: "admin", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	api, _ = keys.Issue(commerce.Claims{Subject: "shopper", Scopes: []string{"api"}}, time.Now(), time.Hour)
	return servers, admin, api
}

func (c *child) kill() {
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
}

// killAfter kills the child with SIGKILL once acked() reaches n, or after
// within at the latest.
func (c *child) killAfter(acked func() int, n int, within time.Duration) {
	for deadline := time.Now().Add(within); acked() < n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	c.kill()
}

func (c *child) stop(t *testing.T) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("serve exited with %v after SIGTERM, want status 0", err)
	}
}

func post(client *http.Client, url, token string, body any) (int, map[string]json.RawMessage, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", url, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return res.StatusCode, nil, fmt.Errorf("not JSON: %s", raw)
	}
	return res.StatusCode, m, nil
}

// crashTest streams product.create calls at a serve process, kills it with
// SIGKILL mid-stream, starts it again on the same storage, and checks that
// every write answered ok is there with its CREATE event, and that nothing
// half-written is visible (no product without its event, no event without
// its product).
func crashTest(t *testing.T, db string) {
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "crash", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	c := startChild(t, db)
	client := &http.Client{Timeout: 10 * time.Second}

	status, body, err := post(client, c.base+"/catalog/v1/category.create", admin, map[string]any{"title": "Crash", "slug": "crash", "parent": "ROOT"})
	if err != nil || status != 200 {
		t.Fatalf("category.create: %d %v %s", status, err, body["error"])
	}
	var cat struct{ ID string }
	json.Unmarshal(body["category"], &cat)

	var mu sync.Mutex
	acked := map[string]string{} // sku -> product id
	var wg sync.WaitGroup
	stopAt := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stopAt:
					return
				default:
				}
				sku := fmt.Sprintf("crash-%d-%d", w, i)
				status, body, err := post(client, c.base+"/catalog/v1/product.create", admin, map[string]any{
					"sku": sku, "status": "ONLINE", "title": "Crash " + sku, "categories": []string{cat.ID}, "stockStatus": 0,
					"prices": []map[string]any{{"amount": 10.5, "currency": "USD"}},
				})
				if err != nil {
					return // the server died
				}
				if status != 200 {
					t.Errorf("product.create %s: %d %s", sku, status, body["error"])
					return
				}
				var p struct{ ID string }
				json.Unmarshal(body["product"], &p)
				mu.Lock()
				acked[sku] = p.ID
				mu.Unlock()
			}
		})
	}
	// Kill it once writes are flowing.
	c.killAfter(func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }, 150, 20*time.Second)
	close(stopAt)
	wg.Wait()
	if len(acked) < 150 {
		t.Fatalf("only %d writes before the kill", len(acked))
	}

	c = startChild(t, db)
	defer c.stop(t)
	products := map[string]string{} // id -> sku
	for skip := 0; ; skip += 1000 {
		status, body, err := post(client, c.base+"/catalog/v1/product.list", admin, map[string]any{"limit": 1000, "skip": skip, "status": []string{"ONLINE", "DRAFT"}})
		if err != nil || status != 200 {
			t.Fatalf("product.list: %d %v %s", status, err, body["error"])
		}
		var data []struct{ ID, Sku string }
		json.Unmarshal(body["data"], &data)
		for _, p := range data {
			products[p.ID] = p.Sku
		}
		if len(data) < 1000 {
			break
		}
	}
	created := map[string]int{} // product id -> CREATE events
	after := ""
	for {
		args := map[string]any{"channel": "PRODUCTS", "type": "CREATE", "limit": 1000}
		if after != "" {
			args["after"] = after
		}
		status, body, err := post(client, c.base+"/event/v1/event.list", admin, args)
		if err != nil || status != 200 {
			t.Fatalf("event.list: %d %v %s", status, err, body["error"])
		}
		var data []struct {
			ID      string
			Payload struct{ New struct{ ID string } }
		}
		json.Unmarshal(body["data"], &data)
		for _, e := range data {
			created[e.Payload.New.ID]++
			after = e.ID
		}
		if len(data) < 1000 {
			break
		}
	}
	for sku, id := range acked {
		if products[id] != sku {
			t.Errorf("acknowledged product %s (%s) is missing after the crash", id, sku)
		}
	}
	for id := range products {
		if created[id] != 1 {
			t.Errorf("product %s has %d CREATE events, want 1", id, created[id])
		}
	}
	for id := range created {
		if _, ok := products[id]; !ok {
			t.Errorf("CREATE event for product %s, which does not exist", id)
		}
	}
	t.Logf("%d writes acknowledged before SIGKILL, %d products after restart", len(acked), len(products))
}

func TestCrashSQLite(t *testing.T) {
	crashTest(t, "sqlite:"+filepath.Join(t.TempDir(), "commerce.db"))
}

func TestCrashPostgres(t *testing.T) {
	crashTest(t, testdb.PostgresURL(t))
}
