package cart_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/sqldb"
)

func TestCreate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		before := time.Now()
		c := s.newCart(s.API, nil)
		switch {
		case c.ID == "" || c.Status != "ACTIVE" || c.CustomerID != "ANON":
			t.Errorf("got id %q status %q customerId %q, want an id, ACTIVE, ANON", c.ID, c.Status, c.CustomerID)
		case c.Currency != "USD" || c.Country != "US" || c.Channel != "WEB":
			t.Errorf("got %s/%s/%s, want the defaults USD/US/WEB", c.Currency, c.Country, c.Channel)
		case c.Items == nil || len(c.Items) != 0 || !c.Promotions.OK || !c.Taxes.OK:
			t.Errorf("got items %v promotions.ok %v taxes.ok %v, want [] true true", c.Items, c.Promotions.OK, c.Taxes.OK)
		case c.Taxes.Tax != (money{0, "USD", 2}):
			t.Errorf("got taxes.tax %+v, want a zero money object", c.Taxes.Tax)
		}
		if exp := before.Add(7 * 24 * time.Hour); c.ExpirationTime.Before(exp.Add(-time.Second)) || c.ExpirationTime.After(exp.Add(time.Minute)) {
			t.Errorf("got expirationTime %s, want about %s (7 days)", c.ExpirationTime, exp)
		}

		mine := s.newCart(s.customer("C1"), map[string]any{"currency": "GBP", "country": "GB", "channel": "MOBILE"})
		if mine.CustomerID != "C1" || mine.Currency != "GBP" || mine.Country != "GB" || mine.Channel != "MOBILE" {
			t.Errorf("got %+v, want customer C1, GBP, GB, MOBILE", mine)
		}
		evs := s.events()
		if len(evs) != 2 || evs[0].Type != "CREATE" {
			t.Fatalf("got %d CARTS events (first %+v), want 2 CREATE", len(evs), evs)
		}
		var p struct {
			New  calcCart       `json:"new"`
			Data map[string]any `json:"data"`
		}
		json.Unmarshal(evs[1].Payload, &p)
		if p.New.ID != mine.ID || p.Data["currency"] != "GBP" {
			t.Errorf("got CREATE payload %s, want new = the cart and data = the request", evs[1].Payload)
		}

		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
			data   string
		}{
			{"unknown currency", map[string]any{"currency": "XXY"}, 400, "validation_error", ""},
			{"lower-case currency", map[string]any{"currency": "usd"}, 400, "validation_error", ""},
			{"unknown country", map[string]any{"country": "XX"}, 400, "invalid_country", `"XX"`},
			{"lower-case country", map[string]any{"country": "us"}, 400, "invalid_country", `"us"`},
			{"blank channel", map[string]any{"channel": " "}, 400, "validation_error", ""},
			{"unknown field", map[string]any{"customerId": "X"}, 400, "validation_error", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, "/cart/v1/cart.create", s.API, tc.body).Expect(t, tc.status, tc.code)
				if tc.data != "" && errData(r) != tc.data {
					t.Errorf("got data %s, want %s", r.Data, tc.data)
				}
			})
		}
		if n := len(s.events()); n != 2 {
			t.Errorf("got %d CARTS events after the failures, want still 2", n)
		}
	})
}

func TestInfo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		c := s.newCart(s.API, nil)
		got := s.info(s.API, c.ID)
		if got.ID != c.ID || !got.ExpirationTime.Equal(c.ExpirationTime) {
			t.Errorf("got %+v, want the cart as created", got)
		}
		var byID calcCart
		s.Post(t, "/cart/v1/cart.info", s.API, map[string]any{"id": c.ID}).Must(t).Decode(t, "cart", &byID)
		if byID.ID != c.ID {
			t.Errorf("cart.info by id: got %q, want %q", byID.ID, c.ID)
		}
		r := s.Get(t, "/cart/v1/cart.info?cartId=nope", s.API).Expect(t, 404, "cart_not_found")
		if errData(r) != `"nope"` {
			t.Errorf("got data %s, want the cart id", r.Data)
		}
		s.Get(t, "/cart/v1/cart.info", s.API).Expect(t, 400, "validation_error")
		s.Get(t, "/cart/v1/cart.create", s.API).Expect(t, 405, "method_not_allowed")
		s.Post(t, "/cart/v1/cart.info", "", map[string]any{"cartId": c.ID}).Expect(t, 401, "invalid_token")
	})
}

