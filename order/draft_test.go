package order_test

import (
	"testing"

	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestDraftOrder: staff create a draft for a customer (by email), change
// it with the cart operations, and complete it: the order is the
// customer's, source DRAFT. The customer never sees the draft.
func TestDraftOrder(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		var cust struct{ ID string }
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "grace@example.com",
			"password": "correct horse battery", "firstName": "Grace", "lastName": "Hopper"}).Must(t).Decode(t, "customer", &cust)
		p := s.product("D1", "40.00", 10)
		body := map[string]any{"email": "Grace@example.com",
			"items":           []map[string]any{{"productId": p, "quantity": 2, "warehouseId": "W1"}},
			"shippingAddress": address()}
		s.Post(t, "/order/v1/draft.create", s.API, body).Expect(t, 403, "forbidden")
		s.Post(t, "/order/v1/draft.create", s.Admin, map[string]any{"customerId": "nobody"}).Expect(t, 404, "customer_not_found")
		var d struct {
			ID             string
			Status         string
			CustomerID     string
			ShippingMethod *struct{ ID string }
		}
		s.Post(t, "/order/v1/draft.create", s.Admin, body).Must(t).Decode(t, "draft", &d)
		if d.Status != "DRAFT" || d.CustomerID != cust.ID || d.ShippingMethod == nil {
			t.Fatalf("draft %+v: want DRAFT of the customer with the one shipping method", d)
		}
		if q, res := s.stock(p); q != 10 || res != 2 {
			t.Fatalf("stock %d/%d: want 10/2 reserved", q, res)
		}
		// The customer never sees it, nor changes it.
		custToken := s.customer(cust.ID)
		s.Get(t, "/cart/v1/cart.info?cartId="+d.ID, custToken).Expect(t, 404, "cart_not_found")
		add := map[string]any{"cartId": d.ID, "items": []map[string]any{{"productId": p, "quantity": 1, "warehouseId": "W1"}}}
		s.Post(t, "/cart/v1/cart.addToCart", custToken, add).Expect(t, 404, "cart_not_found")
		s.Post(t, "/order/v1/draft.complete", custToken, map[string]any{"id": d.ID, "paymentId": "manual",
			"paymentData": map[string]any{}}).Expect(t, 403, "forbidden")
		// Staff change it with the cart operations.
		s.Post(t, "/cart/v1/cart.addToCart", s.Admin, add).Must(t)
		var c struct{ Status string }
		s.Get(t, "/cart/v1/cart.info?cartId="+d.ID, s.Admin).Must(t).Decode(t, "cart", &c)
		if c.Status != "DRAFT" {
			t.Fatalf("after addToCart: status %s, want DRAFT", c.Status)
		}
		var o order.Order
		s.Post(t, "/order/v1/draft.complete", s.Admin, map[string]any{"id": d.ID, "paymentId": "manual",
			"paymentData": map[string]any{"method": "invoice"}}).Must(t).Decode(t, "order", &o)
		if o.Source != "DRAFT" || o.CustomerID != cust.ID || o.Email != "grace@example.com" || o.Items[0].Quantity != 3 ||
			o.Status != "PLACED" || o.Totals.Shipping.Amount != 2500 {
			t.Fatalf("order %+v: want the customer's, source DRAFT, 3 units, shipping", o)
		}
		if q, res := s.stock(p); q != 7 || res != 0 {
			t.Errorf("stock %d/%d: want 7/0", q, res)
		}
		s.Post(t, "/order/v1/draft.complete", s.Admin, map[string]any{"id": d.ID, "paymentId": "manual",
			"paymentData": map[string]any{}}).Expect(t, 400, "cart_not_active")
		// The customer sees the order, as any of theirs; a storefront
		// order's source is STOREFRONT.
		s.Get(t, "/order/v1/order.info?id="+o.ID, custToken).Must(t)
		if other, _ := s.order(s.API, 1); other.Source != "STOREFRONT" {
			t.Errorf("storefront order source %q", other.Source)
		}
		// A cart that is not a draft is not completed.
		active := s.cart(s.API, p, 1)
		s.Post(t, "/order/v1/draft.complete", s.Admin, map[string]any{"id": active, "paymentId": "manual",
			"paymentData": map[string]any{}}).Expect(t, 404, "cart_not_found")
	})
}
