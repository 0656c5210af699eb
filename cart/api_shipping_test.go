package cart_test

import (
	"encoding/json"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

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
