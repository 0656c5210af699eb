package sqldb_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
)

// stockClock is a clock the test moves.
type stockClock struct{ ns atomic.Int64 }

func newStockClock() *stockClock {
	c := &stockClock{}
	c.ns.Store(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *stockClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *stockClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// stockFixture is a stock service over db with a controlled clock and
// stock records created with the given quantities ("p1/w1": 10).
type stockFixture struct {
	db    *sqldb.DB
	svc   *stock.Service
	clock *stockClock
}

func newStockFixture(t *testing.T, db *sqldb.DB, records map[string]int64) *stockFixture {
	t.Helper()
	f := &stockFixture{db: db, clock: newStockClock()}
	f.svc = stock.NewService(sqldb.NewStockStore(db), f.clock.Now, 24*time.Hour)
	for key, q := range records {
		p, w, _ := strings.Cut(key, "/")
		if _, err := f.svc.Create(context.Background(), stock.Input{ProductID: p, WarehouseID: w, Quantity: &q}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// tx runs fn in a write transaction, as the cart's store does.
func (f *stockFixture) tx(fn func(tx stock.Tx) error) error {
	return f.db.Update(context.Background(), func(tx *sqldb.Tx) error { return fn(sqldb.StockTx(tx)) })
}

func (f *stockFixture) reserve(t *testing.T, cart, item, key string, q int64) stock.Reservation {
	t.Helper()
	p, w, _ := strings.Cut(key, "/")
	var r stock.Reservation
	err := f.tx(func(tx stock.Tx) error {
		var err error
		r, err = f.svc.Reserve(context.Background(), tx, stock.Reservation{CartID: cart, ItemID: item, ProductID: p, WarehouseID: w, Quantity: q})
		return err
	})
	if err != nil {
		t.Fatalf("reserve %d of %s for %s/%s: %v", q, key, cart, item, err)
	}
	return r
}

// want checks the stock of key: quantity on hand and reserved.
func (f *stockFixture) want(t *testing.T, key string, quantity, reserved int64) {
	t.Helper()
	p, w, _ := strings.Cut(key, "/")
	s, err := f.svc.Info(context.Background(), stock.Key{ProductID: p, WarehouseID: w})
	if err != nil {
		t.Fatal(err)
	}
	if s.Quantity != quantity || s.Reserved != reserved {
		t.Fatalf("%s: got quantity %d reserved %d, want %d and %d", key, s.Quantity, s.Reserved, quantity, reserved)
	}
}

// held returns the cart's reservations as "item:warehouse:quantity[:expired]".
func (f *stockFixture) held(t *testing.T, cart string) []string {
	t.Helper()
	var rs []stock.Reservation
	err := f.db.View(context.Background(), func(tx *sqldb.Tx) error {
		var err error
		rs, err = sqldb.StockTx(tx).Reservations(context.Background(), cart)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, r := range rs {
		s := fmt.Sprintf("%s:%s:%d", r.ItemID, r.WarehouseID, r.Quantity)
		if r.Expired {
			s += ":expired"
		}
		out = append(out, s)
	}
	return out
}

func wantHeld(t *testing.T, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got reservations %q, want %q", got, want)
	}
}

func wantShortage(t *testing.T, err error, want stock.Shortage) {
	t.Helper()
	if commerce.ErrorCode(err) != commerce.ENotEnoughStock {
		t.Fatalf("got %v, want not_enough_stock", err)
	}
	if got, _ := commerce.ErrorData(err).(stock.Shortage); got != want {
		t.Fatalf("got data %+v, want %+v", commerce.ErrorData(err), want)
	}
}

func TestStockReserve(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newStockFixture(t, db, map[string]int64{"p1/w1": 10})

		r := f.reserve(t, "c1", "i1", "p1/w1", 3)
		f.want(t, "p1/w1", 10, 3)
		if want := f.clock.Now().Add(24 * time.Hour); !r.ExpirationTime.Equal(want) {
			t.Errorf("got expiration %v, want %v", r.ExpirationTime, want)
		}
		var listed []stock.Reservation
		if err := f.tx(func(tx stock.Tx) (err error) { listed, err = tx.Reservations(ctx, "c1"); return err }); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0] != r {
			t.Fatalf("got listed %+v, want [%+v]", listed, r)
		}

		cases := []struct {
			name string
			key  string
			q    int64
			want stock.Shortage
		}{
			{"more than available", "p1/w1", 8, stock.Shortage{ProductID: "p1", WarehouseID: "w1", RequestedQuantity: 8, AvailableQuantity: 7}},
			{"no stock record", "p2/w1", 1, stock.Shortage{ProductID: "p2", WarehouseID: "w1", RequestedQuantity: 1, AvailableQuantity: 0}},
			{"no stock in that warehouse", "p1/w2", 1, stock.Shortage{ProductID: "p1", WarehouseID: "w2", RequestedQuantity: 1, AvailableQuantity: 0}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				p, w, _ := strings.Cut(tc.key, "/")
				err := f.tx(func(tx stock.Tx) error {
					_, err := f.svc.Reserve(ctx, tx, stock.Reservation{CartID: "c2", ItemID: "i1", ProductID: p, WarehouseID: w, Quantity: tc.q})
					return err
				})
				wantShortage(t, err, tc.want)
				f.want(t, "p1/w1", 10, 3)
				wantHeld(t, f.held(t, "c2"))
			})
		}

		t.Run("rolled back with the caller's transaction", func(t *testing.T) {
			fail := commerce.Invalid("items[1].quantity: fixture failure")
			err := f.tx(func(tx stock.Tx) error {
				if _, err := f.svc.Reserve(ctx, tx, stock.Reservation{CartID: "c3", ItemID: "i1", ProductID: "p1", WarehouseID: "w1", Quantity: 5}); err != nil {
					return err
				}
				return fail
			})
			if !errors.Is(err, fail) {
				t.Fatalf("got %v, want the caller's error", err)
			}
			f.want(t, "p1/w1", 10, 3)
			wantHeld(t, f.held(t, "c3"))
		})

		t.Run("exactly what is available", func(t *testing.T) {
			f.reserve(t, "c4", "i1", "p1/w1", 7)
			f.want(t, "p1/w1", 10, 10)
		})
	})
}

func TestStockRelease(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newStockFixture(t, db, map[string]int64{"p1/w1": 20, "p1/w2": 20})
		release := func(t *testing.T, item string, q int64) {
			t.Helper()
			if err := f.tx(func(tx stock.Tx) error { return f.svc.Release(ctx, tx, "c1", item, q) }); err != nil {
				t.Fatal(err)
			}
		}

		t.Run("newest first, splitting one", func(t *testing.T) {
			f.reserve(t, "c1", "i1", "p1/w1", 2)
			f.reserve(t, "c1", "i1", "p1/w2", 3)
			f.reserve(t, "c1", "i2", "p1/w1", 1) // another entry: untouched
			release(t, "i1", 4)
			wantHeld(t, f.held(t, "c1"), "i1:w1:1", "i2:w1:1")
			f.want(t, "p1/w1", 20, 2)
			f.want(t, "p1/w2", 20, 0)
		})
		t.Run("more than held releases all", func(t *testing.T) {
			release(t, "i1", 5)
			wantHeld(t, f.held(t, "c1"), "i2:w1:1")
			f.want(t, "p1/w1", 20, 1)
		})
		t.Run("nothing held is no error", func(t *testing.T) {
			release(t, "unknown", 1)
			f.want(t, "p1/w1", 20, 1)
		})
		t.Run("expired first", func(t *testing.T) {
			f.reserve(t, "c1", "i3", "p1/w2", 3)
			f.clock.Advance(25 * time.Hour)
			if n, err := f.svc.Sweep(ctx); err != nil || n != 2 {
				t.Fatalf("sweep: got %d, %v; want 2 expired", n, err)
			}
			f.reserve(t, "c1", "i3", "p1/w2", 2)
			f.want(t, "p1/w2", 20, 2)
			release(t, "i3", 4) // the expired 3 (holding nothing), then 1 of the active 2
			wantHeld(t, f.held(t, "c1"), "i2:w1:1:expired", "i3:w2:1")
			f.want(t, "p1/w2", 20, 1)
			f.want(t, "p1/w1", 20, 0)
		})
		t.Run("item and cart", func(t *testing.T) {
			f.reserve(t, "c1", "i4", "p1/w1", 4)
			f.reserve(t, "c2", "i1", "p1/w1", 5)
			if err := f.tx(func(tx stock.Tx) error { return tx.ReleaseItem(ctx, "c1", "i4") }); err != nil {
				t.Fatal(err)
			}
			wantHeld(t, f.held(t, "c1"), "i2:w1:1:expired", "i3:w2:1")
			f.want(t, "p1/w1", 20, 5)
			if err := f.tx(func(tx stock.Tx) error { return tx.ReleaseCart(ctx, "c1") }); err != nil {
				t.Fatal(err)
			}
			wantHeld(t, f.held(t, "c1"))
			wantHeld(t, f.held(t, "c2"), "i1:w1:5")
			f.want(t, "p1/w1", 20, 5)
			f.want(t, "p1/w2", 20, 0)
		})
	})
}

