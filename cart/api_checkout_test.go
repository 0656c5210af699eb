package cart_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

func TestCheckout(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		sameDay, _ := shippingMethods(t, s)
		p := s.product("P", nil)
		s.stock(p, "W1", 5)

		empty := s.newCart(s.API, nil)
		checkout := func(body map[string]any) calcCart {
			var got calcCart
			s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "cart", &got)
			return got
		}
		pay := map[string]any{"paymentId": "manual", "paymentData": map[string]any{"method": "cash"}}
		with := func(m map[string]any) map[string]any {
			out := map[string]any{}
			for k, v := range pay {
				out[k] = v
			}
			for k, v := range m {
				out[k] = v
			}
			return out
		}
		noAddr := s.newCart(s.API, nil)
		s.add(s.API, noAddr.ID, p, 1)
		noMethod := s.newCart(s.API, nil)
		s.add(s.API, noMethod.ID, p, 1)
		setShipping(t, s, s.API, noMethod.ID, address("US", "CA"))

		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"empty cart", with(map[string]any{"cartId": empty.ID, "shippingAddress": address("US", "HI")}), 400, "validation_error"},
			{"no shipping address", with(map[string]any{"cartId": noAddr.ID}), 400, "shipping_address_notset"},
			{"no shipping method", with(map[string]any{"cartId": noMethod.ID}), 400, "invalid_shipping_method"},
			{"method not available", with(map[string]any{"cartId": noMethod.ID, "shippingMethod": sameDay}), 400, "invalid_shipping_method"},
			{"unknown payment", map[string]any{"cartId": noAddr.ID, "paymentId": "bitcoin", "paymentData": map[string]any{}}, 400, "validation_error"},
			{"no payment", map[string]any{"cartId": noAddr.ID}, 400, "validation_error"},
			{"payment data not an object", map[string]any{"cartId": noAddr.ID, "paymentId": "manual", "paymentData": "x"}, 400, "validation_error"},
			{"invalid address", with(map[string]any{"cartId": noAddr.ID, "shippingAddress": address("US", "Nowhere")}), 400, "invalid_state"},
			{"unknown cart", with(map[string]any{"cartId": "nope"}), 404, "cart_not_found"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s.Post(t, "/cart/v1/cart.checkout", s.API, tc.body).Expect(t, tc.status, tc.code)
			})
		}
		if got := s.info(s.API, noAddr.ID); got.ShippingAddress != nil || got.Status != "ACTIVE" {
			t.Errorf("a failed checkout changed the cart: %+v", got)
		}

		// Everything in the checkout call itself.
		got := checkout(with(map[string]any{"cartId": noAddr.ID, "shippingAddress": address("US", "Hawaii")}))
		if got.Status != "CHECKED_OUT" || got.ShippingMethod == nil || got.ShippingMethod.ID != sameDay {
			t.Fatalf("got status %s method %+v, want CHECKED_OUT with UPS Same Day", got.Status, got.ShippingMethod)
		}
		if got.BillingAddress["state"] != "Hawaii" {
			t.Errorf("got BillingAddress %v, want the shipping address by default", got.BillingAddress)
		}
		// 100 + 25 gross: 103.30 + 21.70.
		if got.Taxes.BeforeTax.Amount != 10330 || got.Taxes.Tax.Amount != 2170 {
			t.Errorf("got taxes %+v, want 10330 + 2170", got.Taxes)
		}
		if r := got.entry(t, p).Reserves; len(r) != 1 || r[0].Quantity != 1 {
			t.Errorf("got reserves %+v, want the committed reservation", r)
		}
		if q, r := s.stockInfo(p, "W1"); q != 4 || r != 1 {
			t.Errorf("got stock %d reserved %d, want 4 and 1 (the other cart's)", q, r)
		}
		evs := s.events()
		last := evs[len(evs)-1]
		var payload struct {
			Operation string          `json:"operation"`
			Data      map[string]any  `json:"data"`
			New       calcCart        `json:"new"`
			Payment   json.RawMessage `json:"payment"`
		}
		json.Unmarshal(last.Payload, &payload)
		if last.Type != "CHECKOUT" || payload.New.Status != "CHECKED_OUT" || payload.Data["paymentId"] != "manual" {
			t.Errorf("got last event %s %s, want CHECKOUT with the checked-out cart", last.Type, last.Payload)
		}
		if _, ok := payload.Data["paymentData"]; ok || strings.Contains(string(payload.Payment), "paymentData") ||
			!strings.Contains(string(payload.Payment), `"amount":12500`) || !strings.Contains(string(payload.Payment), `"paymentId":"manual"`) {
			t.Errorf("got data %v payment %s, want the payment (amount 12500) without its paymentData in the event", payload.Data, payload.Payment)
		}

		// A second checkout, and any change, is cart_not_active.
		r := s.Post(t, "/cart/v1/cart.checkout", s.API, with(map[string]any{"cartId": noAddr.ID})).Expect(t, 400, "cart_not_active")
		if errData(r) != `"CHECKED_OUT"` {
			t.Errorf("got data %s, want \"CHECKED_OUT\"", r.Data)
		}
		s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": noAddr.ID, "items": itemList(p, 1)}).Expect(t, 400, "cart_not_active")
		s.Post(t, "/cart/v1/cart.setBillingAddress", s.API, map[string]any{"cartId": noAddr.ID}).Expect(t, 400, "cart_not_active")
		// calculateCart leaves a checked-out cart as it was paid.
		if again := s.calc(s.API, noAddr.ID); again.Status != "CHECKED_OUT" || again.Taxes != got.Taxes || !again.ExpirationTime.Equal(got.ExpirationTime) {
			t.Errorf("got %+v, want the checked-out cart unchanged", again)
		}

		// Separate steps, billing given, then checkout with the method named.
		steps := s.newCart(s.API, nil)
		s.add(s.API, steps.ID, p, 2)
		setShipping(t, s, s.API, steps.ID, address("US", "AK"))
		got = checkout(with(map[string]any{"cartId": steps.ID, "shippingMethod": sameDay, "billingAddress": address("ES", "Madrid")}))
		if got.Status != "CHECKED_OUT" || got.BillingAddress["country"] != "ES" {
			t.Errorf("got %+v, want CHECKED_OUT with the billing address given", got)
		}
		if q, r := s.stockInfo(p, "W1"); q != 2 || r != 1 {
			t.Errorf("got stock %d reserved %d, want 2 and 1", q, r)
		}
	})
}

