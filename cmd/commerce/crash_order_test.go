package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
	"github.com/commercekit/commerce/payment/stripe"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// checkoutCrashTest streams checkouts (cart.create, addToCart, checkout,
// half of them with stripe against a recording fake of Stripe's API, half
// with manual) at a serve process, kills it with SIGKILL mid-stream,
// starts it again on the same storage, and checks that every checkout
// answered ok has its order (with its payment) and its events, that
// every order belongs to a CHECKED_OUT cart naming it, with one ORDERS
// CREATE and one CARTS CHECKOUT event, and that the stock went down by
// exactly the units of the orders. Then the recovery job (run here at
// once) must void, at Stripe, every authorisation the kill left without
// an order, and none that has one.
func checkoutCrashTest(t *testing.T, db string) {
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "crash", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	fake := newFakeStripe(t)
	const stripeKey = "sk_test_crash"
	stripeFlags := []string{"--stripe-key", stripeKey, "--stripe-url", fake.URL}
	c := startChild(t, db, stripeFlags...)
	client := &http.Client{Timeout: 10 * time.Second}
	must := func(path string, body map[string]any, name string, v any) {
		t.Helper()
		status, res, err := post(client, c.base+path, admin, body)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s", path, status, err, res["error"])
		}
		if v != nil {
			json.Unmarshal(res[name], v)
		}
	}
	var cat, prod struct{ ID string }
	must("/catalog/v1/category.create", map[string]any{"title": "Crash", "slug": "crash", "parent": "ROOT"}, "category", &cat)
	must("/catalog/v1/product.create", map[string]any{"sku": "crash", "status": "ONLINE", "title": "Crash", "categories": []string{cat.ID},
		"stockStatus": 0, "prices": []map[string]any{{"amount": 10.5, "currency": "USD"}}}, "product", &prod)
	const initial = 100000
	must("/stock/v1/stock.create", map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": initial}, "", nil)
	must("/cart/v1/shipping.create", map[string]any{"title": "Post", "active": true, "taxCode": "default",
		"rates": []map[string]any{{"locations": []map[string]any{{"country": "US"}}, "rates": []map[string]any{{"currency": "USD", "amount": 5}}}}}, "", nil)
	addr := map[string]any{"firstName": "Ada", "lastName": "L", "address_1": "1 Main St", "postCode": "10001", "city": "New York",
		"state": "New York", "country": "US", "phone": "555"}

	var mu sync.Mutex
	acked := map[string]string{} // cart id -> order id
	var wg sync.WaitGroup
	stopAt := make(chan struct{})
	for w := range 6 {
		pay := map[string]any{"paymentId": "manual", "paymentData": map[string]any{}}
		if w%2 == 0 {
			pay = map[string]any{"paymentId": "stripe", "paymentData": map[string]any{"paymentMethod": "pm_card_visa"}}
		}
		wg.Go(func() {
			for {
				select {
				case <-stopAt:
					return
				default:
				}
				status, res, err := post(client, c.base+"/cart/v1/cart.create", admin, map[string]any{})
				if err != nil || status != 200 {
					return
				}
				var cart struct{ ID string }
				json.Unmarshal(res["cart"], &cart)
				status, _, err = post(client, c.base+"/cart/v1/cart.addToCart", admin, map[string]any{"cartId": cart.ID,
					"items": []map[string]any{{"productId": prod.ID, "quantity": 2, "warehouseId": "W1"}}})
				if err != nil || status != 200 {
					return
				}
				status, res, err = post(client, c.base+"/cart/v1/cart.checkout", admin, map[string]any{"cartId": cart.ID,
					"shippingAddress": addr, "paymentId": pay["paymentId"], "paymentData": pay["paymentData"]})
				if err != nil {
					return // the server died
				}
				if status != 200 {
					t.Errorf("checkout %s: %d %s", cart.ID, status, res["error"])
					return
				}
				var o struct{ ID string }
				json.Unmarshal(res["order"], &o)
				mu.Lock()
				acked[cart.ID] = o.ID
				mu.Unlock()
			}
		})
	}
	ackedN := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	for deadline := time.Now().Add(30 * time.Second); ackedN() < 40 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	// Kill once a stripe checkout is caught between its authorisation
	// and its transaction (at least one authorisation without an order).
	held, release := fake.hold()
	defer release()
	for deadline := time.Now().Add(10 * time.Second); held() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	c.kill()
	release()
	close(stopAt)
	wg.Wait()
	if held() == 0 {
		t.Errorf("no stripe checkout was between its authorisation and its transaction at the kill")
	}
	if len(acked) < 40 {
		t.Fatalf("only %d checkouts before the kill", len(acked))
	}

	c = startChild(t, db, stripeFlags...)
	defer c.stop(t)
	type orderRec struct {
		ID, CartID, Number string
		Items              []struct{ Quantity int }
		Payments           []struct{ Provider, Status, Reference string }
	}
	orders := map[string]orderRec{}
	for skip := 0; ; skip += 1000 {
		var data []orderRec
		must("/order/v1/order.list", map[string]any{"limit": 1000, "skip": skip}, "data", &data)
		for _, o := range data {
			orders[o.ID] = o
		}
		if len(data) < 1000 {
			break
		}
	}
	events := func(channel, typ string) map[string]int {
		out := map[string]int{}
		after := ""
		for {
			args := map[string]any{"channel": channel, "type": typ, "limit": 1000}
			if after != "" {
				args["after"] = after
			}
			var data []struct {
				ID      string
				Payload struct {
					Order struct{ ID string }
					New   struct{ ID string }
				}
			}
			must("/event/v1/event.list", args, "data", &data)
			for _, e := range data {
				out[e.Payload.Order.ID+e.Payload.New.ID]++
				after = e.ID
			}
			if len(data) < 1000 {
				return out
			}
		}
	}
	created, checkedOut := events("ORDERS", "CREATE"), events("CARTS", "CHECKOUT")
	for cartID, orderID := range acked {
		if o, ok := orders[orderID]; !ok || o.CartID != cartID {
			t.Errorf("acknowledged checkout of cart %s: order %s missing after the crash", cartID, orderID)
		}
	}
	units := 0
	for id, o := range orders {
		var cart struct{ Status, OrderID string }
		must("/cart/v1/cart.info", map[string]any{"cartId": o.CartID}, "cart", &cart)
		if cart.Status != "CHECKED_OUT" || cart.OrderID != id {
			t.Errorf("order %s: cart %s is %s with orderId %q", id, o.CartID, cart.Status, cart.OrderID)
		}
		if len(o.Payments) != 1 || o.Payments[0].Status != "AUTHORIZED" || o.Payments[0].Reference == "" {
			t.Errorf("order %s: payments %+v, want one authorisation", id, o.Payments)
		}
		if created[id] != 1 || checkedOut[o.CartID] != 1 {
			t.Errorf("order %s: %d CREATE events, cart %d CHECKOUT events; want 1 each", id, created[id], checkedOut[o.CartID])
		}
		for _, it := range o.Items {
			units += it.Quantity
		}
	}
	if len(created) != len(orders) || len(checkedOut) != len(orders) {
		t.Errorf("%d orders, %d CREATE events, %d CHECKOUT events: want as many", len(orders), len(created), len(checkedOut))
	}
	var st struct{ Quantity int }
	must("/stock/v1/stock.info", map[string]any{"productId": prod.ID, "warehouseId": "W1"}, "stock", &st)
	if st.Quantity != initial-units {
		t.Errorf("stock %d, want %d (%d units in orders)", st.Quantity, initial-units, units)
	}
	// Authorisations the kill left without an order are the checkout
	// attempts still recorded: none of them placed an order, and the
	// recovery job (run here at once rather than after 2 minutes) voids
	// them all.
	var sdb *sqldb.DB
	if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
		sdb = testdb.SQLiteAt(t, path)
	} else {
		sdb = testdb.PostgresAt(t, db)
	}
	numbers := map[string]bool{}
	for _, o := range orders {
		numbers[o.Number] = true
	}
	store := sqldb.NewOrderStore(sdb)
	left, err := store.StaleCheckouts(context.Background(), time.Now().Add(time.Hour), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range left {
		if numbers[a.Request.OrderNumber] {
			t.Errorf("checkout attempt %s left behind, yet order %s exists", a.Request.IdempotencyKey, a.Request.OrderNumber)
		}
	}
	sp, err := stripe.New(stripe.Options{Key: stripeKey, URL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	providers, _ := payment.NewProviders(map[string]payment.Provider{manual.ID: manual.New(), stripe.ID: sp})
	svc := order.NewService(store, providers, time.Now)
	svc.RecoverAfter = time.Nanosecond
	if n, err := svc.RecoverCheckouts(context.Background()); err != nil || n != len(left) {
		t.Errorf("recovery closed %d of %d attempts: %v", n, len(left), err)
	}
	if left, err := store.StaleCheckouts(context.Background(), time.Now().Add(time.Hour), 1000); err != nil || len(left) != 0 {
		t.Errorf("%d checkout attempts left after recovery (%v), want none", len(left), err)
	}
	// At Stripe: every authorisation has its order, or was voided; none
	// with an order was voided; each was made with its order's number.
	intents, voided := fake.intents()
	withOrder := map[string]string{}
	for _, o := range orders {
		if p := o.Payments; len(p) == 1 && p[0].Provider == stripe.ID {
			withOrder[p[0].Reference] = o.Number
		}
	}
	stripeAcked, orphans := 0, 0
	for cartID, orderID := range acked {
		if o := orders[orderID]; len(o.Payments) == 1 && o.Payments[0].Provider == stripe.ID {
			stripeAcked++
			if _, ok := intents[o.Payments[0].Reference]; !ok {
				t.Errorf("cart %s: order %s has the payment %s, which Stripe never authorised", cartID, orderID, o.Payments[0].Reference)
			}
		}
	}
	for pi, number := range intents {
		n, hasOrder := withOrder[pi]
		switch {
		case hasOrder && voided[pi] > 0:
			t.Errorf("authorisation %s of order %s was voided", pi, n)
		case hasOrder && number != n:
			t.Errorf("authorisation %s made with order number %q, its order is %s", pi, number, n)
		case !hasOrder:
			orphans++
			if voided[pi] == 0 {
				t.Errorf("authorisation %s (order number %q) has no order and was never voided", pi, number)
			}
		}
	}
	if stripeAcked == 0 || orphans < held() {
		t.Errorf("%d stripe checkouts acknowledged, %d authorisations without an order; want some, and at least the %d held at the kill",
			stripeAcked, orphans, held())
	}
	t.Logf("%d checkouts acknowledged before SIGKILL (%d with stripe), %d orders after restart, %d attempts closed by recovery, "+
		"%d of %d Stripe authorisations without an order", len(acked), stripeAcked, len(orders), len(left), orphans, len(intents))
}

func TestCheckoutCrashSQLite(t *testing.T) {
	checkoutCrashTest(t, "sqlite:"+filepath.Join(t.TempDir(), "commerce.db"))
}

func TestCheckoutCrashPostgres(t *testing.T) {
	checkoutCrashTest(t, testdb.PostgresURL(t))
}
