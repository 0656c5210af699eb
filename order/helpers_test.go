package order_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
)

// shop is a running service with a category, a 21% gross default tax, a
// shipping method to Hawaii (25.00 USD) and helpers for orders.
type shop struct {
	*apitest.Server
	t        testing.TB
	category string
}

func newShop(t testing.TB, db *sqldb.DB, opts ...func(*app.Options)) *shop {
	t.Helper()
	s := &shop{Server: apitest.New(t, db, opts...), t: t}
	s.setup()
	return s
}

// setup creates the category, the tax and the shipping method.
func (s *shop) setup() {
	t := s.t
	var cat struct{ ID string }
	s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	s.category = cat.ID
	s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "default", "class": "default", "title": "IVA 21%", "rate": 21}).Must(t)
	s.Post(t, "/cart/v1/shipping.create", s.Admin, json.RawMessage(`{"title": "UPS", "active": true, "taxCode": "default",
		"rates": [{"locations": [{"country": "US", "state": "Hawaii"}], "rates": [{"currency": "USD", "amount": 25.00}]}]}`)).Must(t)
}

// product creates an ONLINE product with NORMAL stock at price (major
// units, USD) and puts quantity units in W1.
func (s *shop) product(sku, price string, quantity int) string {
	s.t.Helper()
	var p struct{ ID string }
	s.Post(s.t, "/catalog/v1/product.create", s.Admin, map[string]any{
		"sku": sku, "status": "ONLINE", "title": "Fridge " + sku, "brand": "Acme",
		"categories": []string{s.category}, "stockStatus": 0,
		"prices": []map[string]any{{"amount": json.Number(price), "currency": "USD"}},
	}).Must(s.t).Decode(s.t, "product", &p)
	s.Post(s.t, "/stock/v1/stock.create", s.Admin, map[string]any{"productId": p.ID, "warehouseId": "W1", "quantity": quantity}).Must(s.t)
	return p.ID
}

// stock returns the quantity on hand and reserved of a product in W1.
func (s *shop) stock(productID string) (quantity, reserved int) {
	s.t.Helper()
	var st struct{ Quantity, Reserved int }
	s.Get(s.t, fmt.Sprintf("/stock/v1/stock.info?productId=%s&warehouseId=W1", productID), s.Admin).Must(s.t).Decode(s.t, "stock", &st)
	return st.Quantity, st.Reserved
}

// cart creates a cart with the token and adds the items (productId,
// quantity pairs, from W1); it returns the cart's id.
func (s *shop) cart(token string, pairs ...any) string {
	s.t.Helper()
	var c struct{ ID string }
	s.Post(s.t, "/cart/v1/cart.create", token, map[string]any{}).Must(s.t).Decode(s.t, "cart", &c)
	var items []map[string]any
	for i := 0; i+1 < len(pairs); i += 2 {
		items = append(items, map[string]any{"productId": pairs[i], "quantity": pairs[i+1], "warehouseId": "W1"})
	}
	s.Post(s.t, "/cart/v1/cart.addToCart", token, map[string]any{"cartId": c.ID, "items": items}).Must(s.t)
	return c.ID
}

// checkoutBody is cart.checkout's body for the cart with manual payment.
func checkoutBody(cartID string) map[string]any {
	return map[string]any{"cartId": cartID, "shippingAddress": address(), "paymentId": "manual",
		"paymentData": map[string]any{"method": "cash"}}
}

// checkout checks the cart out and returns the order placed.
func (s *shop) checkout(token, cartID string) *order.Order {
	s.t.Helper()
	var o order.Order
	s.Post(s.t, "/cart/v1/cart.checkout", token, checkoutBody(cartID)).Must(s.t).Decode(s.t, "order", &o)
	return &o
}

// order places an order of n units of a new product (price 100.00) for
// the token and returns it with the product's id.
func (s *shop) order(token string, n int) (*order.Order, string) {
	s.t.Helper()
	p := s.product(commerce.NewID(), "100.00", 10)
	return s.checkout(token, s.cart(token, p, n)), p
}

// op calls an order operation with the admin token and returns the order.
func (s *shop) op(name string, body map[string]any) *order.Order {
	s.t.Helper()
	var o order.Order
	s.Post(s.t, "/order/v1/order."+name, s.Admin, body).Must(s.t).Decode(s.t, "order", &o)
	return &o
}

// customer returns an api token for a customer.
func (s *shop) customer(id string) string {
	return s.Token(s.t, commerce.Claims{Subject: "user-" + id, Scopes: []string{commerce.ScopeAPI}, CustomerID: id})
}

// events returns the ORDERS events, oldest first.
func (s *shop) events() []event.Event {
	s.t.Helper()
	var evs []event.Event
	s.Get(s.t, "/event/v1/event.list?channel=ORDERS&limit=1000", s.Admin).Must(s.t).Decode(s.t, "data", &evs)
	return evs
}

func address() map[string]any {
	return map[string]any{"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Main St", "postCode": "96815",
		"city": "Honolulu", "state": "Hawaii", "country": "US", "phone": "5551234"}
}

// addPending records op as a pending payment operation of the order id,
// as the first phase of an operation whose process then died would.
func addPending(t testing.TB, db *sqldb.DB, id string, op *order.Operation) {
	t.Helper()
	ctx := context.Background()
	err := sqldb.NewOrderStore(db).Update(ctx, func(tx order.Tx) error {
		cur, err := tx.Lock(ctx, id)
		if err != nil {
			return err
		}
		cur.Pending = append(cur.Pending, op)
		return tx.Save(ctx, cur)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// attemptsLeft returns how many checkout attempts are recorded.
func attemptsLeft(t testing.TB, db *sqldb.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM checkout_attempts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
