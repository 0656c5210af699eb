package pricelist_test

import (
	"encoding/json"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestPriceListChangedWhileCartOpen: a price list changed while a cart is
// open reprices the cart at its next calculation, never an order; a
// checkout that finds a price the customer was not shown by the last
// calculation is refused (prices_changed) and changes nothing, and the
// order is placed at the price the next calculation showed.
func TestPriceListChangedWhileCartOpen(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		s.group("TRADE")
		p := s.product("A")
		l := s.priceList(map[string]any{"code": "trade", "currency": "USD", "groups": []string{"TRADE"},
			"prices": []map[string]any{{"productId": p, "amount": 80}}})
		tok := s.token("c1", "", "", "TRADE")

		c := s.newCart(tok, p, 2)
		shown := s.calc(tok, c.ID)
		if shown.Items[0].Price.Amount != 8000 || shown.Items[0].Price.PriceListID != l.ID {
			t.Fatalf("calculated before the change: %+v", shown.Items[0].Price)
		}
		// Another cart is checked out before the change: its order keeps
		// its price whatever the list does next.
		done := s.newCart(tok, p, 1)
		s.calc(tok, done.ID)
		before := s.checkout(tok, done.ID)

		s.Post(t, "/catalog/v1/priceList.update", s.Admin, map[string]any{"id": l.ID,
			"setPrices": []map[string]any{{"productId": p, "amount": 85}}}).Must(t)

		r := s.Post(t, "/cart/v1/cart.checkout", tok, s.checkoutBody(c.ID)).Expect(t, 400, "prices_changed")
		var items []string
		if err := json.Unmarshal(r.Data, &items); err != nil || len(items) != 1 || items[0] != shown.Items[0].ID {
			t.Fatalf("prices_changed data: %s", r.Data)
		}
		var info cart
		s.Get(t, "/cart/v1/cart.info?cartId="+c.ID, tok).Must(t).Decode(t, "cart", &info)
		if info.Status != "ACTIVE" || info.Items[0].Price.Amount != 8000 {
			t.Fatalf("the refused checkout changed the cart: %+v", info)
		}
		var orders []json.RawMessage
		s.Get(t, "/order/v1/order.list", s.Admin).Must(t).Decode(t, "data", &orders)
		if len(orders) != 1 {
			t.Fatalf("%d orders, want the one placed before the change", len(orders))
		}

		again := s.calc(tok, c.ID)
		if again.Items[0].Price.Amount != 8500 || again.Items[0].Price.PriceListID != l.ID {
			t.Fatalf("calculated after the change: %+v", again.Items[0].Price)
		}
		if paid := s.checkout(tok, c.ID); paid[p] != 8500 {
			t.Fatalf("order placed at %d, want the 8500 shown", paid[p])
		}
		var o struct {
			Items []struct {
				UnitPrice money `json:"unitPrice"`
			} `json:"items"`
		}
		s.Get(t, "/order/v1/order.list", s.Admin).Must(t).Decode(t, "data", &orders)
		for _, raw := range orders {
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
		}
		if before[p] != 8000 {
			t.Fatalf("the earlier order's price: %d", before[p])
		}

		// A list removed: the cart goes back to the product's own price.
		c2 := s.newCart(tok, p, 1)
		s.Post(t, "/catalog/v1/priceList.remove", s.Admin, map[string]any{"id": l.ID}).Must(t)
		s.Post(t, "/cart/v1/cart.checkout", tok, s.checkoutBody(c2.ID)).Expect(t, 400, "prices_changed")
		if got := s.calc(tok, c2.ID); got.Items[0].Price.Amount != 10000 || got.Items[0].Price.PriceListID != "" {
			t.Fatalf("after the list's removal: %+v", got.Items[0].Price)
		}
		if paid := s.checkout(tok, c2.ID); paid[p] != 10000 {
			t.Fatalf("order placed at %d, want 10000", paid[p])
		}
		// The earlier order did not move.
		var first struct {
			Items []struct {
				UnitPrice money `json:"unitPrice"`
			} `json:"items"`
		}
		s.Get(t, "/order/v1/order.list?limit=100", s.Admin).Must(t).Decode(t, "data", &orders)
		if err := json.Unmarshal(orders[len(orders)-1], &first); err != nil || first.Items[0].UnitPrice.Amount != 8000 {
			t.Fatalf("the first order changed: %s", orders[len(orders)-1])
		}
	})
}

