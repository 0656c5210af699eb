package cart_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// counting is a payment provider that counts its calls and records their
// idempotency keys; onAuthorize, when set, runs first and may refuse.
type counting struct {
	mu          sync.Mutex
	authorized  []string // idempotency keys
	voided      []payment.VoidRequest
	onAuthorize func(n int) error
}

func (c *counting) Authorize(ctx context.Context, r payment.AuthorizeRequest) (payment.Authorization, error) {
	c.mu.Lock()
	c.authorized = append(c.authorized, r.IdempotencyKey)
	n, hook := len(c.authorized), c.onAuthorize
	c.mu.Unlock()
	if hook != nil {
		if err := hook(n); err != nil {
			return payment.Authorization{}, err
		}
	}
	return manual.New().Authorize(ctx, r)
}

func (c *counting) Capture(ctx context.Context, r payment.CaptureRequest) (payment.Receipt, error) {
	return manual.New().Capture(ctx, r)
}

func (c *counting) Void(ctx context.Context, r payment.VoidRequest) (payment.Receipt, error) {
	c.mu.Lock()
	c.voided = append(c.voided, r)
	c.mu.Unlock()
	return manual.New().Void(ctx, r)
}

func (c *counting) Refund(ctx context.Context, r payment.RefundRequest) (payment.Receipt, error) {
	return manual.New().Refund(ctx, r)
}

// counts returns how many authorisations and voids were asked for.
func (c *counting) counts() (authorized, voided int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.authorized), len(c.voided)
}

// checkoutShop is a shop with the provider "counting", a product with 5
// units in W1 and a cart of 2 of them shipped to Hawaii, ready to check out.
type checkoutShop struct {
	*shop
	pay     *counting
	clock   *clock
	product string
	cart    string
}

func newCheckoutShop(t *testing.T, db *sqldb.DB) *checkoutShop {
	pay := &counting{}
	clk := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
	s := newShop(t, db, func(o *app.Options) {
		o.Now, o.ReservationTTL, o.StockSweep, o.CartSweep = clk.Now, time.Hour, time.Hour, time.Hour
		o.PaymentProviders = map[string]payment.Provider{"counting": pay}
	})
	shippingMethods(t, s)
	cs := &checkoutShop{shop: s, pay: pay, clock: clk, product: s.product("P", nil)}
	s.stock(cs.product, "W1", 5)
	c := s.newCart(s.API, nil)
	s.add(s.API, c.ID, cs.product, 2)
	setShipping(t, s, s.API, c.ID, address("US", "HI"))
	cs.cart = c.ID
	return cs
}

func (cs *checkoutShop) checkout(t *testing.T) apitest.Response {
	t.Helper()
	return cs.Post(t, "/cart/v1/cart.checkout", cs.API, map[string]any{"cartId": cs.cart, "paymentId": "counting", "paymentData": map[string]any{"po": "PO-1"}})
}

// checkouts counts the CHECKOUT events.
func (cs *checkoutShop) checkouts(t *testing.T) int {
	n := 0
	for _, e := range cs.events() {
		if e.Type == "CHECKOUT" {
			n++
		}
	}
	return n
}

// wantUnchanged checks that a failed checkout left the cart ACTIVE with
// its 2 units reserved, and wrote no CHECKOUT event.
func (cs *checkoutShop) wantUnchanged(t *testing.T, reserved int) {
	t.Helper()
	if got := cs.info(cs.API, cs.cart); got.Status != "ACTIVE" {
		t.Errorf("got status %s, want the cart ACTIVE", got.Status)
	}
	if q, r := cs.stockInfo(cs.product, "W1"); q != 5 || r != reserved {
		t.Errorf("got stock %d reserved %d, want 5 and %d", q, r, reserved)
	}
	if n := cs.checkouts(t); n != 0 {
		t.Errorf("got %d CHECKOUT events, want none", n)
	}
}

// TestCheckoutAuthorizesOnce: the checkout transaction retried after a
// serialization failure does not authorise again (issue 9 defect 13).
func TestCheckoutAuthorizesOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		cs := newCheckoutShop(t, db)
		store := &flakyStore{Store: sqldb.NewCartStore(db)}
		a := cs.App
		svc := cart.NewService(store, cart.Deps{Catalog: a.Catalog, Promotions: a.Promotion, Taxes: a.Tax, Shipping: a.Shipping,
			Stock: a.Stock, Payments: a.Payments}, cs.clock.Now, 0)
		store.fail.Store(1)
		ctx := commerce.WithClaims(context.Background(), commerce.Claims{Subject: "t", Scopes: []string{commerce.ScopeAPI}})
		c, err := svc.Checkout(ctx, cart.CheckoutInput{CartID: cs.cart, PaymentID: "counting", PaymentData: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if runs := store.runs.Load(); runs != 2 {
			t.Fatalf("the checkout transaction ran %d times, want 2 (one injected serialization failure)", runs)
		}
		if authorized, voided := cs.pay.counts(); authorized != 1 || voided != 0 {
			t.Errorf("got %d authorisations and %d voids, want 1 and 0", authorized, voided)
		}
		if c.Status != cart.StatusCheckedOut || c.Payment == nil || c.Payment.PaymentID != "counting" ||
			c.Payment.Authorization != "manual-"+cs.pay.authorized[0] || c.Payment.Amount != 2*10000+2500 {
			t.Errorf("got status %s payment %+v, want CHECKED_OUT with the one authorisation of 225.00", c.Status, c.Payment)
		}
		if q, r := cs.stockInfo(cs.product, "W1"); q != 3 || r != 0 {
			t.Errorf("got stock %d reserved %d, want 3 and 0 (committed once)", q, r)
		}
		if n := cs.checkouts(t); n != 1 {
			t.Errorf("got %d CHECKOUT events, want 1", n)
		}
	})
}