func TestAddToCart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		fridge := s.product("F1", map[string]any{"title": "Combi", "brand": "Bosch", "prices": []map[string]any{
			{"amount": json.Number("577.65"), "currency": "USD"},
			{"amount": json.Number("500"), "currency": "USD", "country": "ES"},
			{"amount": json.Number("450"), "currency": "USD", "customerType": "VIP"},
			{"amount": json.Number("400"), "currency": "EUR"},
		}})
		unlimited := s.product("U1", map[string]any{"stockStatus": 1, "brand": nil, "prices": []map[string]any{{"amount": 10, "currency": "USD"}}})
		s.stock(fridge, "W1", 100)
		s.stock(fridge, "W2", 10)

		c := s.newCart(s.API, nil)
		got := s.add(s.API, c.ID, fridge, 2, unlimited, 3)
		if len(got.Items) != 2 {
			t.Fatalf("got %d entries, want 2", len(got.Items))
		}
		e := got.entry(t, fridge)
		if e.Title != "F1 - Combi (Bosch)" || e.Quantity != 2 || e.Price.Amount != "577.65" || e.Price.Currency != "USD" {
			t.Errorf("got entry %+v, want F1 - Combi (Bosch), 2 x 577.65 USD", e)
		}
		// 1155.30 gross at 21%: net 954.79, tax 200.51.
		if e.BeforeTax != "954.79" || e.Tax != "200.51" || e.TaxDetail != "IVA 21%" {
			t.Errorf("got beforeTax %s tax %s detail %q, want 954.79 200.51 IVA 21%%", e.BeforeTax, e.Tax, e.TaxDetail)
		}
		if len(e.Reserves) != 1 || e.Reserves[0].Quantity != 2 || e.Reserves[0].WarehouseID != "W1" || e.Reserves[0].ID == "" {
			t.Errorf("got reserves %+v, want 2 units in W1", e.Reserves)
		}
		u := got.entry(t, unlimited)
		if u.Title != "U1 - Fridge U1" || len(u.Reserves) != 0 || u.Reserves == nil {
			t.Errorf("got unlimited entry %+v, want title without brand and reserves []", u)
		}
		// 30 gross: net 24.79, tax 5.21. Cart: 979.58 + 205.72.
		if got.BeforeTax != "979.58" || got.Tax != "205.72" || got.Taxes.BeforeTax != "979.58" || got.Taxes.Tax != "205.72" || !got.Taxes.OK {
			t.Errorf("got cart beforeTax %s tax %s taxes %+v, want 979.58 205.72 twice", got.BeforeTax, got.Tax, got.Taxes)
		}
		if q, r := s.stockInfo(fridge, "W1"); q != 100 || r != 2 {
			t.Errorf("got stock %d reserved %d, want 100 reserved 2", q, r)
		}

		// The same product again, from another warehouse: one entry.
		got = s.add(s.API, c.ID, fridge, 3)
		items := []map[string]any{{"productId": fridge, "quantity": 1, "warehouseId": "W2"}}
		var again addCart
		s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": c.ID, "items": items}).Must(t).Decode(t, "cart", &again)
		e = again.entry(t, fridge)
		if len(again.Items) != 2 || e.Quantity != 6 || len(e.Reserves) != 3 {
			t.Errorf("got %d entries, fridge quantity %d with %d reserves, want 2 entries, 6 units, 3 reserves", len(again.Items), e.Quantity, len(e.Reserves))
		}
		if _, r := s.stockInfo(fridge, "W2"); r != 1 {
			t.Errorf("got %d reserved in W2, want 1", r)
		}

		// Price selection from the token's claims.
		vip := s.Token(t, commerce.Claims{Subject: "v", Scopes: []string{"api"}, CustomerType: "VIP"})
		spain := s.Token(t, commerce.Claims{Subject: "e", Scopes: []string{"api"}, Country: "ES"})
		for _, tc := range []struct {
			name, token, want string
			body              map[string]any
		}{
			{"anonymous", s.API, "577.65", nil},
			{"VIP customer type", vip, "450", nil},
			{"country from the token", spain, "500", nil},
			{"country from the cart", s.API, "500", map[string]any{"country": "ES"}},
			{"currency of the cart", s.API, "400", map[string]any{"currency": "EUR"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := s.newCart(tc.token, tc.body)
				if got := s.add(tc.token, c.ID, fridge, 1).entry(t, fridge).Price.Amount; string(got) != tc.want {
					t.Errorf("got price %s, want %s", got, tc.want)
				}
			})
		}

		evs := s.events()
		last := evs[len(evs)-1]
		var p struct {
			Operation string          `json:"operation"`
			Data      json.RawMessage `json:"data"`
			New       calcCart        `json:"new"`
		}
		json.Unmarshal(last.Payload, &p)
		if last.Type != "UPDATE" || p.Operation != "cart.addToCart" || len(p.New.Items) != 1 || !strings.Contains(string(p.Data), `"items"`) {
			t.Errorf("got last event %s %s, want UPDATE {operation: cart.addToCart, data, new}", last.Type, last.Payload)
		}
	})
}

func TestAddToCartVariantTitle(t *testing.T) {
	s := newShop(t, testdb.SQLite(t))
	base := s.product("B", map[string]any{"modifiers": []string{"color", "size"}, "stockStatus": 1})
	v := s.product("B-RED-L", map[string]any{"title": "Shoe", "brand": "Run", "base": base, "stockStatus": 1,
		"variations": []map[string]any{{"id": "color", "value": "red"}, {"id": "size", "value": "L"}}})
	c := s.newCart(s.API, nil)
	if got := s.add(s.API, c.ID, v, 1).entry(t, v).Title; got != "B-RED-L - Shoe (Run) - red - L" {
		t.Errorf("got title %q, want %q", got, "B-RED-L - Shoe (Run) - red - L")
	}
}

func TestAddToCartErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		ok := s.product("OK", nil)
		s.stock(ok, "W1", 1000)
		draft := s.product("DRAFT", map[string]any{"status": "DRAFT"})
		gone := s.product("GONE", map[string]any{"stockStatus": 2})
		eur := s.product("EUR", map[string]any{"prices": []map[string]any{{"amount": 5, "currency": "EUR"}}})
		future := s.product("FUTURE", map[string]any{"prices": []map[string]any{{"amount": 5, "currency": "USD",
			"validFrom": "2999-01-01T00:00:00Z", "validUntil": "2999-12-31T00:00:00Z"}}})
		short := s.product("SHORT", nil)
		s.stock(short, "W1", 2)
		unstocked := s.product("NOSTOCK", nil)

		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, ok, 60)

		for _, tc := range []struct {
			name   string
			cartID string
			items  []map[string]any
			status int
			code   string
			data   string // JSON; "" for none
		}{
			{"unknown cart", "nope", itemList(ok, 1), 404, "cart_not_found", ""},
			{"unknown product", c.ID, itemList(ok, 1, "nope", 1), 404, "product_not_found", `"nope"`},
			{"draft product", c.ID, itemList(draft, 1), 404, "product_not_found", fmt.Sprintf("%q", draft)},
			{"discontinued", c.ID, itemList(gone, 1), 400, "product_discontinued", fmt.Sprintf("%q", gone)},
			{"no price in the currency", c.ID, itemList(eur, 1), 400, "no_suitable_price", fmt.Sprintf("%q", eur)},
			{"price not valid yet", c.ID, itemList(future, 1), 400, "no_suitable_price", fmt.Sprintf("%q", future)},
			{"over the quantity limit with the cart's units", c.ID, itemList(ok, 41), 400, "max_quantity_per_product_exceeded",
				fmt.Sprintf(`{"maxQuantityAllowed":100,"productId":%q,"requestedQuantity":101}`, ok)},
			{"over the quantity limit within the request", c.ID, itemList(ok, 30, ok, 11), 400, "max_quantity_per_product_exceeded",
				fmt.Sprintf(`{"maxQuantityAllowed":100,"productId":%q,"requestedQuantity":101}`, ok)},
			{"huge quantity", c.ID, itemList(ok, int64(1)<<62), 400, "max_quantity_per_product_exceeded", ""},
			{"not enough stock", c.ID, itemList(ok, 1, short, 3), 400, "not_enough_stock",
				fmt.Sprintf(`{"productId":%q,"warehouseId":"W1","requestedQuantity":3,"availableQuantity":2}`, short)},
			{"no stock record", c.ID, itemList(unstocked, 1), 400, "not_enough_stock",
				fmt.Sprintf(`{"productId":%q,"warehouseId":"W1","requestedQuantity":1,"availableQuantity":0}`, unstocked)},
			{"zero quantity", c.ID, itemList(ok, 0), 400, "validation_error", `["items[0].quantity: must be a positive integer"]`},
			{"fractional quantity", c.ID, itemList(ok, 1.5), 400, "validation_error", ""},
			{"missing fields", c.ID, []map[string]any{{}}, 400, "validation_error",
				`["items[0].productId: required","items[0].warehouseId: required","items[0].quantity: required"]`},
			{"no items", c.ID, []map[string]any{}, 400, "validation_error", ""},
			{"no cart id", "", itemList(ok, 1), 400, "validation_error", ""},
			{"unknown item field", c.ID, []map[string]any{{"productId": ok, "quantity": 1, "warehouseId": "W1", "price": 1}}, 400, "validation_error", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": tc.cartID, "items": tc.items}).Expect(t, tc.status, tc.code)
				if tc.data == "" && tc.code == "cart_not_found" && len(r.Data) != 0 {
					t.Errorf("got data %s, want none", r.Data)
				}
				if tc.data != "" && !sameJSON(r.Data, tc.data) {
					t.Errorf("got data %s, want %s", r.Data, tc.data)
				}
			})
		}
		// All or nothing: the failures left the cart and the stock as they were.
		got := s.calc(s.API, c.ID)
		if len(got.Items) != 1 || got.Items[0].Quantity != 60 {
			t.Errorf("got entries %+v, want only 60 x OK", got.Items)
		}
		if _, r := s.stockInfo(ok, "W1"); r != 60 {
			t.Errorf("got %d reserved of OK, want 60", r)
		}
		if _, r := s.stockInfo(short, "W1"); r != 0 {
			t.Errorf("got %d reserved of SHORT, want 0", r)
		}
		// Exactly the limit is fine.
		if got := s.add(s.API, c.ID, ok, 40).entry(t, ok); got.Quantity != 100 {
			t.Errorf("got %d units, want 100", got.Quantity)
		}
	})
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a json.RawMessage, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func TestMaxEntries(t *testing.T) {
	s := newShop(t, testdb.SQLite(t))
	var ids []any
	for i := range 51 {
		ids = append(ids, s.product(fmt.Sprintf("P%02d", i), map[string]any{"stockStatus": 1}), 1)
	}
	c := s.newCart(s.API, nil)
	s.add(s.API, c.ID, ids[:98]...) // 49 entries
	r := s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": c.ID, "items": itemList(ids[98:]...)}).
		Expect(t, 400, "max_number_of_entries_exceeded")
	if !sameJSON(r.Data, `{"requestedEntries":51,"maxEntriesAllowed":50}`) {
		t.Errorf("got data %s, want requestedEntries 51, maxEntriesAllowed 50", r.Data)
	}
	if got := s.add(s.API, c.ID, ids[98:100]...); len(got.Items) != 50 {
		t.Errorf("got %d entries, want 50", len(got.Items))
	}
	// More units of a product in the cart add no entry.
	if got := s.add(s.API, c.ID, ids[0], 1); len(got.Items) != 50 {
		t.Errorf("got %d entries, want 50", len(got.Items))
	}
}

