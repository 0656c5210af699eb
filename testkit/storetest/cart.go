package storetest

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
)

// Cart is the suite of the cart store (cart.Store and cart.Tx): every
// method, its error codes, that a change and its stock reservations and
// events commit or roll back together, and that changes of one cart are
// serialised (no lost update).
func Cart(t *testing.T, open Opener) {
	t.Run("insert and read", func(t *testing.T) { cartInsert(t, open(t)) })
	t.Run("lock and save", func(t *testing.T) { cartSave(t, open(t)) })
	t.Run("all or nothing", func(t *testing.T) { cartAtomic(t, open(t)) })
	t.Run("save with reservations", func(t *testing.T) { cartSaveWithReservations(t, open(t)) })
	t.Run("expired", func(t *testing.T) { cartExpired(t, open(t)) })
	t.Run("no lost update", func(t *testing.T) { cartNoLostUpdate(t, open(t)) })
}

// fixtureCart returns an ACTIVE cart expiring at stockT0 + ttl.
func fixtureCart(id string, ttl time.Duration) *cart.Cart {
	return &cart.Cart{ID: id, CustomerID: "alice", Status: cart.StatusActive, Currency: "EUR", Country: "ES", Channel: "WEB",
		ExpirationTime: stockT0.Add(ttl), CreatedAt: stockT0, UpdatedAt: stockT0, Items: []*cart.Entry{}}
}