func TestStockCommit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newStockFixture(t, db, map[string]int64{"p1/w1": 10, "p2/w1": 5})
		commit := func(cart string) ([]stock.Reservation, error) {
			var rs []stock.Reservation
			err := f.tx(func(tx stock.Tx) (err error) { rs, err = tx.CommitCart(ctx, cart); return err })
			return rs, err
		}

		t.Run("active reservations", func(t *testing.T) {
			a := f.reserve(t, "c1", "i1", "p1/w1", 2)
			b := f.reserve(t, "c1", "i1", "p1/w1", 1)
			c := f.reserve(t, "c1", "i2", "p2/w1", 5)
			f.reserve(t, "c2", "i1", "p1/w1", 4)
			rs, err := commit("c1")
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 3 || rs[0] != a || rs[1] != b || rs[2] != c {
				t.Errorf("got committed %+v, want %+v", rs, []stock.Reservation{a, b, c})
			}
			f.want(t, "p1/w1", 7, 4)
			f.want(t, "p2/w1", 0, 0)
			wantHeld(t, f.held(t, "c1"))
			wantHeld(t, f.held(t, "c2"), "i1:w1:4")
		})
		t.Run("expired reservation taken again", func(t *testing.T) {
			f.reserve(t, "c3", "i1", "p1/w1", 2)
			f.clock.Advance(25 * time.Hour)
			if _, err := f.svc.Sweep(ctx); err != nil {
				t.Fatal(err)
			}
			f.want(t, "p1/w1", 7, 0) // c2's 4 expired too
			f.reserve(t, "c3", "i1", "p1/w1", 1)
			if _, err := commit("c3"); err != nil {
				t.Fatal(err)
			}
			f.want(t, "p1/w1", 4, 0)
			wantHeld(t, f.held(t, "c3"))
		})
		t.Run("expired reservation no longer available", func(t *testing.T) {
			// c2's expired 4 units: someone else took 1 of the 4 left,
			// and c2 also holds 1 active unit of it.
			f.reserve(t, "c4", "i1", "p1/w1", 1)
			f.reserve(t, "c2", "i1", "p1/w1", 1)
			f.want(t, "p1/w1", 4, 2)
			_, err := commit("c2")
			wantShortage(t, err, stock.Shortage{ProductID: "p1", WarehouseID: "w1", RequestedQuantity: 5, AvailableQuantity: 3})
			f.want(t, "p1/w1", 4, 2)
			wantHeld(t, f.held(t, "c2"), "i1:w1:4:expired", "i1:w1:1")
		})
		t.Run("empty cart", func(t *testing.T) {
			rs, err := commit("none")
			if err != nil || len(rs) != 0 {
				t.Fatalf("got %v, %v; want nothing committed", rs, err)
			}
		})
	})
}

