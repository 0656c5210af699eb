package stock_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/testkit/testdb"
)

// clock is a clock the test moves.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// addProducts stores catalog products with the ids (DRAFT: stock may be
// recorded before a product goes ONLINE).
func addProducts(t testing.TB, db *sqldb.DB, ids ...string) {
	t.Helper()
	ps := make([]*catalog.Product, len(ids))
	for i, id := range ids {
		ps[i] = &catalog.Product{ID: id, SKU: "sku-" + id, Status: catalog.StatusDraft, Title: id}
	}
	err := sqldb.NewCatalogStore(db).Update(context.Background(), func(tx catalog.Tx) error { return tx.CreateProducts(context.Background(), ps) })
	if err != nil {
		t.Fatal(err)
	}
}

// fixture is the stock service over a real database, with a clock and a
// reservation TTL.
type fixture struct {
	db    *sqldb.DB
	store *sqldb.StockStore
	svc   *stock.Service
	clock *clock
}

func newFixture(t *testing.T, db *sqldb.DB, ttl time.Duration) *fixture {
	f := &fixture{db: db, store: sqldb.NewStockStore(db), clock: newClock()}
	f.svc = stock.NewService(f.store, f.clock.Now, ttl)
	addProducts(t, db, "p1", "p2")
	return f
}

func qty(n int64) *int64 { return &n }

func (f *fixture) create(t *testing.T, p, w string, q int64) {
	t.Helper()
	if _, err := f.svc.Create(context.Background(), stock.CreateInput{ProductID: p, WarehouseID: w, Quantity: qty(q)}); err != nil {
		t.Fatal(err)
	}
}

// reserve reserves as the cart does, in a store transaction.
func (f *fixture) reserve(cart, p, w string, q int64) (stock.Reservation, error) {
	var r stock.Reservation
	err := f.store.Update(context.Background(), func(tx stock.Tx) (err error) {
		r, err = f.svc.Reserve(context.Background(), tx, stock.Reservation{CartID: cart, ItemID: "i1", ProductID: p, WarehouseID: w, Quantity: q})
		return err
	})
	return r, err
}

func (f *fixture) want(t *testing.T, p, w string, quantity, reserved int64) {
	t.Helper()
	s, err := f.svc.Info(context.Background(), stock.InfoInput{ProductID: p, WarehouseID: w})
	if err != nil {
		t.Fatal(err)
	}
	if s.Quantity != quantity || s.Reserved != reserved {
		t.Fatalf("%s/%s: got quantity %d reserved %d, want %d and %d", p, w, s.Quantity, s.Reserved, quantity, reserved)
	}
}

func (f *fixture) events(t *testing.T) []event.Event {
	t.Helper()
	evs, err := f.db.List(context.Background(), event.Filter{Channel: event.Stock, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestInputValidation(t *testing.T) {
	cases := []struct {
		name     string
		p, w     string
		quantity *int64
		want     []string // problems; nil: valid
	}{
		{"valid", "p1", "w1", qty(5), nil},
		{"zero quantity", "p2", "w1", qty(0), nil},
		{"negative quantity", "p1", "w2", qty(-1), []string{"quantity: must be a non-negative integer"}},
		{"missing quantity", "p1", "w2", nil, []string{"quantity: required"}},
		{"blank ids", " ", "", qty(1), []string{"productId: required", "warehouseId: required"}},
	}
	db := testdb.SQLite(t)
	f := newFixture(t, db, 0)
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, cerr := f.svc.Create(ctx, stock.CreateInput{ProductID: tc.p, WarehouseID: tc.w, Quantity: tc.quantity})
			_, uerr := f.svc.Update(ctx, stock.UpdateInput{ProductID: tc.p, WarehouseID: tc.w, Quantity: tc.quantity})
			if tc.want == nil {
				if cerr != nil || uerr != nil {
					t.Fatalf("got %v and %v, want create and update to succeed", cerr, uerr)
				}
				return
			}
			for op, err := range map[string]error{"create": cerr, "update": uerr} {
				if got := commerce.ProblemsOf(err); commerce.ErrorCode(err) != commerce.EValidation || !slices.Equal(got, tc.want) {
					t.Errorf("%s: got %v, want validation_error %q", op, err, tc.want)
				}
			}
			if _, err := f.svc.Info(ctx, stock.InfoInput{ProductID: tc.p, WarehouseID: tc.w}); commerce.ErrorCode(err) == "" {
				t.Errorf("an invalid create stored a record")
			}
		})
	}
	if _, err := f.svc.Info(ctx, stock.InfoInput{ProductID: "p1"}); !slices.Equal(commerce.ProblemsOf(err), []string{"warehouseId: required"}) {
		t.Errorf("info without warehouse: got %v", err)
	}
	if n := len(f.events(t)); n != 4 {
		t.Errorf("got %d STOCK events, want 4 (the valid creates and updates only)", n)
	}
}

