package cart_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
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