func TestRemoveFromCart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("P", nil)
		u := s.product("U", map[string]any{"stockStatus": 1})
		s.stock(p, "W1", 10)
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 2)
		added := s.add(s.API, c.ID, p, 3, u, 1)
		item, uItem := added.entry(t, p).ID, added.entry(t, u).ID

		remove := func(itemID string, quantity any) addCart {
			var got addCart
			s.Post(t, "/cart/v1/cart.removeFromCart", s.API, map[string]any{"cartId": c.ID, "itemId": itemID, "quantity": quantity}).
				Must(t).Decode(t, "cart", &got)
			return got
		}
		got := remove(item, 4)
		if e := got.entry(t, p); e.Quantity != 1 || len(e.Reserves) != 1 || e.Reserves[0].Quantity != 1 {
			t.Errorf("got %+v, want 1 unit with one reserve of 1 (the newest released first)", e)
		}
		if _, r := s.stockInfo(p, "W1"); r != 1 {
			t.Errorf("got %d reserved, want 1", r)
		}
		if got.Tax == "" || got.BeforeTax == "" {
			t.Errorf("removeFromCart answered without the addToCart form's totals: %+v", got)
		}
		got = remove(uItem, 5)
		if len(got.Items) != 1 {
			t.Errorf("got %d entries, want the unlimited one removed", len(got.Items))
		}
		got = remove(item, 1)
		if len(got.Items) != 0 || got.Tax != "0" || got.BeforeTax != "0" {
			t.Errorf("got %+v, want an empty cart with 0 totals", got)
		}
		if _, r := s.stockInfo(p, "W1"); r != 0 {
			t.Errorf("got %d reserved, want 0", r)
		}

		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"unknown item", map[string]any{"cartId": c.ID, "itemId": item, "quantity": 1}, 404, "item_not_found"},
			{"unknown cart", map[string]any{"cartId": "nope", "itemId": item, "quantity": 1}, 404, "cart_not_found"},
			{"zero quantity", map[string]any{"cartId": c.ID, "itemId": item, "quantity": 0}, 400, "validation_error"},
			{"no quantity", map[string]any{"cartId": c.ID, "itemId": item}, 400, "validation_error"},
			{"no item", map[string]any{"cartId": c.ID, "quantity": 1}, 400, "validation_error"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, "/cart/v1/cart.removeFromCart", s.API, tc.body).Expect(t, tc.status, tc.code)
				if tc.status == 404 && len(r.Data) != 0 {
					t.Errorf("got data %s, want none", r.Data)
				}
			})
		}
	})
}

func TestCalculateCart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("P", map[string]any{"prices": []map[string]any{{"amount": json.Number("577.65"), "currency": "USD"}}})
		s.stock(p, "W1", 10)
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 2)
		got := s.calc(s.API, c.ID)
		e := got.entry(t, p)
		if e.Price != (money{57765, "USD", 2}) || len(e.Taxes) != 1 {
			t.Fatalf("got price %+v taxes %+v, want the unit price 57765 USD/2 and one tax line", e.Price, e.Taxes)
		}
		if l := e.Taxes[0]; l.BeforeTax.Amount != 95479 || l.Tax.Amount != 20051 || l.TaxDetail != "IVA 21%" {
			t.Errorf("got tax line %+v, want 95479 + 20051 IVA 21%%", l)
		}
		if got.Taxes.BeforeTax.Amount != 95479 || got.Taxes.Tax.Amount != 20051 || got.Taxes.Tax.Precision != 2 {
			t.Errorf("got cart taxes %+v, want money objects 95479 and 20051", got.Taxes)
		}
		var raw map[string]json.RawMessage
		r := s.Post(t, "/cart/v1/cart.calculateCart", s.API, map[string]any{"cartId": c.ID}).Must(t)
		r.Decode(t, "cart", &raw)
		if _, ok := raw["tax"]; ok {
			t.Errorf("calculateCart form has a top-level tax: %s", r.Raw)
		}

		// A tax change shows in the recalculation (and is emitted).
		n := len(s.events())
		var taxes []struct{ ID string }
		s.Get(t, "/tax/v1/tax.list?code=default", s.Admin).Must(t).Decode(t, "data", &taxes)
		s.Post(t, "/tax/v1/tax.update", s.Admin, map[string]any{"id": taxes[0].ID, "rate": 10}).Must(t)
		got = s.calc(s.API, c.ID)
		if got.Taxes.Tax.Amount != 10503 { // 1155.30 - round(1155.30 / 1.1) = 1155.30 - 1050.27
			t.Errorf("got tax %d after the rate changed to 10%%, want 10503", got.Taxes.Tax.Amount)
		}
		if evs := s.events(); len(evs) != n+1 {
			t.Errorf("got %d new events, want 1 UPDATE for a changed recalculation", len(evs)-n)
		}
		s.calc(s.API, c.ID)
		if evs := s.events(); len(evs) != n+1 {
			t.Errorf("got %d new events, want none for an unchanged recalculation", len(evs)-n-1)
		}

		r = s.Get(t, "/cart/v1/cart.calculateCart?cartId=nope", s.API).Expect(t, 404, "cart_not_found")
		if len(r.Data) != 0 {
			t.Errorf("got data %s, want none", r.Data)
		}
		s.Get(t, "/cart/v1/cart.calculateCart", s.API).Expect(t, 400, "validation_error")
	})
}