func TestOwnership(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("P", map[string]any{"stockStatus": 1})
		alice, bob := s.customer("alice"), s.customer("bob")
		mine := s.newCart(alice, nil)
		if mine.CustomerID != "alice" {
			t.Fatalf("got customerId %q, want alice", mine.CustomerID)
		}
		s.add(alice, mine.ID, p, 1)
		s.add(s.Admin, mine.ID, p, 1)
		for _, tc := range []struct {
			name, token string
		}{{"another customer", bob}, {"a token without customer", s.API}} {
			t.Run(tc.name, func(t *testing.T) {
				s.Get(t, "/cart/v1/cart.info?cartId="+mine.ID, tc.token).Expect(t, 404, "cart_not_found")
				s.Get(t, "/cart/v1/cart.calculateCart?cartId="+mine.ID, tc.token).Expect(t, 404, "cart_not_found")
				s.Post(t, "/cart/v1/cart.addToCart", tc.token, map[string]any{"cartId": mine.ID, "items": itemList(p, 1)}).Expect(t, 404, "cart_not_found")
				r := s.Post(t, "/cart/v1/cart.setShippingAddress", tc.token, map[string]any{"cartId": mine.ID, "shippingAddress": address("US", "HI")}).
					Expect(t, 404, "cart_not_found")
				if errData(r) != fmt.Sprintf("%q", mine.ID) {
					t.Errorf("got data %s, want the cart id", r.Data)
				}
			})
		}
		if got := s.info(alice, mine.ID); got.Items[0].Quantity != 2 {
			t.Errorf("got %d units, want 2 (alice's and the admin's adds)", got.Items[0].Quantity)
		}
		// An anonymous cart is anyone's who knows its id.
		anon := s.newCart(s.API, nil)
		s.add(bob, anon.ID, p, 1)
		s.info(alice, anon.ID)
	})
}