func TestStockSweep(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newStockFixture(t, db, map[string]int64{"p1/w1": 10})
		f.reserve(t, "c1", "i1", "p1/w1", 3)
		f.clock.Advance(time.Hour)
		f.reserve(t, "c2", "i1", "p1/w1", 4)

		cases := []struct {
			name     string
			advance  time.Duration
			expired  int
			reserved int64
		}{
			{"nothing due", 23*time.Hour - time.Millisecond, 0, 7},
			{"due at its expiration time", time.Millisecond, 1, 4},
			{"already expired is not expired again", 0, 0, 4},
			{"the second one", time.Hour, 1, 0},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f.clock.Advance(tc.advance)
				n, err := f.svc.Sweep(ctx)
				if err != nil || n != tc.expired {
					t.Fatalf("got %d expired, %v; want %d", n, err, tc.expired)
				}
				f.want(t, "p1/w1", 10, tc.reserved)
			})
		}
		wantHeld(t, f.held(t, "c1"), "i1:w1:3:expired")
		wantHeld(t, f.held(t, "c2"), "i1:w1:4:expired")

		t.Run("in batches", func(t *testing.T) {
			q := int64(stock.SweepBatch + 1)
			if _, err := f.svc.Update(ctx, stock.Input{ProductID: "p1", WarehouseID: "w1", Quantity: &q}); err != nil {
				t.Fatal(err)
			}
			err := f.tx(func(tx stock.Tx) error {
				for i := range stock.SweepBatch + 1 {
					if _, err := f.svc.Reserve(ctx, tx, stock.Reservation{CartID: "big", ItemID: strconv.Itoa(i), ProductID: "p1", WarehouseID: "w1", Quantity: 1}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			f.want(t, "p1/w1", q, q)
			f.clock.Advance(25 * time.Hour)
			if n, err := f.svc.Sweep(ctx); err != nil || n != stock.SweepBatch+1 {
				t.Fatalf("got %d expired, %v; want %d", n, err, stock.SweepBatch+1)
			}
			f.want(t, "p1/w1", q, 0)
		})
	})
}

func TestStockCreateUpdate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newStockFixture(t, db, map[string]int64{"p1/w1": 10})
		f.reserve(t, "c1", "i1", "p1/w1", 4)
		q := func(n int64) *int64 { return &n }

		cases := []struct {
			name string
			op   func() (stock.Stock, error)
			code string
		}{
			{"duplicate", func() (stock.Stock, error) {
				return f.svc.Create(ctx, stock.Input{ProductID: "p1", WarehouseID: "w1", Quantity: q(1)})
			}, commerce.EDuplicateKey},
			{"update unknown", func() (stock.Stock, error) {
				return f.svc.Update(ctx, stock.Input{ProductID: "p1", WarehouseID: "w9", Quantity: q(1)})
			}, commerce.EStockNotFound},
			{"update below reserved", func() (stock.Stock, error) {
				return f.svc.Update(ctx, stock.Input{ProductID: "p1", WarehouseID: "w1", Quantity: q(3)})
			}, commerce.EValidation},
			{"info unknown", func() (stock.Stock, error) {
				return f.svc.Info(ctx, stock.Key{ProductID: "p9", WarehouseID: "w1"})
			}, commerce.EStockNotFound},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := tc.op(); commerce.ErrorCode(err) != tc.code {
					t.Fatalf("got %v, want %s", err, tc.code)
				}
				f.want(t, "p1/w1", 10, 4)
			})
		}
		t.Run("update down to reserved", func(t *testing.T) {
			s, err := f.svc.Update(ctx, stock.Input{ProductID: "p1", WarehouseID: "w1", Quantity: q(4)})
			if err != nil || s.Quantity != 4 || s.Reserved != 4 || s.Available() != 0 {
				t.Fatalf("got %+v, %v; want quantity 4, reserved 4", s, err)
			}
			f.want(t, "p1/w1", 4, 4)
		})
	})
}