func TestPromotionsAndTaxes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		a := s.product("A", map[string]any{"stockStatus": 1, "prices": []map[string]any{{"amount": json.Number("577.65"), "currency": "USD"}}})
		b := s.product("B", map[string]any{"stockStatus": 1, "prices": []map[string]any{{"amount": json.Number("321.47"), "currency": "USD"}}})
		net := s.product("N", map[string]any{"stockStatus": 1, "isNetPrice": true, "taxCode": "reduced",
			"prices": []map[string]any{{"amount": json.Number("10.00"), "currency": "USD"}}})
		s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "reduced", "class": "default", "title": "IVA 10%", "rate": 10}).Must(t)
		s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "reduced", "class": "default", "title": "Eco", "rate": json.Number("0.5"), "isPercentage": false}).Must(t)
		var promo struct{ ID string }
		s.Post(t, "/promotion/v2/promotion.create", s.Admin, map[string]any{
			"title": "10% on 3 fridges", "class": "default", "active": true, "priority": 1,
			"if":   map[string]any{"category": map[string]any{"id": s.category, "quantity": 3, "lowestPrice": true}},
			"then": map[string]any{"category": map[string]any{"id": s.category, "quantity": 3, "discount": map[string]any{"rate": 10, "isPercentage": true}}},
		}).Must(t).Decode(t, "promotion", &promo)

		c := s.newCart(s.API, nil)
		got := s.add(s.API, c.ID, a, 1, b, 1, net, 2)
		// A, B and N x2 are 4 units of the category: the promotion fires once,
		// on the 3 cheapest: N, N (10.00: 1.00 off each) and B (32.147: 32.15 off).
		nb := got.entry(t, net)
		if len(nb.Discounts) != 1 || nb.Discounts[0].Discount != "1" || nb.Discounts[0].Quantity != 2 || nb.Discounts[0].PromotionID != promo.ID {
			t.Errorf("got N discounts %+v, want 2 units 1 off", nb.Discounts)
		}
		bb := got.entry(t, b)
		if len(bb.Discounts) != 1 || bb.Discounts[0].Discount != "32.15" || bb.Discounts[0].Price != "321.47" {
			t.Errorf("got B discounts %+v, want 32.15 off 321.47", bb.Discounts)
		}
		if ab := got.entry(t, a); len(ab.Discounts) != 0 {
			t.Errorf("got A discounts %+v, want none", ab.Discounts)
		}
		if f := got.Promotions.FulfilledPromos; len(f) != 1 || f[0].ID != promo.ID || f[0].Title != "10% on 3 fridges" || string(f[0].Discount) != "34.15" {
			t.Errorf("got fulfilledPromos %+v, want the promotion with 34.15 off in all", f)
		}
		// Taxes on the discounted bases:
		// A 577.65 gross: net 477.40, tax 100.25.
		// B 321.47 - 32.15 = 289.32 gross: net 239.11, tax 50.21.
		// N 20.00 - 2.00 = 18.00 net: 10% = 1.80, plus 0.5 x 2 = 1.00: tax 2.80, beforeTax 18.00.
		if nb.BeforeTax != "18" || nb.Tax != "2.8" || nb.TaxDetail != "IVA 10%, Eco" {
			t.Errorf("got N beforeTax %s tax %s detail %q, want 18 2.8 \"IVA 10%%, Eco\"", nb.BeforeTax, nb.Tax, nb.TaxDetail)
		}
		if bb.BeforeTax != "239.11" || bb.Tax != "50.21" {
			t.Errorf("got B beforeTax %s tax %s, want 239.11 50.21", bb.BeforeTax, bb.Tax)
		}
		if got.BeforeTax != "734.51" || got.Tax != "153.26" {
			t.Errorf("got cart beforeTax %s tax %s, want 734.51 153.26", got.BeforeTax, got.Tax)
		}
		calc := s.calc(s.API, c.ID)
		cn := calc.entry(t, net)
		if len(cn.Taxes) != 2 || cn.Taxes[0].Tax.Amount != 180 || cn.Taxes[1].Tax.Amount != 100 || cn.Taxes[1].TaxDetail != "Eco" {
			t.Errorf("got N tax lines %+v, want 1.80 IVA and 1.00 Eco", cn.Taxes)
		}
		if d := calc.entry(t, b).Discounts; len(d) != 1 || d[0].Discount != (money{3215, "USD", 2}) || d[0].Price != (money{32147, "USD", 2}) {
			t.Errorf("got B discounts %+v, want money objects", d)
		}

		// Without N, 2 units are left: almost fulfilled.
		got = removeUnits(t, s, c.ID, got.entry(t, net).ID, 2)
		if len(got.Promotions.FulfilledPromos) != 0 {
			t.Errorf("got fulfilledPromos %+v with 2 units, want none", got.Promotions.FulfilledPromos)
		}
		af := got.Promotions.AlmostFulfilledPromos
		if len(af) != 1 || af[0].ID != promo.ID || af[0].Data[0].CollectedQuantity != 2 || af[0].Data[0].PromoQuantity != 3 || af[0].Data[0].Type != "CATEGORY" {
			t.Errorf("got almostFulfilledPromos %+v, want the promotion with 2 of 3", af)
		}
		if got.BeforeTax != "743.08" || got.Tax != "156.04" { // 477.40 + 265.68; 100.25 + 55.79
			t.Errorf("got cart beforeTax %s tax %s, want 743.08 156.04", got.BeforeTax, got.Tax)
		}
	})
}

