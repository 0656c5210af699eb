package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
)

// Stock is the suite of the stock store (stock.Store and stock.Tx): every
// method, its error codes, and that the stock is never oversold and units
// are given back exactly once under concurrency.
func Stock(t *testing.T, open Opener) {
	t.Run("records", func(t *testing.T) { stockRecords(t, open(t)) })
	t.Run("events commit with the change", func(t *testing.T) { stockEvents(t, open(t)) })
	t.Run("reserve", func(t *testing.T) { stockReserve(t, open(t)) })
	t.Run("release", func(t *testing.T) { stockRelease(t, open(t)) })
	t.Run("commit a cart", func(t *testing.T) { stockCommit(t, open(t)) })
	t.Run("release expired", func(t *testing.T) { stockReleaseExpired(t, open(t)) })
	t.Run("sweep", func(t *testing.T) { stockSweep(t, open(t)) })
	t.Run("no oversell", func(t *testing.T) { stockNoOversell(t, open(t)) })
	t.Run("sweeps race carts", func(t *testing.T) { stockSweepRacesCarts(t, open(t)) })
}

// stockT0 is the time the stock suite's reservations are made at.
var stockT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// stockFix is the stock store over a database, with helpers.
type stockFix struct {
	db    *sqldb.DB
	store *sqldb.StockStore
	seq   atomic.Int64
}

func newStockFix(t *testing.T, db *sqldb.DB, records map[string]int64) *stockFix {
	t.Helper()
	f := &stockFix{db: db, store: sqldb.NewStockStore(db)}
	for key, q := range records {
		p, w, _ := strings.Cut(key, "/")
		if err := f.tx(func(tx stock.Tx) error {
			return tx.Create(context.Background(), stock.Stock{ProductID: p, WarehouseID: w, Quantity: q})
		}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *stockFix) tx(fn func(tx stock.Tx) error) error {
	return f.store.Update(context.Background(), fn)
}

// reservation returns a reservation of q units of key ("p1/w1") for the
// entry, expiring after ttl from stockT0.
func (f *stockFix) reservation(cart, item, key string, q int64, ttl time.Duration) stock.Reservation {
	p, w, _ := strings.Cut(key, "/")
	return stock.Reservation{ID: "r" + strconv.FormatInt(f.seq.Add(1), 10), CartID: cart, ItemID: item, ProductID: p,
		WarehouseID: w, Quantity: q, ExpirationTime: stockT0.Add(ttl)}
}

// reserve makes a reservation of 24 h, failing the test on an error.
func (f *stockFix) reserve(t *testing.T, cart, item, key string, q int64) stock.Reservation {
	t.Helper()
	return f.reserveFor(t, cart, item, key, q, 24*time.Hour)
}

func (f *stockFix) reserveFor(t *testing.T, cart, item, key string, q int64, ttl time.Duration) stock.Reservation {
	t.Helper()
	r := f.reservation(cart, item, key, q, ttl)
	if err := f.tx(func(tx stock.Tx) error { return tx.Reserve(context.Background(), r) }); err != nil {
		t.Fatalf("reserve %d of %s for %s/%s: %v", q, key, cart, item, err)
	}
	return r
}

// want checks the committed stock of key: quantity on hand and reserved.
func (f *stockFix) want(t *testing.T, key string, quantity, reserved int64) {
	t.Helper()
	p, w, _ := strings.Cut(key, "/")
	s, err := f.store.Stock(context.Background(), stock.Key{ProductID: p, WarehouseID: w})
	if err != nil {
		t.Fatal(err)
	}
	if s.Quantity != quantity || s.Reserved != reserved {
		t.Fatalf("%s: got quantity %d reserved %d, want %d and %d", key, s.Quantity, s.Reserved, quantity, reserved)
	}
}

// held returns the cart's reservations as "item:warehouse:quantity[:expired]".
func (f *stockFix) held(t *testing.T, cart string) []string {
	t.Helper()
	var rs []stock.Reservation
	if err := f.tx(func(tx stock.Tx) (err error) { rs, err = tx.Reservations(context.Background(), cart); return err }); err != nil {
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
	if !slices.Equal(got, want) {
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

func stockRecords(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 10})
	k := stock.Key{ProductID: "p1", WarehouseID: "w1"}
	unknown := stock.Key{ProductID: "p1", WarehouseID: "w9"}
	f.reserve(t, "c1", "i1", "p1/w1", 4)

	err := f.tx(func(tx stock.Tx) error {
		return tx.Create(ctx, stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 1})
	})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Fatalf("second create: got %v, want duplicate_key", err)
	}
	if d, _ := commerce.ErrorData(err).(map[string]any); d["index"] != "product_warehouse" || d["productId"] != "p1" || d["warehouseId"] != "w1" {
		t.Errorf("got data %v, want {index: product_warehouse, productId, warehouseId}", commerce.ErrorData(err))
	}
	f.want(t, "p1/w1", 10, 4)
	if _, err := f.store.Stock(ctx, unknown); commerce.ErrorCode(err) != commerce.EStockNotFound || commerce.ErrorData(err) != unknown {
		t.Errorf("Stock of an unknown pair: got %v (data %v), want stock_not_found with the key", err, commerce.ErrorData(err))
	}

	tests := []struct {
		name string
		fn   func(tx stock.Tx) (stock.Stock, error)
		code string
		want stock.Stock
	}{
		{"lock", func(tx stock.Tx) (stock.Stock, error) { return tx.Lock(ctx, k) }, "",
			stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 10, Reserved: 4}},
		{"lock unknown", func(tx stock.Tx) (stock.Stock, error) { return tx.Lock(ctx, unknown) }, commerce.EStockNotFound, stock.Stock{}},
		{"set unknown", func(tx stock.Tx) (stock.Stock, error) { return tx.SetQuantity(ctx, unknown, 5) }, commerce.EStockNotFound, stock.Stock{}},
		{"set below reserved", func(tx stock.Tx) (stock.Stock, error) { return tx.SetQuantity(ctx, k, 3) }, commerce.EValidation, stock.Stock{}},
		{"set down to reserved", func(tx stock.Tx) (stock.Stock, error) { return tx.SetQuantity(ctx, k, 4) }, "",
			stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 4, Reserved: 4}},
		{"set up", func(tx stock.Tx) (stock.Stock, error) { return tx.SetQuantity(ctx, k, 12) }, "",
			stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 12, Reserved: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got stock.Stock
			err := f.tx(func(tx stock.Tx) (err error) { got, err = tc.fn(tx); return err })
			if commerce.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want code %q", err, tc.code)
			}
			if tc.code == "" && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if tc.code == commerce.EValidation && !slices.Equal(commerce.ProblemsOf(err), []string{"quantity: must not be below the reserved quantity 4"}) {
				t.Errorf("got problems %q", commerce.ProblemsOf(err))
			}
		})
	}
	f.want(t, "p1/w1", 12, 4)
	if err := f.tx(func(tx stock.Tx) error {
		return tx.Create(ctx, stock.Stock{ProductID: "p1", WarehouseID: "w2", Quantity: 0})
	}); err != nil {
		t.Fatalf("create with 0 on hand: %v", err)
	}
	f.want(t, "p1/w2", 0, 0)
}