// TestTiers: a cart line reprices when its quantity crosses a tier, up
// (addToCart) and down (removeFromCart); product.info shows the tier of
// the quantity asked for; promotions apply on top of a list's price; an
// admin's change of a customer's cart keeps the customer's group prices.
func TestTiers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		s.group("TRADE")
		p := s.product("A")
		l := s.priceList(map[string]any{"code": "volume", "currency": "USD", "groups": []string{"TRADE"}, "prices": []map[string]any{
			{"productId": p, "amount": 90}, {"productId": p, "amount": 80, "minQuantity": 5}, {"productId": p, "amount": 70, "minQuantity": 10}}})
		tok := s.token("c1", "", "", "TRADE")
		for q, want := range map[int]string{1: "90", 4: "90", 5: "80", 9: "80", 10: "70", 50: "70"} {
			if got := s.infoPrice(tok, p, q); got == nil || got.Amount.String() != want || got.PriceListID != l.ID {
				t.Fatalf("product.info for %d: %+v, want %s", q, got, want)
			}
		}
		if got := s.infoPrice(s.API, p, 10); got == nil || got.Amount.String() != "100" || got.PriceListID != "" {
			t.Fatalf("product.info for a token without the group: %+v", got)
		}

		c := s.newCart(tok, p, 4)
		if got := s.calc(tok, c.ID); got.Items[0].Price.Amount != 9000 {
			t.Fatalf("4 units: %+v", got.Items[0].Price)
		}
		s.Post(t, "/cart/v1/cart.addToCart", tok, map[string]any{"cartId": c.ID,
			"items": []map[string]any{{"productId": p, "quantity": 6, "warehouseId": "W1"}}}).Must(t)
		got := s.calc(tok, c.ID)
		if got.Items[0].Quantity != 10 || got.Items[0].Price.Amount != 7000 {
			t.Fatalf("10 units: %+v", got.Items[0])
		}
		// An admin recalculating the customer's cart keeps its group.
		if got := s.calc(s.Admin, c.ID); got.Items[0].Price.Amount != 7000 || got.Items[0].Price.PriceListID != l.ID {
			t.Fatalf("calculated by an admin: %+v", got.Items[0].Price)
		}
		s.Post(t, "/cart/v1/cart.removeFromCart", tok, map[string]any{"cartId": c.ID, "itemId": got.Items[0].ID, "quantity": 4}).Must(t)
		if got := s.calc(tok, c.ID); got.Items[0].Quantity != 6 || got.Items[0].Price.Amount != 8000 {
			t.Fatalf("6 units: %+v", got.Items[0])
		}

		// A promotion of 10 % applies on top of the list's price.
		s.Post(t, "/promotion/v2/promotion.create", s.Admin, map[string]any{
			"title": "10% off", "class": "default", "active": true, "priority": 1,
			"if":   map[string]any{"category": map[string]any{"id": s.category, "quantity": 1}},
			"then": map[string]any{"category": map[string]any{"id": s.category, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}},
		}).Must(t)
		var withPromo struct {
			Items []struct {
				Price     money `json:"price"`
				Discounts []struct {
					Quantity int   `json:"quantity"`
					Discount money `json:"discount"`
				} `json:"discounts"`
			} `json:"items"`
		}
		s.Get(t, "/cart/v1/cart.calculateCart?cartId="+c.ID, tok).Must(t).Decode(t, "cart", &withPromo)
		e := withPromo.Items[0]
		if e.Price.Amount != 8000 || len(e.Discounts) != 1 || e.Discounts[0].Discount.Amount != 800 || e.Discounts[0].Quantity != 6 {
			t.Fatalf("promotion on the list's price: %+v", e)
		}
	})
}