func removeUnits(t *testing.T, s *shop, cartID, itemID string, quantity int) addCart {
	t.Helper()
	var got addCart
	s.Post(t, "/cart/v1/cart.removeFromCart", s.API, map[string]any{"cartId": cartID, "itemId": itemID, "quantity": quantity}).
		Must(t).Decode(t, "cart", &got)
	return got
}

// shippingMethods creates the sample's two UPS methods and returns their ids.
func shippingMethods(t *testing.T, s *shop) (sameDay, nextDay string) {
	t.Helper()
	var m struct{ ID string }
	s.Post(t, "/cart/v1/shipping.create", s.Admin, json.RawMessage(`{"title" : "UPS Same Day", "active" : true, "taxCode" : "default", "rates" : [{"locations" : [{ "country" : "ES" }, { "country" : "IT" }, { "country" : "GB" }], "rates": [{"currency" : "EUR", "amount" : 10.10}, {"currency" : "GBP", "amount" : 9.90}]}, {"locations" : [{ "country" : "US", "state" : "Hawaii" }, { "country" : "US", "state" : "Alaska" }], "rates" : [{"currency" : "USD", "amount" : 25.00}]}]}`)).
		Must(t).Decode(t, "shipping", &m)
	sameDay = m.ID
	s.Post(t, "/cart/v1/shipping.create", s.Admin, json.RawMessage(`{"title" : "UPS Next Day", "active" : true, "taxCode" : "default", "rates" : [{ "rates" : [{"currency" : "EUR", "amount" : 8.9 }, {"currency" : "GBP", "amount" : 9.99}],"locations" : [{"country" : "GB"}]}, {"locations" : [{ "country" : "GB", "state" : "Dorset"}], "rates": [{"currency" : "EUR", "amount" : 5.90}, {"currency" : "GBP", "amount" : 4.90}]}]}`)).
		Must(t).Decode(t, "shipping", &m)
	return sameDay, m.ID
}

type shippingAnswer struct {
	cart    calcCart
	methods []struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		TaxCode string `json:"taxCode"`
		Rates   []struct {
			Currency string      `json:"currency"`
			Amount   json.Number `json:"amount"`
		} `json:"rates"`
	}
}

func setShipping(t *testing.T, s *shop, token, cartID string, addr any) shippingAnswer {
	t.Helper()
	var a shippingAnswer
	r := s.Post(t, "/cart/v1/cart.setShippingAddress", token, map[string]any{"cartId": cartID, "shippingAddress": addr}).Must(t)
	r.Decode(t, "cart", &a.cart)
	r.Decode(t, "shippingMethods", &a.methods)
	return a
}