func TestExpiry(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
		s := newShop(t, db, func(o *app.Options) { o.Now = clk.Now; o.CartSweep, o.StockSweep = time.Hour, time.Hour })
		p := s.product("P", nil)
		s.stock(p, "W1", 10)

		lazy := s.newCart(s.API, nil)
		s.add(s.API, lazy.ID, p, 2)
		swept := s.newCart(s.API, nil)
		s.add(s.API, swept.ID, p, 3)
		used := s.newCart(s.API, nil)
		s.add(s.API, used.ID, p, 1)
		start := clk.Now()

		clk.Advance(6 * 24 * time.Hour)
		if got := s.info(s.API, used.ID); !got.ExpirationTime.Equal(start.Add(7 * 24 * time.Hour)) {
			t.Errorf("cart.info moved the expiration to %s", got.ExpirationTime)
		}
		if got := s.calc(s.API, used.ID); !got.ExpirationTime.Equal(clk.Now().Add(7 * 24 * time.Hour)) {
			t.Errorf("got expiration %s after calculateCart, want now + 7 days", got.ExpirationTime)
		}
		clk.Advance(24 * time.Hour)

		// Lazily, by a change: cart_not_active, and the expiry committed.
		r := s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": lazy.ID, "items": itemList(p, 1)}).Expect(t, 400, "cart_not_active")
		if errData(r) != `"EXPIRED"` {
			t.Errorf("got data %s, want \"EXPIRED\"", r.Data)
		}
		got := s.info(s.API, lazy.ID)
		if got.Status != "EXPIRED" || len(got.Items[0].Reserves) != 0 {
			t.Errorf("got status %s reserves %+v, want EXPIRED without reserves", got.Status, got.Items[0].Reserves)
		}
		if _, reserved := s.stockInfo(p, "W1"); reserved != 4 {
			t.Errorf("got %d reserved, want 4 (3 + 1 of the carts not yet expired)", reserved)
		}

		// By the sweep.
		n, err := s.App.Cart.Sweep(t.Context())
		if err != nil || n != 1 {
			t.Errorf("got sweep %d, %v, want 1 cart expired", n, err)
		}
		if got := s.info(s.API, swept.ID); got.Status != "EXPIRED" {
			t.Errorf("got status %s, want EXPIRED", got.Status)
		}
		if got := s.info(s.API, used.ID); got.Status != "ACTIVE" {
			t.Errorf("got status %s for the cart used a day ago, want ACTIVE", got.Status)
		}
		if _, reserved := s.stockInfo(p, "W1"); reserved != 1 {
			t.Errorf("got %d reserved, want 1", reserved)
		}
		if got := s.calc(s.API, swept.ID); got.Status != "EXPIRED" {
			t.Errorf("calculateCart of an expired cart: got status %s, want EXPIRED", got.Status)
		}
		s.Post(t, "/cart/v1/cart.checkout", s.API, map[string]any{"cartId": swept.ID, "paymentId": "manual", "paymentData": map[string]any{}}).
			Expect(t, 400, "cart_not_active")

		// cart.info expires a cart past its time too.
		clk.Advance(7 * 24 * time.Hour)
		if got := s.info(s.API, used.ID); got.Status != "EXPIRED" {
			t.Errorf("got status %s, want EXPIRED", got.Status)
		}
		if _, reserved := s.stockInfo(p, "W1"); reserved != 0 {
			t.Errorf("got %d reserved, want 0", reserved)
		}
		var expired int
		for _, e := range s.events() {
			if strings.Contains(string(e.Payload), `"operation":"cart.expire"`) {
				expired++
			}
		}
		if expired != 3 {
			t.Errorf("got %d expiry events, want 3", expired)
		}
	})
}

func TestBackgroundSweep(t *testing.T) {
	clk := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
	s := newShop(t, testdb.SQLite(t), func(o *app.Options) {
		o.Now, o.CartTTL, o.CartSweep, o.StockSweep = clk.Now, time.Hour, 10*time.Millisecond, time.Hour
	})
	p := s.product("P", nil)
	s.stock(p, "W1", 10)
	c := s.newCart(s.API, nil)
	if want := clk.Now().Add(time.Hour); !c.ExpirationTime.Equal(want) {
		t.Errorf("got expirationTime %s, want %s (the CartTTL option)", c.ExpirationTime, want)
	}
	s.add(s.API, c.ID, p, 2)
	clk.Advance(2 * time.Hour) // past the cart's hour, within the reservation's 24 h
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, reserved := s.stockInfo(p, "W1"); reserved == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background sweep did not release the expired cart's reservation within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.info(s.API, c.ID); got.Status != "EXPIRED" {
		t.Errorf("got status %s, want EXPIRED", got.Status)
	}
}

// A product made DRAFT or DISCONTINUED after it was added stops the
// checkout, and the cart stays as it was.
func TestCheckoutRechecksProducts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		shippingMethods(t, s)
		p := s.product("P", nil)
		s.stock(p, "W1", 5)
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 2)
		setShipping(t, s, s.API, c.ID, address("US", "HI"))
		pay := map[string]any{"cartId": c.ID, "paymentId": "manual", "paymentData": map[string]any{}}
		for _, tc := range []struct {
			change map[string]any
			status int
			code   string
		}{
			{map[string]any{"status": "DRAFT"}, 404, "product_not_found"},
			{map[string]any{"status": "ONLINE", "stockStatus": 2}, 400, "product_discontinued"},
		} {
			s.Post(t, "/catalog/v1/product.update?id="+p, s.Admin, tc.change).Must(t)
			r := s.Post(t, "/cart/v1/cart.checkout", s.API, pay).Expect(t, tc.status, tc.code)
			if errData(r) != `"`+p+`"` {
				t.Errorf("%s: got data %s, want the product id", tc.code, r.Data)
			}
			if got := s.info(s.API, c.ID); got.Status != "ACTIVE" {
				t.Errorf("%s: cart status %s, want ACTIVE", tc.code, got.Status)
			}
		}
		s.Post(t, "/catalog/v1/product.update?id="+p, s.Admin, map[string]any{"stockStatus": 0}).Must(t)
		if got := s.Post(t, "/cart/v1/cart.checkout", s.API, pay).Must(t); !strings.Contains(string(got.Raw), `"CHECKED_OUT"`) {
			t.Errorf("checkout after the product is salable again: %s", got.Raw)
		}
	})
}
