package sqldb_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// The stock store's behaviour is the conformance suite
// testkit/storetest.Stock, run on both databases by the sqlite and postgres
// packages. The tests here race processes on one PostgreSQL database.

// TestStockNoOversellTwoPools races 200 reservations for the last 7 units
// through two connection pools on one PostgreSQL database: what two
// service processes are, as far as the database can tell.
func TestStockNoOversellTwoPools(t *testing.T) {
	url := testdb.PostgresURL(t)
	dbs := []*sqldb.DB{testdb.PostgresAt(t, url), testdb.PostgresAt(t, url)}
	storetest.StockLastSeven(t, dbs[0])
	// 12 transactions in flight per pool keep the connection count well
	// under the server's limit while other test packages run.
	storetest.WantLastSeven(t, dbs[0], storetest.RaceReservations(t, dbs, 200, 12, "c"))
}

// Environment of TestStockHelperProcess.
const (
	helperURLEnv  = "COMMERCE_STOCK_HELPER_URL"
	helperNameEnv = "COMMERCE_STOCK_HELPER_NAME"
)

// TestStockNoOversellTwoProcesses runs this test binary twice more as
// TestStockHelperProcess: two OS processes, each with its own connection
// pool, racing 100 reservations each for the last 7 units of one
// PostgreSQL database.
func TestStockNoOversellTwoProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	db := testdb.PostgresAt(t, url)
	storetest.StockLastSeven(t, db)

	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
		lines []string        // of stdout, other than the ones asked for
		log   strings.Builder // stderr, complete after Wait
	}
	var children []*child
	for _, name := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStockHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperURLEnv+"="+url, helperNameEnv+"="+name)
		c := &child{cmd: cmd}
		cmd.Stderr = &c.log
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		c.stdin = stdin
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		c.out = bufio.NewScanner(stdout)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		children = append(children, c)
	}
	// line returns the next line of a child's stdout with the prefix.
	line := func(c *child, prefix string) string {
		for c.out.Scan() {
			if v, ok := strings.CutPrefix(c.out.Text(), prefix); ok {
				return v
			}
			c.lines = append(c.lines, c.out.Text())
		}
		c.cmd.Wait()
		t.Fatalf("helper process ended without %q:\n%s\n%s", prefix, strings.Join(c.lines, "\n"), c.log.String())
		return ""
	}
	for _, c := range children {
		line(c, "ready")
	}
	for _, c := range children { // both are connected: start them together
		if _, err := io.WriteString(c.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, c := range children {
		n, err := strconv.Atoi(line(c, "reserved="))
		if err != nil {
			t.Fatal(err)
		}
		for c.out.Scan() { // the test verdict, and failures
			c.lines = append(c.lines, c.out.Text())
		}
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("helper process: %v:\n%s\n%s", err, strings.Join(c.lines, "\n"), c.log.String())
		}
		total += n
	}
	storetest.WantLastSeven(t, db, total)
}

// TestStockHelperProcess is one of the processes of
// TestStockNoOversellTwoProcesses; run directly, it skips.
func TestStockHelperProcess(t *testing.T) {
	url := os.Getenv(helperURLEnv)
	if url == "" {
		t.Skip("helper process of TestStockNoOversellTwoProcesses; it runs only when that test starts it")
	}
	db, err := postgres.OpenWith(context.Background(), url, postgres.Options{Now: time.Now, MaxConns: testdb.MaxConns})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	n := storetest.RaceReservations(t, []*sqldb.DB{db}, 100, 12, os.Getenv(helperNameEnv)+"-")
	fmt.Printf("reserved=%d\n", n)
}