// raceReservations makes n concurrent reservations of 1 unit of p1/w1,
// each in its own transaction on one of dbs (in turn), at most par at a
// time per database, and returns how many succeeded. Any error other than
// not_enough_stock fails the test.
func raceReservations(t *testing.T, dbs []*sqldb.DB, n, par int, cartPrefix string) int {
	t.Helper()
	ctx := context.Background()
	svcs := make([]*stock.Service, len(dbs))
	sems := make([]chan struct{}, len(dbs))
	for i, db := range dbs {
		svcs[i] = stock.NewService(sqldb.NewStockStore(db), nil, 0)
		sems[i] = make(chan struct{}, par)
	}
	var ok atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		k := i % len(dbs)
		wg.Go(func() {
			<-start
			sems[k] <- struct{}{}
			defer func() { <-sems[k] }()
			err := dbs[k].Update(ctx, func(tx *sqldb.Tx) error {
				_, err := svcs[k].Reserve(ctx, sqldb.StockTx(tx), stock.Reservation{
					CartID: cartPrefix + strconv.Itoa(i), ItemID: "i", ProductID: "p1", WarehouseID: "w1", Quantity: 1})
				return err
			})
			switch commerce.ErrorCode(err) {
			case "":
				ok.Add(1)
			case commerce.ENotEnoughStock:
			default:
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("unexpected error: %v", err)
	}
	return int(ok.Load())
}

// wantLastSeven checks that exactly the 7 free units of p1/w1 (10 on
// hand, 3 reserved by the "setup" cart) were reserved, by 7 reservations.
func wantLastSeven(t *testing.T, db *sqldb.DB, succeeded int) {
	t.Helper()
	if succeeded != 7 {
		t.Errorf("got %d successful reservations, want 7", succeeded)
	}
	var quantity, reserved, rows int64
	if err := db.QueryRow(context.Background(), `SELECT quantity, reserved FROM stock WHERE product_id = 'p1' AND warehouse_id = 'w1'`).Scan(&quantity, &reserved); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM stock_reservations WHERE cart_id <> 'setup'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if quantity != 10 || reserved != 10 || rows != 7 {
		t.Errorf("got quantity %d, reserved %d, %d reservations; want 10, 10 (3 + the last 7), 7", quantity, reserved, rows)
	}
}

// lastSevenFixture creates p1/w1 with 10 units of which 3 are reserved.
func lastSevenFixture(t *testing.T, db *sqldb.DB) {
	t.Helper()
	f := newStockFixture(t, db, map[string]int64{"p1/w1": 10})
	f.reserve(t, "setup", "i", "p1/w1", 3)
}

func TestStockNoOversell(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		lastSevenFixture(t, db)
		wantLastSeven(t, db, raceReservations(t, []*sqldb.DB{db}, 200, 200, "c"))
	})
}