func TestCreate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 0)
		_, err := f.svc.Create(ctx, stock.CreateInput{ProductID: "nope", WarehouseID: "w1", Quantity: qty(5)})
		if commerce.ErrorCode(err) != commerce.EProductNotFound || commerce.ErrorData(err) != "nope" {
			t.Fatalf("unknown product: got %v (data %v), want product_not_found with the id", err, commerce.ErrorData(err))
		}
		if _, err := f.svc.Info(ctx, stock.InfoInput{ProductID: "nope", WarehouseID: "w1"}); commerce.ErrorCode(err) != commerce.EStockNotFound {
			t.Errorf("after product_not_found: got %v, want nothing stored (stock_not_found)", err)
		}
		// A warehouse id typed decomposed or precomposed is one warehouse.
		f.create(t, "p1", "cafe\u0301", 5)
		f.want(t, "p1", "caf\u00e9", 5, 0)
		_, err = f.svc.Create(ctx, stock.CreateInput{ProductID: "p1", WarehouseID: "caf\u00e9", Quantity: qty(1)})
		if commerce.ErrorCode(err) != commerce.EDuplicateKey {
			t.Errorf("same warehouse in NFC: got %v, want duplicate_key", err)
		}
		if evs := f.events(t); len(evs) != 1 || evs[0].Type != event.Create {
			t.Errorf("got %d events, want the one CREATE", len(evs))
		}
	})
}

// TestReserveTakesExpiredUnits is issue 9 defect 4: with a reservation
// TTL of 5 s, units whose reservation expired 2 s ago are free for another
// cart at once, before any sweep.
func TestReserveTakesExpiredUnits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 5*time.Second)
		f.create(t, "p1", "w1", 10)
		f.create(t, "p2", "w1", 10)
		if _, err := f.reserve("a", "p1", "w1", 10); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reserve("a", "p2", "w1", 4); err != nil {
			t.Fatal(err)
		}

		f.clock.Advance(5*time.Second - time.Millisecond)
		_, err := f.reserve("b", "p1", "w1", 1)
		if got, _ := commerce.ErrorData(err).(stock.Shortage); commerce.ErrorCode(err) != commerce.ENotEnoughStock || got.AvailableQuantity != 0 {
			t.Fatalf("before the expiration: got %v, want not_enough_stock with 0 available", err)
		}

		f.clock.Advance(2 * time.Second)
		r, err := f.reserve("b", "p1", "w1", 10)
		if err != nil {
			t.Fatalf("2 s after the expiration, before any sweep: got %v, want the 10 units", err)
		}
		if want := f.clock.Now().Add(5 * time.Second).Truncate(time.Millisecond); !r.ExpirationTime.Equal(want) {
			t.Errorf("got expiration %v, want %v", r.ExpirationTime, want)
		}
		f.want(t, "p1", "w1", 10, 10)
		f.want(t, "p2", "w1", 10, 4) // another product: left to the sweep
		err = f.store.Update(ctx, func(tx stock.Tx) error {
			rs, err := tx.Reservations(ctx, "a")
			if err != nil {
				return err
			}
			if len(rs) != 2 || !rs[0].Expired || rs[1].Expired {
				t.Errorf("got a's reservations %+v, want p1's released and p2's kept", rs)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := f.svc.Sweep(ctx); err != nil || n != 1 {
			t.Errorf("sweep: got %d, %v; want p2's reservation only", n, err)
		}
		f.want(t, "p2", "w1", 10, 0)
	})
}

