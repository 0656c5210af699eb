package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
)

// cartSaveReserving checks Tx.SaveReserving as the cart service uses it
// (an add to cart): the cart's update over its version, its reservations
// and its event commit together; a reservation with too few units, and a
// cart that moved, fail the transaction and change nothing. Where the
// store checks them with the commit (PostgreSQL), the transaction fails
// with cart.ErrShort or cart.ErrStale; elsewhere SaveReserving returns
// the short reservations, or concurrent_modification.
func cartSaveReserving(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	f := newStockFix(t, db, map[string]int64{"p1/w1": 5, "p2/w1": 5})
	insertCarts(t, s, fixtureCart("c1", time.Hour))
	save := func(version int64, rs ...stock.Reservation) error {
		c, err := s.Cart(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		c.Version = version
		c.Tax++
		doc, err := c.Document()
		if err != nil {
			t.Fatal(err)
		}
		return s.Update(ctx, func(tx cart.Tx) error {
			c.Version = version // fn may run again
			short, err := tx.SaveReserving(ctx, c, doc, rs)
			if err != nil {
				return err
			}
			if len(short) > 0 {
				return cart.ErrShort // as the cart service does
			}
			if c.Version != version+1 {
				t.Errorf("version after SaveReserving: %d, want %d", c.Version, version+1)
			}
			e, err := event.New(event.Carts, event.Update, stockT0, map[string]any{"id": c.ID})
			if err != nil {
				return err
			}
			tx.Emit(e)
			return nil
		})
	}
	unchanged := func(what string, version int64, tax, events int) {
		t.Helper()
		got, err := s.Cart(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != version || got.Tax != int64(tax) {
			t.Errorf("%s: cart version %d tax %d, want %d and %d", what, got.Version, got.Tax, version, tax)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM events WHERE channel = 'CARTS'`); n != events {
			t.Errorf("%s: %d events, want %d", what, n, events)
		}
	}

	if err := save(1, f.reservation("c1", "e1", "p1/w1", 3, time.Hour), f.reservation("c1", "e2", "p2/w1", 2, time.Hour)); err != nil {
		t.Fatal(err)
	}
	unchanged("a save with its reservations", 2, 1, 1)
	f.want(t, "p1/w1", 5, 3)
	f.want(t, "p2/w1", 5, 2)
	wantHeld(t, f.held(t, "c1"), "e1:w1:3", "e2:w1:2")

	// p2 has enough, p1 not (2 left): nothing is kept.
	err := save(2, f.reservation("c1", "e2", "p2/w1", 1, time.Hour), f.reservation("c1", "e1", "p1/w1", 3, time.Hour))
	if !errors.Is(err, cart.ErrShort) {
		t.Errorf("a reservation with too few units: %v, want cart.ErrShort", err)
	}
	atCommit := db.Dialect().Pipelines()
	unchanged("after a short reservation", 2, 1, 1)
	f.want(t, "p1/w1", 5, 3)
	f.want(t, "p2/w1", 5, 2)
	wantHeld(t, f.held(t, "c1"), "e1:w1:3", "e2:w1:2")

	// Over version 1, which moved: nothing is kept, the reservation
	// included.
	err = save(1, f.reservation("c1", "e2", "p2/w1", 1, time.Hour))
	if atCommit && !errors.Is(err, cart.ErrStale) {
		t.Errorf("a save over a version that moved, checked with the commit: %v, want cart.ErrStale", err)
	}
	if !atCommit && commerce.ErrorCode(err) != commerce.EConcurrentMod {
		t.Errorf("a save over a version that moved: %v, want concurrent_modification", err)
	}
	unchanged("after a stale save", 2, 1, 1)
	f.want(t, "p2/w1", 5, 2)
	wantHeld(t, f.held(t, "c1"), "e1:w1:3", "e2:w1:2")
}
