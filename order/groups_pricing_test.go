package order_test

import (
	"encoding/json"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// pricedItem is a cart line's unit price as cart.calculateCart answers
// it.
type pricedItem struct {
	ProductID string `json:"productId"`
	Quantity  int    `json:"quantity"`
	Price     struct {
		Amount      int64  `json:"amount"`
		PriceListID string `json:"priceListId"`
	} `json:"price"`
}

// TestDraftAndExchangePricedForGroups (docs/api.md section 26): a draft
// staff take for a customer of a group, and an exchange of their return,
// are priced by the group's price list exactly as the customer's own cart
// (their token's groups claim) is; staff changing the draft keep its
// groups (a tier crossed by their addToCart applies); a draft for an
// email without an account gets the prices for everyone.
func TestDraftAndExchangePricedForGroups(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		var cust struct{ ID string }
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "grace@example.com",
			"password": "correct horse battery", "firstName": "Grace", "lastName": "Hopper"}).Must(t).Decode(t, "customer", &cust)
		s.Post(t, "/customer/v1/group.create", s.Admin, map[string]any{"code": "TRADE"}).Must(t)
		s.Post(t, "/customer/v1/customer.update", s.Admin, map[string]any{"id": cust.ID, "groups": []string{"TRADE"}}).Must(t)
		var login struct {
			AccessToken string `json:"accessToken"`
		}
		res := s.Post(t, "/auth/v1/auth.login", s.API, map[string]any{"email": "grace@example.com", "password": "correct horse battery"}).Must(t)
		if err := json.Unmarshal(res.Raw, &login); err != nil || login.AccessToken == "" {
			t.Fatalf("auth.login: %v %s", err, res.Raw)
		}
		tok := login.AccessToken

		a, b := s.product("A1", "100.00", 20), s.product("B1", "130.00", 20)
		var list struct{ ID string }
		s.Post(t, "/catalog/v1/priceList.create", s.Admin, map[string]any{"code": "trade", "currency": "USD", "groups": []string{"TRADE"},
			"prices": []map[string]any{{"productId": a, "amount": 80}, {"productId": a, "amount": 70, "minQuantity": 3}, {"productId": b, "amount": 90}}}).
			Must(t).Decode(t, "priceList", &list)
		items := func(token, cartID string) []pricedItem {
			t.Helper()
			var c struct{ Items []pricedItem }
			s.Get(t, "/cart/v1/cart.calculateCart?cartId="+cartID, token).Must(t).Decode(t, "cart", &c)
			return c.Items
		}

		own := items(tok, s.cart(tok, a, 1))
		if len(own) != 1 || own[0].Price.Amount != 8000 || own[0].Price.PriceListID != list.ID {
			t.Fatalf("the customer's own cart: %+v, want 80.00 from the list", own)
		}

		var d struct{ ID string }
		s.Post(t, "/order/v1/draft.create", s.Admin, map[string]any{"customerId": cust.ID,
			"items": []map[string]any{{"productId": a, "quantity": 1, "warehouseId": "W1"}}}).Must(t).Decode(t, "draft", &d)
		if got := items(s.Admin, d.ID); len(got) != 1 || got[0] != own[0] {
			t.Fatalf("the draft: %+v, want the customer's own price %+v", got, own[0])
		}
		s.Post(t, "/cart/v1/cart.addToCart", s.Admin, map[string]any{"cartId": d.ID,
			"items": []map[string]any{{"productId": a, "quantity": 2, "warehouseId": "W1"}}}).Must(t)
		if got := items(s.Admin, d.ID); len(got) != 1 || got[0].Quantity != 3 || got[0].Price.Amount != 7000 || got[0].Price.PriceListID != list.ID {
			t.Fatalf("the draft after staff added 2: %+v, want the tier of 3 (70.00)", got)
		}
		var anon struct{ ID string }
		s.Post(t, "/order/v1/draft.create", s.Admin, map[string]any{"email": "walk-in@example.com",
			"items": []map[string]any{{"productId": a, "quantity": 1, "warehouseId": "W1"}}}).Must(t).Decode(t, "draft", &anon)
		if got := items(s.Admin, anon.ID); len(got) != 1 || got[0].Price.Amount != 10000 || got[0].Price.PriceListID != "" {
			t.Fatalf("a draft without an account: %+v, want the price for everyone", got)
		}

		// An exchange of the customer's return: B at the group's 90.00.
		o, _ := s.shipped(tok, 2)
		r := s.exchangeReturn(o, 1, b, 1)
		if r.Exchange == nil || len(r.Exchange.Items) != 1 || r.Exchange.Items[0].UnitPrice.Amount != 9000 {
			t.Fatalf("the exchange: %+v, want B at the group's 90.00", r.Exchange)
		}
		var shown struct {
			Price struct{ Amount json.Number }
		}
		s.Get(t, "/catalog/v1/product.info?currency=USD&id="+b, tok).Must(t).Decode(t, "product", &shown)
		if shown.Price.Amount != "90" {
			t.Errorf("product.info for the customer: %s, want 90 as the exchange", shown.Price.Amount)
		}
	})
}