// TestUpdateBelowExpiredReservations: reservations past their time hold
// nothing, so the quantity may go below them before the sweep.
func TestUpdateBelowExpiredReservations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newFixture(t, db, time.Hour)
		f.create(t, "p1", "w1", 10)
		if _, err := f.reserve("a", "p1", "w1", 6); err != nil {
			t.Fatal(err)
		}
		_, err := f.svc.Update(ctx, stock.UpdateInput{ProductID: "p1", WarehouseID: "w1", Quantity: qty(5)})
		if !slices.Equal(commerce.ProblemsOf(err), []string{"quantity: must not be below the reserved quantity 6"}) {
			t.Fatalf("below what is held: got %v, want validation_error", err)
		}
		f.want(t, "p1", "w1", 10, 6)
		f.clock.Advance(time.Hour)
		s, err := f.svc.Update(ctx, stock.UpdateInput{ProductID: "p1", WarehouseID: "w1", Quantity: qty(5)})
		if err != nil || s.Quantity != 5 || s.Reserved != 0 {
			t.Fatalf("after the reservation's time: got %+v, %v; want quantity 5, nothing reserved", s, err)
		}
		if _, err := f.svc.Update(ctx, stock.UpdateInput{ProductID: "p1", WarehouseID: "w9", Quantity: qty(1)}); commerce.ErrorCode(err) != commerce.EStockNotFound {
			t.Errorf("unknown pair: got %v, want stock_not_found", err)
		}
		evs := f.events(t)
		if len(evs) != 2 || evs[1].Type != event.Update {
			t.Fatalf("got %d events, want CREATE and one UPDATE", len(evs))
		}
		var payload struct{ Old, New stock.Stock }
		if err := json.Unmarshal(evs[1].Payload, &payload); err != nil {
			t.Fatal(err)
		}
		if payload.Old.Quantity != 10 || payload.Old.Reserved != 6 || payload.New.Quantity != 5 || payload.New.Reserved != 0 {
			t.Errorf("got UPDATE %s, want old 10/6 and new 5/0", evs[1].Payload)
		}
	})
}