func TestSetShippingAddress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		sameDay, nextDay := shippingMethods(t, s)
		p := s.product("P", map[string]any{"stockStatus": 1})
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 1)

		got := setShipping(t, s, s.API, c.ID, address("US", "Hawaii"))
		if len(got.methods) != 1 || got.methods[0].ID != sameDay || len(got.methods[0].Rates) != 1 || got.methods[0].Rates[0].Amount != "25" {
			t.Fatalf("got methods %+v, want UPS Same Day at 25 USD only", got.methods)
		}
		m := got.cart.ShippingMethod
		if m == nil || m.ID != sameDay || m.Title != "UPS Same Day" || m.TaxCode != "default" || m.RateID == "" || m.Rate != (money{2500, "USD", 2}) {
			t.Fatalf("got shippingMethod %+v, want UPS Same Day assigned at 2500 USD", m)
		}
		addr := got.cart.ShippingAddress
		if addr["postCode"] != "96815" || addr["phone"] != "5551234" || addr["state"] != "Hawaii" || addr["address_1"] != "1 Main St" {
			t.Errorf("got address %v, want it as given with postCode and phone as strings", addr)
		}
		// 100 gross + 25 shipping gross: 82.64 + 17.36, 20.66 + 4.34.
		if got.cart.Taxes.BeforeTax.Amount != 10330 || got.cart.Taxes.Tax.Amount != 2170 {
			t.Errorf("got taxes %+v, want 10330 + 2170 with the shipping line", got.cart.Taxes)
		}
		if got.cart.BillingAddress != nil {
			t.Errorf("got BillingAddress %v, want none yet", got.cart.BillingAddress)
		}

		// Alaska (a state of the same group) keeps the method; California has none: cleared.
		got = setShipping(t, s, s.API, c.ID, address("US", "AK"))
		if got.cart.ShippingMethod == nil || got.cart.ShippingMethod.ID != sameDay {
			t.Errorf("got %+v, want UPS Same Day kept", got.cart.ShippingMethod)
		}
		got = setShipping(t, s, s.API, c.ID, address("US", "CA"))
		if len(got.methods) != 0 || got.methods == nil || got.cart.ShippingMethod != nil {
			t.Errorf("got methods %+v method %+v, want [] and no method", got.methods, got.cart.ShippingMethod)
		}
		if got.cart.Taxes.Tax.Amount != 1736 {
			t.Errorf("got tax %d, want 1736 without the shipping line", got.cart.Taxes.Tax.Amount)
		}

		// GBP cart in Dorset: both methods, none assigned; Next Day at the Dorset rate.
		gb := s.newCart(s.API, map[string]any{"currency": "GBP", "country": "GB"})
		got = setShipping(t, s, s.API, gb.ID, address("GB", "Dorset"))
		if len(got.methods) != 2 || got.cart.ShippingMethod != nil {
			t.Fatalf("got %d methods and method %+v, want 2 and none assigned", len(got.methods), got.cart.ShippingMethod)
		}
		for _, m := range got.methods {
			if m.ID == nextDay && (len(m.Rates) != 2 || m.Rates[1].Amount != "4.9" || m.Rates[1].Currency != "GBP") {
				t.Errorf("got Next Day rates %+v, want the Dorset group's (EUR 5.9, GBP 4.9)", m.Rates)
			}
		}

		for _, tc := range []struct {
			name   string
			cartID string
			addr   any
			status int
			code   string
			data   string
		}{
			{"unknown cart", "nope", address("US", "HI"), 404, "cart_not_found", `"nope"`},
			{"missing fields", c.ID, map[string]any{"firstName": "A", "country": "US"}, 400, "validation_error",
				`["shippingAddress.address_1: required","shippingAddress.postCode: required","shippingAddress.city: required","shippingAddress.state: required"]`},
			{"no address", c.ID, nil, 400, "validation_error", `["shippingAddress: required"]`},
			{"a string", c.ID, "SAMEASSHIPPING", 400, "validation_error", ""},
			{"invalid country", c.ID, address("XX", "HI"), 400, "invalid_country", `"XX"`},
			{"invalid state", c.ID, address("US", "Dorset"), 400, "invalid_state", `"Dorset"`},
			{"unknown field", c.ID, map[string]any{"firstName": "A", "zip": 1}, 400, "validation_error", `["shippingAddress.zip: unknown field"]`},
			{"wrong type", c.ID, map[string]any{"firstName": 1}, 400, "validation_error", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, "/cart/v1/cart.setShippingAddress", s.API, map[string]any{"cartId": tc.cartID, "shippingAddress": tc.addr}).
					Expect(t, tc.status, tc.code)
				if tc.data != "" && !sameJSON(r.Data, tc.data) {
					t.Errorf("got data %s, want %s", r.Data, tc.data)
				}
			})
		}
	})
}

func TestSetBillingAddress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		c := s.newCart(s.API, nil)
		post := func(body map[string]any) calcCart {
			var got calcCart
			s.Post(t, "/cart/v1/cart.setBillingAddress", s.API, body).Must(t).Decode(t, "cart", &got)
			return got
		}
		r := s.Post(t, "/cart/v1/cart.setBillingAddress", s.API, map[string]any{"cartId": c.ID, "billingAddress": "SAMEASSHIPPING"}).
			Expect(t, 400, "shipping_address_not_set")
		if len(r.Data) != 0 {
			t.Errorf("got data %s, want none", r.Data)
		}
		s.Post(t, "/cart/v1/cart.setBillingAddress", s.API, map[string]any{"cartId": c.ID}).Expect(t, 400, "shipping_address_not_set")

		bill := address("ES", "Madrid")
		got := post(map[string]any{"cartId": c.ID, "billingAddress": bill})
		if got.BillingAddress["state"] != "Madrid" || got.BillingAddress["postCode"] != "96815" {
			t.Errorf("got BillingAddress %v, want the one given", got.BillingAddress)
		}
		setShipping(t, s, s.API, c.ID, address("US", "HI"))
		if got := s.info(s.API, c.ID); got.BillingAddress["country"] != "ES" {
			t.Errorf("got BillingAddress %v, want the one given kept", got.BillingAddress)
		}
		got = post(map[string]any{"cartId": c.ID}) // absent: same as shipping
		if got.BillingAddress["state"] != "HI" {
			t.Errorf("got BillingAddress %v, want the shipping address", got.BillingAddress)
		}
		// Same as shipping follows the shipping address.
		moved := setShipping(t, s, s.API, c.ID, address("US", "AK"))
		if moved.cart.BillingAddress["state"] != "AK" {
			t.Errorf("got BillingAddress %v, want the new shipping address", moved.cart.BillingAddress)
		}
		got = post(map[string]any{"cartId": c.ID, "billingAddress": "SAMEASSHIPPING"})
		if got.BillingAddress["state"] != "AK" {
			t.Errorf("got BillingAddress %v, want the shipping address", got.BillingAddress)
		}

		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"other string", map[string]any{"cartId": c.ID, "billingAddress": "SAME"}, 400, "validation_error"},
			{"invalid country", map[string]any{"cartId": c.ID, "billingAddress": address("ZZ", "X")}, 400, "invalid_country"},
			{"invalid state", map[string]any{"cartId": c.ID, "billingAddress": address("ES", "Hawaii")}, 400, "invalid_state"},
			{"missing field", map[string]any{"cartId": c.ID, "billingAddress": map[string]any{"firstName": "A"}}, 400, "validation_error"},
			{"unknown cart", map[string]any{"cartId": "nope", "billingAddress": bill}, 404, "cart_not_found"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, "/cart/v1/cart.setBillingAddress", s.API, tc.body).Expect(t, tc.status, tc.code)
				if tc.code == "cart_not_found" && errData(r) != `"nope"` {
					t.Errorf("got data %s, want the cart id", r.Data)
				}
			})
		}
	})
}

