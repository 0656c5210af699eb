package cart_test

import (
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestExpiredReservationsAreFree is issue 9 defect 4 through the API: with
// --reservation-ttl 5s, a second cart takes units whose reservation
// expired 2 s earlier, before any sweep.
func TestExpiredReservationsAreFree(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
		s := newShop(t, db, func(o *app.Options) {
			o.Now, o.ReservationTTL, o.StockSweep, o.CartSweep = clk.Now, 5*time.Second, time.Hour, time.Hour
		})
		p := s.product("P", nil)
		s.stock(p, "W1", 10)
		first := s.newCart(s.API, nil)
		s.add(s.API, first.ID, p, 10)
		second := s.newCart(s.API, nil)
		s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": second.ID, "items": itemList(p, 1)}).
			Expect(t, 400, "not_enough_stock")

		clk.Advance(7 * time.Second)
		got := s.add(s.API, second.ID, p, 10)
		if r := got.entry(t, p).Reserves; len(r) != 1 || r[0].Quantity != 10 {
			t.Errorf("got reserves %+v, want the 10 units", r)
		}
		if q, reserved := s.stockInfo(p, "W1"); q != 10 || reserved != 10 {
			t.Errorf("got stock %d reserved %d, want 10 and 10 (the second cart's)", q, reserved)
		}
		if r := s.info(s.API, first.ID).entry(t, p).Reserves; len(r) != 0 {
			t.Errorf("the first cart still shows reserves %+v", r)
		}
	})
}

// TestCartShowsHeldReservations is issue 9 defect 5: a cart shows only the
// reservations it really holds, not those past their time or released by
// the sweep, in every answer; checkout takes released ones again.
func TestCartShowsHeldReservations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
		s := newShop(t, db, func(o *app.Options) {
			o.Now, o.ReservationTTL, o.StockSweep, o.CartSweep = clk.Now, time.Hour, time.Hour, time.Hour
		})
		shippingMethods(t, s)
		p, q := s.product("P", nil), s.product("Q", nil)
		s.stock(p, "W1", 10)
		s.stock(q, "W1", 10)
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 3)
		if r := s.info(s.API, c.ID).entry(t, p).Reserves; len(r) != 1 || r[0].Quantity != 3 {
			t.Fatalf("got reserves %+v, want the 3 units", r)
		}

		clk.Advance(2 * time.Hour) // past the reservation, before any sweep
		if r := s.info(s.API, c.ID).entry(t, p).Reserves; len(r) != 0 {
			t.Errorf("cart.info before the sweep: got reserves %+v, want none", r)
		}
		if n, err := s.App.Stock.Sweep(t.Context()); err != nil || n != 1 {
			t.Fatalf("sweep: got %d, %v; want 1 released", n, err)
		}
		if r := s.info(s.API, c.ID).entry(t, p).Reserves; len(r) != 0 {
			t.Errorf("cart.info after the sweep: got reserves %+v, want none", r)
		}
		if r := s.calc(s.API, c.ID).entry(t, p).Reserves; len(r) != 0 {
			t.Errorf("cart.calculateCart: got reserves %+v, want none", r)
		}
		added := s.add(s.API, c.ID, q, 2)
		if r := added.entry(t, p).Reserves; len(r) != 0 {
			t.Errorf("cart.addToCart: got reserves %+v of P, want none", r)
		}
		if r := added.entry(t, q).Reserves; len(r) != 1 || r[0].Quantity != 2 {
			t.Errorf("cart.addToCart: got reserves %+v of Q, want the 2 units", r)
		}

		// Checkout takes the released units again and shows what it committed.
		var out calcCart
		s.Post(t, "/cart/v1/cart.checkout", s.API, map[string]any{"cartId": c.ID, "shippingAddress": address("US", "HI"),
			"paymentId": "manual", "paymentData": map[string]any{}}).Must(t).Decode(t, "cart", &out)
		if r := out.entry(t, p).Reserves; out.Status != "CHECKED_OUT" || len(r) != 1 || r[0].Quantity != 3 {
			t.Errorf("got status %s reserves %+v, want CHECKED_OUT with the 3 units committed", out.Status, r)
		}
		if n, _ := s.stockInfo(p, "W1"); n != 7 {
			t.Errorf("got %d on hand, want 7", n)
		}
	})
}