func stockEvents(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, nil)
	ev := func(typ string) event.Event {
		e, err := event.New(event.Stock, typ, stockT0, map[string]string{"productId": "p1"})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	created := ev(event.Create)
	if err := f.tx(func(tx stock.Tx) error {
		if err := tx.Create(ctx, stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 3}); err != nil {
			return err
		}
		tx.Emit(created)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A failing change emits nothing: the duplicate, then a caller's error.
	_ = f.tx(func(tx stock.Tx) error {
		tx.Emit(ev(event.Create))
		return tx.Create(ctx, stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 3})
	})
	failure := errors.New("fixture failure")
	if err := f.tx(func(tx stock.Tx) error {
		if _, err := tx.SetQuantity(ctx, stock.Key{ProductID: "p1", WarehouseID: "w1"}, 9); err != nil {
			return err
		}
		tx.Emit(ev(event.Update))
		return failure
	}); !errors.Is(err, failure) {
		t.Fatalf("got %v, want the caller's error", err)
	}
	events, err := db.List(ctx, event.Filter{Channel: event.Stock, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].ID != created.ID {
		t.Fatalf("got %d events, want only the committed CREATE", len(events))
	}
	f.want(t, "p1/w1", 3, 0)
}

func stockReserve(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 10})
	r := f.reserve(t, "c1", "i1", "p1/w1", 3)
	f.want(t, "p1/w1", 10, 3)
	var listed []stock.Reservation
	if err := f.tx(func(tx stock.Tx) (err error) { listed, err = tx.Reservations(ctx, "c1"); return err }); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0] != r {
		t.Fatalf("got listed %+v, want [%+v] (expiration to the millisecond, UTC)", listed, r)
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
			err := f.tx(func(tx stock.Tx) error { return tx.Reserve(ctx, f.reservation("c2", "i1", tc.key, tc.q, time.Hour)) })
			wantShortage(t, err, tc.want)
			f.want(t, "p1/w1", 10, 3)
			wantHeld(t, f.held(t, "c2"))
		})
	}
	t.Run("rolled back with the caller's transaction", func(t *testing.T) {
		fail := commerce.Invalid("items[1].quantity: fixture failure")
		err := f.tx(func(tx stock.Tx) error {
			if err := tx.Reserve(ctx, f.reservation("c3", "i1", "p1/w1", 5, time.Hour)); err != nil {
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
}

func stockRelease(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 20, "p1/w2": 20})
	release := func(t *testing.T, item string, q int64) {
		t.Helper()
		if err := f.tx(func(tx stock.Tx) error { return tx.Release(ctx, "c1", item, q) }); err != nil {
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
	t.Run("released ones first", func(t *testing.T) {
		f.reserveFor(t, "c1", "i3", "p1/w2", 3, time.Hour)
		if err := f.tx(func(tx stock.Tx) error {
			_, err := tx.Sweep(ctx, stockT0.Add(time.Hour), 100)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		f.reserve(t, "c1", "i3", "p1/w2", 2)
		f.want(t, "p1/w2", 20, 2)
		release(t, "i3", 4) // the released 3 (holding nothing), then 1 of the active 2
		wantHeld(t, f.held(t, "c1"), "i2:w1:1", "i3:w2:1")
		f.want(t, "p1/w2", 20, 1)
	})
	t.Run("item and cart", func(t *testing.T) {
		f.reserve(t, "c1", "i4", "p1/w1", 4)
		f.reserve(t, "c2", "i1", "p1/w1", 5)
		if err := f.tx(func(tx stock.Tx) error { return tx.ReleaseItem(ctx, "c1", "i4") }); err != nil {
			t.Fatal(err)
		}
		wantHeld(t, f.held(t, "c1"), "i2:w1:1", "i3:w2:1")
		f.want(t, "p1/w1", 20, 6)
		if err := f.tx(func(tx stock.Tx) error { return tx.ReleaseCart(ctx, "c1") }); err != nil {
			t.Fatal(err)
		}
		wantHeld(t, f.held(t, "c1"))
		wantHeld(t, f.held(t, "c2"), "i1:w1:5")
		f.want(t, "p1/w1", 20, 5)
		f.want(t, "p1/w2", 20, 0)
	})
}

func stockCommit(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 10, "p2/w1": 5})
	commit := func(cart string) ([]stock.Reservation, error) {
		var rs []stock.Reservation
		err := f.tx(func(tx stock.Tx) (err error) { rs, err = tx.CommitCart(ctx, cart); return err })
		return rs, err
	}
	sweep := func(at time.Time) {
		if err := f.tx(func(tx stock.Tx) error { _, err := tx.Sweep(ctx, at, 100); return err }); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("reservations holding units", func(t *testing.T) {
		a := f.reserve(t, "c1", "i1", "p1/w1", 2)
		b := f.reserve(t, "c1", "i1", "p1/w1", 1)
		c := f.reserve(t, "c1", "i2", "p2/w1", 5)
		f.reserveFor(t, "c2", "i1", "p1/w1", 4, time.Hour)
		rs, err := commit("c1")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rs, []stock.Reservation{a, b, c}) {
			t.Errorf("got committed %+v, want %+v", rs, []stock.Reservation{a, b, c})
		}
		f.want(t, "p1/w1", 7, 4)
		f.want(t, "p2/w1", 0, 0)
		wantHeld(t, f.held(t, "c1"))
		wantHeld(t, f.held(t, "c2"), "i1:w1:4")
	})
	t.Run("released reservation taken again", func(t *testing.T) {
		f.reserveFor(t, "c3", "i1", "p1/w1", 2, time.Hour)
		sweep(stockT0.Add(time.Hour))
		f.want(t, "p1/w1", 7, 0) // c2's 4 were released too
		f.reserve(t, "c3", "i1", "p1/w1", 1)
		rs, err := commit("c3")
		if err != nil || len(rs) != 2 {
			t.Fatalf("got %+v, %v; want both reservations committed", rs, err)
		}
		f.want(t, "p1/w1", 4, 0)
		wantHeld(t, f.held(t, "c3"))
	})
	t.Run("released reservation no longer available", func(t *testing.T) {
		// c2's released 4 units: someone else took 1 of the 4 left, and
		// c2 also holds 1 unit of it.
		f.reserve(t, "c4", "i1", "p1/w1", 1)
		f.reserve(t, "c2", "i1", "p1/w1", 1)
		f.want(t, "p1/w1", 4, 2)
		_, err := commit("c2")
		wantShortage(t, err, stock.Shortage{ProductID: "p1", WarehouseID: "w1", RequestedQuantity: 5, AvailableQuantity: 3})
		f.want(t, "p1/w1", 4, 2)
		wantHeld(t, f.held(t, "c2"), "i1:w1:4:expired", "i1:w1:1")
	})
	t.Run("past its time but not released: taken from what it holds", func(t *testing.T) {
		if err := f.tx(func(tx stock.Tx) error {
			_, err := tx.SetQuantity(ctx, stock.Key{ProductID: "p2", WarehouseID: "w1"}, 1)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		f.reserveFor(t, "c5", "i1", "p2/w1", 1, time.Minute) // long past, never swept
		if _, err := commit("c5"); err != nil {
			t.Fatal(err)
		}
		f.want(t, "p2/w1", 0, 0)
	})
	t.Run("empty cart", func(t *testing.T) {
		rs, err := commit("none")
		if err != nil || len(rs) != 0 {
			t.Fatalf("got %v, %v; want nothing committed", rs, err)
		}
	})
}

func stockReleaseExpired(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 10, "p1/w2": 10})
	f.reserveFor(t, "c1", "i1", "p1/w1", 3, time.Hour)
	f.reserveFor(t, "c2", "i1", "p1/w1", 2, 2*time.Hour)
	f.reserveFor(t, "c3", "i1", "p1/w2", 4, time.Hour) // another key: untouched
	releaseAt := func(at time.Time) int {
		t.Helper()
		var n int
		if err := f.tx(func(tx stock.Tx) (err error) {
			n, err = tx.ReleaseExpired(ctx, stock.Key{ProductID: "p1", WarehouseID: "w1"}, at)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := releaseAt(stockT0.Add(time.Hour - time.Millisecond)); n != 0 {
		t.Fatalf("before any expiration time: got %d released, want 0", n)
	}
	if n := releaseAt(stockT0.Add(time.Hour)); n != 1 {
		t.Fatalf("at c1's expiration time: got %d released, want 1", n)
	}
	f.want(t, "p1/w1", 10, 2)
	f.want(t, "p1/w2", 10, 4)
	wantHeld(t, f.held(t, "c1"), "i1:w1:3:expired")
	wantHeld(t, f.held(t, "c2"), "i1:w1:2")
	if n := releaseAt(stockT0.Add(time.Hour)); n != 0 {
		t.Fatalf("again: got %d released, want 0 (each once)", n)
	}
	if n := releaseAt(stockT0.Add(3 * time.Hour)); n != 1 {
		t.Fatalf("later: got %d released, want c2's", n)
	}
	f.want(t, "p1/w1", 10, 0)
	f.want(t, "p1/w2", 10, 4)
}

func stockSweep(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 10})
	f.reserveFor(t, "c1", "i1", "p1/w1", 3, 24*time.Hour)
	f.reserveFor(t, "c2", "i1", "p1/w1", 4, 25*time.Hour)
	sweep := func(at time.Time, limit int) int {
		t.Helper()
		var n int
		if err := f.tx(func(tx stock.Tx) (err error) { n, err = tx.Sweep(ctx, at, limit); return err }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cases := []struct {
		name     string
		at       time.Duration
		expired  int
		reserved int64
	}{
		{"nothing due", 24*time.Hour - time.Millisecond, 0, 7},
		{"due at its expiration time", 24 * time.Hour, 1, 4},
		{"released ones are not released again", 24 * time.Hour, 0, 4},
		{"the second one", 26 * time.Hour, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if n := sweep(stockT0.Add(tc.at), 100); n != tc.expired {
				t.Fatalf("got %d released, want %d", n, tc.expired)
			}
			f.want(t, "p1/w1", 10, tc.reserved)
		})
	}
	wantHeld(t, f.held(t, "c1"), "i1:w1:3:expired")
	wantHeld(t, f.held(t, "c2"), "i1:w1:4:expired")
	t.Run("up to the limit, oldest first", func(t *testing.T) {
		for i := range 5 {
			f.reserveFor(t, "big", strconv.Itoa(i), "p1/w1", 1, time.Duration(5-i)*time.Minute)
		}
		if n := sweep(stockT0.Add(time.Hour), 2); n != 2 {
			t.Fatalf("got %d released, want the limit 2", n)
		}
		wantHeld(t, f.held(t, "big"), "0:w1:1", "1:w1:1", "2:w1:1", "3:w1:1:expired", "4:w1:1:expired")
		if n := sweep(stockT0.Add(time.Hour), 10); n != 3 {
			t.Fatalf("got %d released, want the 3 left", n)
		}
		f.want(t, "p1/w1", 10, 0)
	})
}

// stockNoOversell races 200 reservations of one unit for the last 7 free
// units (10 on hand, 3 reserved), each in its own transaction.
func stockNoOversell(t *testing.T, db *sqldb.DB) {
	StockLastSeven(t, db)
	WantLastSeven(t, db, RaceReservations(t, []*sqldb.DB{db}, 200, 24, "c"))
}

// StockLastSeven creates the stock of p1 in w1: 10 units of which 3 are
// reserved by the cart "setup", for RaceReservations.
func StockLastSeven(t testing.TB, db *sqldb.DB) {
	t.Helper()
	ctx := context.Background()
	err := sqldb.NewStockStore(db).Update(ctx, func(tx stock.Tx) error {
		if err := tx.Create(ctx, stock.Stock{ProductID: "p1", WarehouseID: "w1", Quantity: 10}); err != nil {
			return err
		}
		return tx.Reserve(ctx, stock.Reservation{ID: "setup", CartID: "setup", ItemID: "i", ProductID: "p1", WarehouseID: "w1",
			Quantity: 3, ExpirationTime: stockT0.Add(24 * time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// RaceReservations makes n concurrent reservations of 1 unit of p1 in w1,
// each in its own transaction on one of dbs (in turn; several pools, or
// processes, on one database), at most par at a time per database, and
// returns how many succeeded. Any error other than not_enough_stock fails
// the test.
func RaceReservations(t testing.TB, dbs []*sqldb.DB, n, par int, cartPrefix string) int {
	t.Helper()
	ctx := context.Background()
	sems := make([]chan struct{}, len(dbs))
	for i := range dbs {
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
			cart := cartPrefix + strconv.Itoa(i)
			err := sqldb.NewStockStore(dbs[k]).Update(ctx, func(tx stock.Tx) error {
				return tx.Reserve(ctx, stock.Reservation{ID: cart, CartID: cart, ItemID: "i", ProductID: "p1", WarehouseID: "w1",
					Quantity: 1, ExpirationTime: stockT0.Add(time.Hour)})
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

// WantLastSeven checks that exactly the 7 free units of StockLastSeven
// were reserved, by 7 reservations.
func WantLastSeven(t testing.TB, db *sqldb.DB, succeeded int) {
	t.Helper()
	if succeeded != 7 {
		t.Errorf("got %d successful reservations, want 7", succeeded)
	}
	s, err := sqldb.NewStockStore(db).Stock(context.Background(), stock.Key{ProductID: "p1", WarehouseID: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM stock_reservations WHERE cart_id <> 'setup'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if s.Quantity != 10 || s.Reserved != 10 || rows != 7 {
		t.Errorf("got quantity %d, reserved %d, %d reservations; want 10, 10 (3 + the last 7), 7", s.Quantity, s.Reserved, rows)
	}
}

// stockSweepRacesCarts runs sweeps and per-key releases while carts
// release and commit the same expired reservations: each unit must be
// given back exactly once.
func stockSweepRacesCarts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	f := newStockFix(t, db, map[string]int64{"p1/w1": 100, "p1/w2": 100})
	const carts = 40
	for i := range carts {
		f.reserveFor(t, "c"+strconv.Itoa(i), "i1", "p1/w1", 1, time.Hour)
		f.reserveFor(t, "c"+strconv.Itoa(i), "i2", "p1/w2", 1, time.Hour)
	}
	later := stockT0.Add(2 * time.Hour)
	var wg sync.WaitGroup
	errs := make(chan error, carts+8)
	for range 4 {
		wg.Go(func() {
			if err := f.tx(func(tx stock.Tx) error { _, err := tx.Sweep(ctx, later, 1000); return err }); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			if err := f.tx(func(tx stock.Tx) error {
				_, err := tx.ReleaseExpired(ctx, stock.Key{ProductID: "p1", WarehouseID: "w1"}, later)
				return err
			}); err != nil {
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
	// Half the carts bought one unit in each warehouse; nothing is left
	// reserved, and no reservation is left.
	f.want(t, "p1/w1", 100-carts/2, 0)
	f.want(t, "p1/w2", 100-carts/2, 0)
	if n := count(t, db, `SELECT COUNT(*) FROM stock_reservations`); n != 0 {
		t.Errorf("got %d reservations left, want none", n)
	}
}