func TestReserveSetsExpiry(t *testing.T) {
	db := testdb.SQLite(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	store := sqldb.NewStockStore(db)
	addProducts(t, db, "p1")
	svc := stock.NewService(store, func() time.Time { return now }, 2*time.Hour)
	if _, err := svc.Create(context.Background(), stock.CreateInput{ProductID: "p1", WarehouseID: "w", Quantity: qty(5)}); err != nil {
		t.Fatal(err)
	}
	var r stock.Reservation
	var listed []stock.Reservation
	err := store.Update(context.Background(), func(tx stock.Tx) (err error) {
		if r, err = svc.Reserve(context.Background(), tx, stock.Reservation{CartID: "c", ItemID: "i", ProductID: "p1", WarehouseID: "w", Quantity: 2}); err != nil {
			return err
		}
		listed, err = tx.Reservations(context.Background(), "c")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 3, 1, 13, 0, 0, 123000000, time.UTC)
	if !r.ExpirationTime.Equal(want) || r.ExpirationTime.Location() != time.UTC {
		t.Errorf("got expiration %v, want %v in UTC", r.ExpirationTime, want)
	}
	if r.ID == "" || len(listed) != 1 || listed[0] != r {
		t.Errorf("got reservation %+v, stored %+v: want the same one, with an id", r, listed)
	}
	if svc.TTL() != 2*time.Hour {
		t.Errorf("got TTL %v, want 2h", svc.TTL())
	}
	if d := stock.NewService(store, nil, 0).TTL(); d != stock.DefaultTTL {
		t.Errorf("got default TTL %v, want %v", d, stock.DefaultTTL)
	}
}

func TestReserveValidation(t *testing.T) {
	db := testdb.SQLite(t)
	f := newFixture(t, db, 0)
	f.create(t, "p1", "w", 10)
	valid := stock.Reservation{CartID: "c", ItemID: "i", ProductID: "p1", WarehouseID: "w", Quantity: 1}
	cases := []struct {
		name   string
		change func(r *stock.Reservation)
		want   string
	}{
		{"zero quantity", func(r *stock.Reservation) { r.Quantity = 0 }, "quantity: must be a positive integer"},
		{"negative quantity", func(r *stock.Reservation) { r.Quantity = -3 }, "quantity: must be a positive integer"},
		{"no cart", func(r *stock.Reservation) { r.CartID = "" }, "cartId: required"},
		{"no item", func(r *stock.Reservation) { r.ItemID = "" }, "itemId: required"},
		{"no product", func(r *stock.Reservation) { r.ProductID = "" }, "productId: required"},
		{"no warehouse", func(r *stock.Reservation) { r.WarehouseID = "" }, "warehouseId: required"},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := valid
			tc.change(&r)
			err := f.store.Update(ctx, func(tx stock.Tx) error { _, err := f.svc.Reserve(ctx, tx, r); return err })
			if got := commerce.ProblemsOf(err); commerce.ErrorCode(err) != commerce.EValidation || !slices.Equal(got, []string{tc.want}) {
				t.Fatalf("got %v, want validation_error %q", err, tc.want)
			}
			f.want(t, "p1", "w", 10, 0)
		})
	}
	err := f.store.Update(ctx, func(tx stock.Tx) error { return f.svc.Release(ctx, tx, "c", "i", 0) })
	if commerce.ErrorCode(err) != commerce.EValidation {
		t.Errorf("release of 0: got %v, want validation_error", err)
	}
}

func TestSweepInBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newFixture(t, db, time.Hour)
		q := int64(stock.SweepBatch + 1)
		f.create(t, "p1", "w1", q)
		err := f.store.Update(ctx, func(tx stock.Tx) error {
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
		f.want(t, "p1", "w1", q, q)
		if n, err := f.svc.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("nothing due: got %d, %v", n, err)
		}
		f.clock.Advance(time.Hour)
		if n, err := f.svc.Sweep(ctx); err != nil || n != stock.SweepBatch+1 {
			t.Fatalf("got %d expired, %v; want %d", n, err, stock.SweepBatch+1)
		}
		f.want(t, "p1", "w1", q, 0)
	})
}

func TestSweepInterval(t *testing.T) {
	for _, tc := range []struct{ ttl, want time.Duration }{
		{24 * time.Hour, 30 * time.Second},
		{2 * time.Minute, 30 * time.Second},
		{time.Minute, 15 * time.Second},
		{5 * time.Second, 1250 * time.Millisecond},
		{100 * time.Millisecond, 100 * time.Millisecond},
	} {
		if got := stock.SweepInterval(tc.ttl); got != tc.want {
			t.Errorf("SweepInterval(%v): got %v, want %v", tc.ttl, got, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(stock.Stock{ProductID: "p", WarehouseID: "w", Quantity: 10, Reserved: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"productId":"p","warehouseId":"w","quantity":10,"reserved":3,"available":7}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	b, err = json.Marshal(stock.Reservation{ID: "r", CartID: "c", ItemID: "i", ProductID: "p", WarehouseID: "w", Quantity: 2,
		ExpirationTime: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"r","warehouseId":"w","quantity":2,"expirationTime":"2026-01-02T03:04:05.006Z"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
