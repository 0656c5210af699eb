package customer_test

import (
	"encoding/json"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestJourney: register, sign in with a guest cart, check out, see the
// order in order.list, refresh, reset the password, sign in again, remove
// the account: the order keeps its items and totals, its personal data is
// erased.
func TestJourney(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		prod := e.shop(t)

		// Register; fill a cart as a guest; sign in with it.
		ada := e.register(t, "ada@example.com", pw)
		var guest struct{ ID string }
		e.Post(t, "/cart/v1/cart.create", e.API, map[string]any{}).Must(t).Decode(t, "cart", &guest)
		e.Post(t, "/cart/v1/cart.addToCart", e.API, map[string]any{"cartId": guest.ID,
			"items": []map[string]any{{"productId": prod, "quantity": 2, "warehouseId": "W1"}}}).Must(t)
		r := e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": pw, "cartId": guest.ID}).Must(t)
		var s sessionView
		_ = json.Unmarshal(r.Raw, &s)

		// Check out the adopted cart with her token, naming no email: the
		// order takes her account's.
		r = e.Post(t, "/cart/v1/cart.checkout", s.AccessToken, map[string]any{"cartId": guest.ID, "shippingAddress": hawaii(),
			"paymentId": "manual", "paymentData": map[string]any{"method": "cash"}}).Must(t)
		var placed struct {
			ID         string          `json:"id"`
			Email      string          `json:"email"`
			CustomerID string          `json:"customerId"`
			Items      json.RawMessage `json:"items"`
			Totals     json.RawMessage `json:"totals"`
		}
		r.Decode(t, "order", &placed)
		if placed.ID == "" || placed.CustomerID != ada.ID || placed.Email != "ada@example.com" {
			t.Fatalf("order %s", r.Body["order"])
		}
		seesOrder := func(token string) bool {
			var list []struct{ ID string }
			e.Post(t, "/order/v1/order.list", token, map[string]any{}).Must(t).Decode(t, "data", &list)
			return len(list) == 1 && list[0].ID == placed.ID
		}
		if !seesOrder(s.AccessToken) {
			t.Fatal("order.list does not show her order")
		}
		bob := e.register(t, "bob@example.com", pw2)
		_ = bob
		if bobTok := e.login(t, "bob@example.com", pw2).AccessToken; seesOrder(bobTok) {
			t.Error("another customer sees her order")
		}

		// Refresh; reset the password; sign in again.
		r = e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s.RefreshToken}).Must(t)
		var s2 sessionView
		_ = json.Unmarshal(r.Raw, &s2)
		if !seesOrder(s2.AccessToken) {
			t.Error("the refreshed token does not see her order")
		}
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "ada@example.com"}).Must(t)
		evs := e.events(t, "PASSWORD_RESET")
		var p struct{ Token string }
		_ = json.Unmarshal(evs[len(evs)-1].Payload, &p)
		e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": p.Token, "password": "a fresh start, finally"}).Must(t)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s2.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)
		s3 := e.login(t, "ada@example.com", "a fresh start, finally")

		// Remove the account: the order stays, anonymised.
		e.Post(t, cv1+"customer.remove", s3.AccessToken, nil).Must(t)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s3.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)
		r = e.Post(t, "/order/v1/order.info", e.Admin, map[string]any{"id": placed.ID}).Must(t)
		var after struct {
			Email  string          `json:"email"`
			Items  json.RawMessage `json:"items"`
			Totals json.RawMessage `json:"totals"`
		}
		r.Decode(t, "order", &after)
		if after.Email != "[erased]" {
			t.Errorf("email %q", after.Email)
		}
		if string(after.Items) != string(placed.Items) || string(after.Totals) != string(placed.Totals) {
			t.Errorf("items or totals changed:\n%s\n%s", after.Items, after.Totals)
		}
		checkErased(t, "the order", r.Body["order"], "shippingAddress", "billingAddress")
		// The checked-out cart held the same addresses: erased too, its
		// items and totals kept.
		r = e.Post(t, "/cart/v1/cart.info", e.Admin, map[string]any{"cartId": guest.ID}).Must(t)
		var erasedCart struct {
			Status string            `json:"status"`
			Items  []json.RawMessage `json:"items"`
		}
		r.Decode(t, "cart", &erasedCart)
		if erasedCart.Status != "CHECKED_OUT" || len(erasedCart.Items) != 1 {
			t.Errorf("cart after removal: %s", r.Body["cart"])
		}
		checkErased(t, "the cart", r.Body["cart"], "shippingAddress")
		// calculateCart gives a checked-out cart as it stands: as stored
		// now, not as this process last stored it (it checked it out).
		r = e.Post(t, "/cart/v1/cart.calculateCart", e.Admin, map[string]any{"cartId": guest.ID}).Must(t)
		checkErased(t, "the cart (calculateCart)", r.Body["cart"], "shippingAddress")
	})
}