// flakyStore is the real cart store whose transactions fail with a
// serialization failure (after their function ran) while fail is positive,
// as PostgreSQL may; sqldb.Update then runs the function again.
type flakyStore struct {
	cart.Store
	fail atomic.Int32
	runs atomic.Int32 // runs of transaction functions
}

func (s *flakyStore) Update(ctx context.Context, fn func(tx cart.Tx) error) error {
	return s.Store.Update(ctx, func(tx cart.Tx) error {
		s.runs.Add(1)
		if err := fn(tx); err != nil {
			return err
		}
		if s.fail.Add(-1) >= 0 {
			return fmt.Errorf("injected serialization failure: %w", sqldb.ErrRetry)
		}
		return nil
	})
}

// TestCheckoutVoidsWhenTheTransactionFails: a checkout whose transaction
// fails after the authorisation (an expired reservation whose units are
// gone) voids it, and changes nothing else.
func TestCheckoutVoidsWhenTheTransactionFails(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		cs := newCheckoutShop(t, db)
		cs.clock.Advance(2 * time.Hour) // the cart's reservation is past its time
		other := cs.newCart(cs.API, nil)
		cs.add(cs.API, other.ID, cs.product, 5) // takes the released units
		r := cs.checkout(t).Expect(t, 400, "not_enough_stock")
		if !strings.Contains(string(r.Data), `"requestedQuantity":2`) {
			t.Errorf("got data %s, want the 2 units asked for", r.Data)
		}
		authorized, voided := cs.pay.counts()
		if authorized != 1 || voided != 1 {
			t.Fatalf("got %d authorisations and %d voids, want 1 and 1", authorized, voided)
		}
		if v := cs.pay.voided[0]; v.Reference != "manual-"+cs.pay.authorized[0] || v.IdempotencyKey != cs.pay.authorized[0]+":void" {
			t.Errorf("got void %+v, want the authorisation's reference under its key + \":void\"", v)
		}
		cs.wantUnchanged(t, 5)
	})
}

// TestCheckoutDeclined: a refusal of the provider is 402 payment_failed
// with {provider, code, message}, and changes nothing else.
func TestCheckoutDeclined(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		cs := newCheckoutShop(t, db)
		cs.pay.onAuthorize = func(int) error {
			return payment.Declined("card_declined", "Your card was declined.", errors.New("issuer said no"))
		}
		r := cs.checkout(t).Expect(t, 402, "payment_failed")
		if !sameJSON(r.Data, `{"provider":"counting","code":"card_declined","message":"Your card was declined."}`) {
			t.Errorf("got data %s, want {provider, code, message}", r.Data)
		}
		if authorized, voided := cs.pay.counts(); authorized != 1 || voided != 0 {
			t.Errorf("got %d authorisations and %d voids, want 1 and none", authorized, voided)
		}
		cs.wantUnchanged(t, 2)

		// A provider that fails otherwise is payment_failed too, without its details.
		cs.pay.onAuthorize = func(int) error { return errors.New("dial tcp 10.0.0.1:443: connection refused") }
		r = cs.checkout(t).Expect(t, 402, "payment_failed")
		if strings.Contains(string(r.Data), "10.0.0.1") || !strings.Contains(string(r.Data), `"code":"provider_error"`) {
			t.Errorf("got data %s, want provider_error without the cause", r.Data)
		}
		cs.wantUnchanged(t, 2)

		cs.pay.onAuthorize = nil
		cs.checkout(t).Must(t)
		if authorized, voided := cs.pay.counts(); authorized != 3 || voided != 0 {
			t.Errorf("got %d authorisations and %d voids, want 3 and none", authorized, voided)
		}
	})
}

// TestCheckoutCartMovedDuringAuthorisation: when the cart changes while
// the provider authorises, that authorisation is voided and the checkout
// runs again on the new cart, with a new idempotency key.
func TestCheckoutCartMovedDuringAuthorisation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		cs := newCheckoutShop(t, db)
		cs.pay.onAuthorize = func(n int) error {
			if n == 1 {
				cs.add(cs.API, cs.cart, cs.product, 1) // another request changes the cart
			}
			return nil
		}
		var got calcCart
		cs.checkout(t).Must(t).Decode(t, "cart", &got)
		authorized, voided := cs.pay.counts()
		if authorized != 2 || voided != 1 || cs.pay.authorized[0] == cs.pay.authorized[1] {
			t.Fatalf("got authorisations %q and %d voids, want 2 with distinct keys and 1 void", cs.pay.authorized, voided)
		}
		if cs.pay.voided[0].Reference != "manual-"+cs.pay.authorized[0] {
			t.Errorf("voided %+v, want the first authorisation", cs.pay.voided[0])
		}
		if got.Status != "CHECKED_OUT" || got.entry(t, cs.product).Quantity != 3 {
			t.Errorf("got status %s with %d units, want CHECKED_OUT with the 3 units", got.Status, got.entry(t, cs.product).Quantity)
		}
		if q, r := cs.stockInfo(cs.product, "W1"); q != 2 || r != 0 {
			t.Errorf("got stock %d reserved %d, want 2 and 0", q, r)
		}
	})
}