// insertCarts stores the carts, failing the test on an error.
func insertCarts(t *testing.T, s cart.Store, carts ...*cart.Cart) {
	t.Helper()
	err := s.Update(context.Background(), func(tx cart.Tx) error {
		for _, c := range carts {
			if err := tx.Insert(context.Background(), c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func cartInsert(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	c := fixtureCart("c1", time.Hour)
	c.Items = []*cart.Entry{{ID: "e1", ProductID: "p1", Title: "P1 - Fridge", Quantity: 2, UnitPrice: 12345, TaxCode: "default",
		Discounts: []cart.Discount{}, Reserves: []stock.Reservation{{ID: "r1", WarehouseID: "w1", Quantity: 2, ExpirationTime: stockT0.Add(time.Hour)}}}}
	c.ShippingAddress = &cart.Address{FirstName: "Ada", Address1: "1 Main St", PostCode: "96815", City: "Honolulu", State: "HI", Country: "US"}
	c.BillingSameAsShipping = true
	c.BeforeTax, c.Tax = 10203, 2142
	c.Payment = &payment.Record{PaymentID: "manual", Authorization: "manual-k", Amount: 12345, Currency: "EUR", Precision: 2}
	insertCarts(t, s, c)
	if c.Version != 1 {
		t.Errorf("got version %d after Insert, want 1", c.Version)
	}
	got, err := s.Cart(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("got %+v, want the cart as inserted %+v", got, c)
	}
	err = s.Update(ctx, func(tx cart.Tx) error { return tx.Insert(ctx, fixtureCart("c1", time.Hour)) })
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Errorf("second insert: got %v, want duplicate_key", err)
	}
	if _, err := s.Cart(ctx, "nope"); commerce.ErrorCode(err) != commerce.ECartNotFound || commerce.ErrorData(err) != "nope" {
		t.Errorf("unknown cart: got %v, want cart_not_found with the id", err)
	}
	for name, fn := range map[string]func(tx cart.Tx) error{
		"Lock":        func(tx cart.Tx) error { _, err := tx.Lock(ctx, "nope"); return err },
		"LockVersion": func(tx cart.Tx) error { _, err := tx.LockVersion(ctx, "nope"); return err },
	} {
		if err := s.Update(ctx, fn); commerce.ErrorCode(err) != commerce.ECartNotFound || commerce.ErrorData(err) != "nope" {
			t.Errorf("%s of an unknown cart: got %v, want cart_not_found with the id", name, err)
		}
	}
}

func cartSave(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	insertCarts(t, s, fixtureCart("c1", time.Hour))
	err := s.Update(ctx, func(tx cart.Tx) error {
		c, err := tx.Lock(ctx, "c1")
		if err != nil {
			return err
		}
		if v, err := tx.LockVersion(ctx, "c1"); err != nil || v != c.Version || v != 1 {
			t.Errorf("LockVersion: got %d, %v; want 1", v, err)
		}
		c.Status, c.Channel = cart.StatusCheckedOut, "MOBILE"
		c.ExpirationTime = stockT0.Add(2 * time.Hour)
		if err := tx.Save(ctx, c, nil); err != nil {
			return err
		}
		if c.Version != 2 {
			t.Errorf("got version %d after Save, want 2", c.Version)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Cart(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != cart.StatusCheckedOut || got.Version != 2 || !got.ExpirationTime.Equal(stockT0.Add(2*time.Hour)) {
		t.Errorf("got %+v, want the saved status, expiration and version 2", got)
	}
	if got.Channel != "WEB" {
		t.Errorf("got channel %q: Save changed a column it does not store (channel is set at creation)", got.Channel)
	}
	for _, tc := range []struct {
		name string
		c    *cart.Cart
	}{
		{"stale version", func() *cart.Cart { c := fixtureCart("c1", time.Hour); c.Version = 1; return c }()},
		{"unknown cart", fixtureCart("nope", time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(ctx, func(tx cart.Tx) error { return tx.Save(ctx, tc.c, nil) })
			if commerce.ErrorCode(err) != commerce.EConcurrentMod {
				t.Errorf("got %v, want concurrent_modification", err)
			}
		})
	}
}

// cartAtomic checks that a change of a cart, its reservations (through
// Tx.Stock) and its events commit together, or not at all.
func cartAtomic(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	f := newStockFix(t, db, map[string]int64{"p1/w1": 10})
	insertCarts(t, s, fixtureCart("c1", time.Hour))
	change := func(fail error) error {
		return s.Update(ctx, func(tx cart.Tx) error {
			c, err := tx.Lock(ctx, "c1")
			if err != nil {
				return err
			}
			if err := tx.Stock().Reserve(ctx, f.reservation("c1", "e1", "p1/w1", 4, time.Hour)); err != nil {
				return err
			}
			c.Tax++
			if err := tx.Save(ctx, c, nil); err != nil {
				return err
			}
			e, err := event.New(event.Carts, event.Update, stockT0, map[string]any{"id": c.ID})
			if err != nil {
				return err
			}
			tx.Emit(e)
			return fail
		})
	}
	failure := errors.New("fixture failure")
	if err := change(failure); !errors.Is(err, failure) {
		t.Fatalf("got %v, want the caller's error", err)
	}
	f.want(t, "p1/w1", 10, 0)
	if got, _ := s.Cart(ctx, "c1"); got.Version != 1 || got.Tax != 0 {
		t.Errorf("after a rollback: got version %d tax %d, want the cart unchanged", got.Version, got.Tax)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM events`); n != 0 {
		t.Errorf("got %d events after a rollback, want none", n)
	}
	if err := change(nil); err != nil {
		t.Fatal(err)
	}
	f.want(t, "p1/w1", 10, 4)
	wantHeld(t, f.held(t, "c1"), "e1:w1:4")
	if got, _ := s.Cart(ctx, "c1"); got.Version != 2 || got.Tax != 1 {
		t.Errorf("after a commit: got version %d tax %d, want 2 and 1", got.Version, got.Tax)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM events WHERE channel = 'CARTS'`); n != 1 {
		t.Errorf("got %d events after a commit, want 1", n)
	}
}

func cartExpired(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	done := fixtureCart("done", time.Minute)
	done.Status = cart.StatusCheckedOut
	insertCarts(t, s, fixtureCart("late", 3*time.Hour), fixtureCart("b", 2*time.Hour), fixtureCart("a", time.Hour), done)
	expired := func(at time.Duration, limit int) []string {
		t.Helper()
		var ids []string
		if err := s.Update(ctx, func(tx cart.Tx) error {
			carts, err := tx.Expired(ctx, stockT0.Add(at), limit)
			for _, c := range carts {
				ids = append(ids, c.ID)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	for _, tc := range []struct {
		name  string
		at    time.Duration
		limit int
		want  []string
	}{
		{"none due", time.Hour - time.Millisecond, 10, nil},
		{"due at its expiration time, ACTIVE only", time.Hour, 10, []string{"a"}},
		{"oldest expiration first", 2 * time.Hour, 10, []string{"a", "b"}},
		{"up to the limit", 4 * time.Hour, 2, []string{"a", "b"}},
		{"all", 4 * time.Hour, 10, []string{"a", "b", "late"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := expired(tc.at, tc.limit); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// cartNoLostUpdate runs 20 changes of one cart at once, each reading the
// cart under its lock and adding an entry: every one must be kept.
func cartNoLostUpdate(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	insertCarts(t, s, fixtureCart("c1", time.Hour))
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			err := s.Update(ctx, func(tx cart.Tx) error {
				c, err := tx.Lock(ctx, "c1")
				if err != nil {
					return err
				}
				c.Items = append(c.Items, &cart.Entry{ID: "e" + strconv.Itoa(i), ProductID: "p", Quantity: 1})
				return tx.Save(ctx, c, nil)
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
	got, err := s.Cart(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 20 || got.Version != 21 {
		t.Errorf("got %d entries at version %d, want 20 at version 21", len(got.Items), got.Version)
	}
}
