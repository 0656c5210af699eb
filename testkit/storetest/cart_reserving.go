package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
)

// cartSaveWithReservations checks Tx.Save with reservations as the cart service
// uses it (an add to cart, the cart not locked): the cart's update over
// its version, its reservations and its event commit together; the units
// of reservations lapsed at the cart's UpdatedAt are taken; a reservation
// with too few units (not_enough_stock, with its shortage) and a cart
// that moved (concurrent_modification, cart.Changed) fail the transaction
// and change nothing.
func cartSaveWithReservations(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCartStore(db)
	f := newStockFix(t, db, map[string]int64{"p1/w1": 5, "p2/w1": 5, "p3/w1": 5})
	insertCarts(t, s, fixtureCart("c1", time.Hour))
	save := func(version int64, rs ...stock.Reservation) error {
		c, err := s.Cart(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		c.Version = version
		c.Tax++
		return s.Update(ctx, func(tx cart.Tx) error {
			c.Version = version // fn may run again
			if err := tx.Save(ctx, c, rs); err != nil {
				return err
			}
			if c.Version != version+1 {
				t.Errorf("version after Save: %d, want %d", c.Version, version+1)
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
	wantShortage(t, err, stock.Shortage{ProductID: "p1", WarehouseID: "w1", RequestedQuantity: 3, AvailableQuantity: 2})
	unchanged("after a short reservation", 2, 1, 1)
	f.want(t, "p1/w1", 5, 3)
	f.want(t, "p2/w1", 5, 2)
	wantHeld(t, f.held(t, "c1"), "e1:w1:3", "e2:w1:2")

	// Over version 1, which moved: nothing is kept, the reservation
	// included.
	err = save(1, f.reservation("c1", "e2", "p2/w1", 1, time.Hour))
	if commerce.ErrorCode(err) != commerce.EConcurrentMod || err.Error() != cart.Changed("c1", 1).Error() {
		t.Errorf("a save over a version that moved: %v, want %v", err, cart.Changed("c1", 1))
	}
	unchanged("after a stale save", 2, 1, 1)
	f.want(t, "p2/w1", 5, 2)
	wantHeld(t, f.held(t, "c1"), "e1:w1:3", "e2:w1:2")

	// p3's 5 units are held by c2's reservation, lapsed at the cart's
	// UpdatedAt (stockT0): it is released, and its units taken.
	f.reserveFor(t, "c2", "x", "p3/w1", 5, -time.Minute)
	if err := save(2, f.reservation("c1", "e3", "p3/w1", 4, time.Hour)); err != nil {
		t.Fatalf("a save taking a lapsed reservation's units: %v", err)
	}
	unchanged("a save taking a lapsed reservation's units", 3, 2, 2)
	f.want(t, "p3/w1", 5, 4)
	wantHeld(t, f.held(t, "c1"), "e1:w1:3", "e2:w1:2", "e3:w1:4")
	wantHeld(t, f.held(t, "c2"), "x:w1:5:expired")
}