// TestStockNoOversellTwoPools races 200 reservations for the last 7 units
// through two connection pools on one PostgreSQL database: what two
// service processes are, as far as the database can tell.
func TestStockNoOversellTwoPools(t *testing.T) {
	url := testdb.PostgresURL(t)
	dbs := []*sqldb.DB{testdb.PostgresAt(t, url), testdb.PostgresAt(t, url)}
	lastSevenFixture(t, dbs[0])
	// 12 transactions in flight per pool keep the connection count well
	// under the server's limit while other test packages run.
	wantLastSeven(t, dbs[0], raceReservations(t, dbs, 200, 12, "c"))
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
	lastSevenFixture(t, db)

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
	wantLastSeven(t, db, total)
}

// TestStockHelperProcess is one of the processes of
// TestStockNoOversellTwoProcesses; run directly, it skips.
func TestStockHelperProcess(t *testing.T) {
	url := os.Getenv(helperURLEnv)
	if url == "" {
		t.Skip("helper process of TestStockNoOversellTwoProcesses; it runs only when that test starts it")
	}
	db, err := postgres.Open(context.Background(), url, time.Now)
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
	n := raceReservations(t, []*sqldb.DB{db}, 100, 12, os.Getenv(helperNameEnv)+"-")
	fmt.Printf("reserved=%d\n", n)
}

// TestStockSweepRacesCarts runs sweeps while carts release and commit the
// same expired reservations: each unit must be given back exactly once.
func TestStockSweepRacesCarts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newStockFixture(t, db, map[string]int64{"p1/w1": 100, "p1/w2": 100})
		const carts = 40
		for i := range carts {
			f.reserve(t, "c"+strconv.Itoa(i), "i1", "p1/w1", 1)
			f.reserve(t, "c"+strconv.Itoa(i), "i2", "p1/w2", 1)
		}
		f.clock.Advance(25 * time.Hour)

		var wg sync.WaitGroup
		errs := make(chan error, carts+4)
		for range 4 {
			wg.Go(func() {
				if _, err := f.svc.Sweep(ctx); err != nil {
					errs <- err
				}
			})
		}
		for i := range carts {
			wg.Go(func() {
				err := f.tx(func(tx stock.Tx) error {
					if i%2 == 0 {
						return tx.ReleaseCart(ctx, "c"+strconv.Itoa(i))
					}
					_, err := tx.CommitCart(ctx, "c"+strconv.Itoa(i))
					return err
				})
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("unexpected error: %v", err)
		}
		// Half the carts bought one unit in each warehouse; nothing is
		// left reserved, and no reservation is left.
		f.want(t, "p1/w1", 100-carts/2, 0)
		f.want(t, "p1/w2", 100-carts/2, 0)
		for i := range carts {
			wantHeld(t, f.held(t, "c"+strconv.Itoa(i)))
		}
	})
}