func TestSetShippingMethod(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		sameDay, nextDay := shippingMethods(t, s)
		c := s.newCart(s.API, map[string]any{"currency": "GBP", "country": "GB"})
		r := s.Post(t, "/cart/v1/cart.setShippingMethod", s.API, map[string]any{"cartId": c.ID, "methodId": nextDay}).
			Expect(t, 400, "shipping_address_notset")
		if len(r.Data) != 0 {
			t.Errorf("got data %s, want none", r.Data)
		}
		setShipping(t, s, s.API, c.ID, address("GB", "Dorset"))
		var got calcCart
		s.Post(t, "/cart/v1/cart.setShippingMethod", s.API, map[string]any{"cartId": c.ID, "methodId": nextDay}).Must(t).Decode(t, "cart", &got)
		if m := got.ShippingMethod; m == nil || m.ID != nextDay || m.Title != "UPS Next Day" || m.Rate != (money{490, "GBP", 2}) {
			t.Fatalf("got %+v, want UPS Next Day at 490 GBP", m)
		}
		// The shipping line alone: 4.90 gross at 21%: 4.05 + 0.85.
		if got.Taxes.BeforeTax.Amount != 405 || got.Taxes.Tax.Amount != 85 {
			t.Errorf("got taxes %+v, want 405 + 85", got.Taxes)
		}
		s.Post(t, "/cart/v1/cart.setShippingMethod", s.API, map[string]any{"cartId": c.ID, "methodId": map[string]any{"id": sameDay, "title": "x"}}).
			Must(t).Decode(t, "cart", &got)
		if m := got.ShippingMethod; m == nil || m.ID != sameDay || m.Rate.Amount != 990 {
			t.Errorf("got %+v, want UPS Same Day at 990 (an object with the id)", m)
		}
		var add addCart
		p := s.product("P", map[string]any{"stockStatus": 1, "prices": []map[string]any{{"amount": 1, "currency": "GBP"}}})
		s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": c.ID, "items": itemList(p, 1)}).Must(t).Decode(t, "cart", &add)
		if add.ShippingMethod == nil || add.ShippingMethod.Rate.Amount != "9.9" || add.ShippingMethod.Rate.Currency != "GBP" {
			t.Errorf("got addToCart shippingMethod %+v, want rate {amount: 9.9, currency: GBP}", add.ShippingMethod)
		}
		// A method removed after it was assigned is no longer charged.
		s.Post(t, "/cart/v1/shipping.remove", s.Admin, map[string]any{"id": sameDay}).Must(t)
		got = s.calc(s.API, c.ID)
		if got.ShippingMethod != nil {
			t.Errorf("got shippingMethod %+v after its removal, want none", got.ShippingMethod)
		}
		if line := got.entry(t, p).Taxes; len(line) == 0 || got.Taxes.BeforeTax.Amount+got.Taxes.Tax.Amount != 100 {
			t.Errorf("got totals %+v, want the 1.00 entry alone", got.Taxes)
		}

		usd := s.newCart(s.API, nil)
		setShipping(t, s, s.API, usd.ID, address("US", "CA"))
		for _, tc := range []struct {
			name   string
			cartID string
			method any
			status int
			code   string
		}{
			{"not available for the address", usd.ID, sameDay, 400, "invalid_shipping_method"},
			{"unknown method", c.ID, "nope", 400, "invalid_shipping_method"},
			{"no method", c.ID, nil, 400, "validation_error"},
			{"object without id", c.ID, map[string]any{"title": "x"}, 400, "validation_error"},
			{"a number", c.ID, 3, 400, "validation_error"},
			{"unknown cart", "nope", nextDay, 404, "cart_not_found"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s.Post(t, "/cart/v1/cart.setShippingMethod", s.API, map[string]any{"cartId": tc.cartID, "methodId": tc.method}).
					Expect(t, tc.status, tc.code)
			})
		}
	})
}

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
