package cart_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/stripemock"
	"github.com/commercekit/commerce/testkit/testdb"
)

// stripeFront is a local server in front of Stripe (stripe-mock), or
// answering a decline as Stripe does, recording the POSTs it gets.
type stripeFront struct {
	*httptest.Server
	decline atomic.Bool
	mu      sync.Mutex
	posts   []url.Values // form, plus "_path" and "_key" (Idempotency-Key)
}

func newStripeFront(t *testing.T, mock string) *stripeFront {
	u, err := url.Parse(mock)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	f := &stripeFront{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		form.Set("_path", r.URL.Path)
		form.Set("_key", r.Header.Get("Idempotency-Key"))
		f.mu.Lock()
		f.posts = append(f.posts, form)
		f.mu.Unlock()
		if f.decline.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusPaymentRequired)
			_, _ = io.WriteString(w, `{"error": {"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds",`+
				` "message": "Your card has insufficient funds.", "request_log_url": "https://dashboard.stripe.com/test/logs/req_1"}}`)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *stripeFront) take() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.posts
	f.posts = nil
	return p
}

// TestCheckoutWithStripe: cart.checkout with paymentId stripe authorises
// through the SDK against stripe-mock; a decline is 402 payment_failed
// and bad paymentData 400, both leaving the cart and the stock as they
// were.
func TestCheckoutWithStripe(t *testing.T) {
	mock := stripemock.Start(t)
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		front := newStripeFront(t, mock)
		clk := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
		s := newShop(t, db, func(o *app.Options) {
			o.Now, o.ReservationTTL, o.StockSweep, o.CartSweep = clk.Now, time.Hour, time.Hour, time.Hour
			o.StripeKey, o.StripeURL = stripemock.Key, front.URL
		})
		shippingMethods(t, s)
		cs := &checkoutShop{shop: s, clock: clk, product: s.product("P", nil)}
		s.stock(cs.product, "W1", 5)
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, cs.product, 2)
		setShipping(t, s, s.API, c.ID, address("US", "HI"))
		cs.cart = c.ID
		checkout := func(data any) apitest.Response {
			return s.Post(t, "/cart/v1/cart.checkout", s.API, map[string]any{"cartId": cs.cart, "paymentId": "stripe", "paymentData": data})
		}

		// Bad paymentData: refused before Stripe is called.
		r := checkout(map[string]any{"paymentMethod": "4242 4242 4242 4242"}).Expect(t, 400, commerce.EValidation)
		if !strings.Contains(string(r.Data), "paymentData.paymentMethod") {
			t.Errorf("got data %s, want paymentData.paymentMethod named", r.Data)
		}
		if posts := front.take(); len(posts) != 0 {
			t.Errorf("Stripe got %v, want nothing", posts)
		}
		cs.wantUnchanged(t, 2)

		// A decline.
		front.decline.Store(true)
		r = checkout(map[string]any{"paymentMethod": "pm_card_chargeDeclinedInsufficientFunds"}).Expect(t, 402, commerce.EPaymentFailed)
		if !sameJSON(r.Data, `{"provider":"stripe","code":"card_declined","message":"Your card has insufficient funds."}`) {
			t.Errorf("got data %s, want {provider stripe, code card_declined, message}", r.Data)
		}
		declined := front.take()
		if len(declined) != 1 || declined[0].Get("_key") == "" {
			t.Errorf("Stripe got %v, want one POST with an Idempotency-Key", declined)
		}
		cs.wantUnchanged(t, 2)

		// Authorised by stripe-mock.
		front.decline.Store(false)
		var got calcCart
		checkout(map[string]any{"paymentMethod": "pm_card_visa"}).Must(t).Decode(t, "cart", &got)
		if got.Status != "CHECKED_OUT" {
			t.Errorf("got status %s, want CHECKED_OUT", got.Status)
		}
		stored, err := sqldb.NewCartStore(db).Cart(context.Background(), cs.cart)
		if err != nil {
			t.Fatal(err)
		}
		if p := stored.Payment; p == nil || p.PaymentID != "stripe" || !strings.HasPrefix(p.Authorization, "pi_") ||
			p.Amount != 22500 || string(p.Data) != `{"paymentMethod":"pm_card_visa"}` {
			t.Errorf("got the payment %+v, want a stripe PaymentIntent of 225.00 keeping the payment method", p)
		}
		posts := front.take()
		if len(posts) != 1 {
			t.Fatalf("Stripe got %v, want one POST", posts)
		}
		p := posts[0]
		if p.Get("_path") != "/v1/payment_intents" || p.Get("capture_method") != "manual" || p.Get("confirm") != "true" ||
			p.Get("currency") != "usd" || p.Get("payment_method") != "pm_card_visa" || p.Get("metadata[cartId]") != cs.cart ||
			p.Get("amount") != "22500" || p.Get("_key") == "" || p.Get("_key") == declined[0].Get("_key") {
			t.Errorf("Stripe got %v, want a confirmed manual-capture PaymentIntent of 22500 usd under a new key", p)
		}
		if q, res := cs.stockInfo(cs.product, "W1"); q != 3 || res != 0 {
			t.Errorf("got stock %d reserved %d, want 3 and 0", q, res)
		}
	})
}
