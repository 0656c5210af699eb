package pricelist_test

import (
	"encoding/json"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
)

// shop is a service with a category, a tax, a shipping method for the
// US and helpers for the price lists' tests.
type shop struct {
	*apitest.Server
	t        testing.TB
	category string
	method   string
}

func newShop(t testing.TB, db *sqldb.DB) *shop {
	t.Helper()
	s := &shop{Server: apitest.New(t, db), t: t}
	var cat struct{ ID string }
	s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	s.category = cat.ID
	s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "default", "class": "default", "title": "IVA 21%", "rate": 21}).Must(t)
	var m struct{ ID string }
	s.Post(t, "/cart/v1/shipping.create", s.Admin, json.RawMessage(`{"title": "Ground", "active": true, "taxCode": "default",
		"rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}]}]}`)).Must(t).Decode(t, "shipping", &m)
	s.method = m.ID
	return s
}

// product creates an ONLINE product with UNLIMITED stock and the prices
// (the default: 100.00 USD) and returns its id.
func (s *shop) product(sku string, prices ...map[string]any) string {
	s.t.Helper()
	if len(prices) == 0 {
		prices = []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}
	}
	body := map[string]any{"sku": sku, "status": "ONLINE", "title": "Fridge " + sku, "brand": "Acme",
		"categories": []string{s.category}, "stockStatus": 1, "prices": prices}
	var p struct{ ID string }
	s.Post(s.t, "/catalog/v1/product.create", s.Admin, body).Must(s.t).Decode(s.t, "product", &p)
	return p.ID
}

// group creates a customer group.
func (s *shop) group(code string) {
	s.t.Helper()
	s.Post(s.t, "/customer/v1/group.create", s.Admin, map[string]any{"code": code, "title": "Group " + code}).Must(s.t)
}

// apiPriceList is a price list as a client reads it.
type apiPriceList struct {
	ID         string   `json:"id"`
	Code       string   `json:"code"`
	Title      string   `json:"title"`
	Status     string   `json:"status"`
	Groups     []string `json:"groups"`
	Channel    string   `json:"channel"`
	Country    string   `json:"country"`
	Currency   string   `json:"currency"`
	ValidFrom  *string  `json:"validFrom"`
	ValidUntil *string  `json:"validUntil"`
	Priority   int64    `json:"priority"`
	Prices     []struct {
		ProductID   string      `json:"productId"`
		Amount      json.Number `json:"amount"`
		MinQuantity int64       `json:"minQuantity"`
	} `json:"prices"`
}

// priceList creates a price list and returns it.
func (s *shop) priceList(body map[string]any) apiPriceList {
	s.t.Helper()
	var l apiPriceList
	s.Post(s.t, "/catalog/v1/priceList.create", s.Admin, body).Must(s.t).Decode(s.t, "priceList", &l)
	if l.ID == "" {
		s.t.Fatalf("created price list has no id")
	}
	return l
}

// token returns an api token of a customer with the claims.
func (s *shop) token(customerID, customerType, country string, groups ...string) string {
	return s.Token(s.t, commerce.Claims{Subject: "user-" + customerID, Scopes: []string{commerce.ScopeAPI},
		CustomerID: customerID, CustomerType: customerType, Country: country, Groups: groups})
}

// money is a money object as a client reads it.
type money struct {
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Precision   int    `json:"precision"`
	PriceListID string `json:"priceListId"`
}

// cartEntry is an entry of a cart in the calculateCart form.
type cartEntry struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	Quantity  int    `json:"quantity"`
	Price     money  `json:"price"`
}

type cart struct {
	ID     string      `json:"id"`
	Status string      `json:"status"`
	Items  []cartEntry `json:"items"`
}

// shownPrice is product.info's price.
type shownPrice struct {
	Amount      json.Number `json:"amount"`
	Currency    string      `json:"currency"`
	PriceListID string      `json:"priceListId"`
}

// infoPrice returns product.info's price for the token, currency USD and
// the quantity (nil: none).
func (s *shop) infoPrice(token, productID string, quantity int) *shownPrice {
	s.t.Helper()
	var p struct {
		ID    string      `json:"id"`
		Price *shownPrice `json:"price"`
	}
	s.Post(s.t, "/catalog/v1/product.info", token, map[string]any{"id": productID, "currency": "USD", "quantity": quantity}).
		Must(s.t).Decode(s.t, "product", &p)
	return p.Price
}

// newCart creates a cart and adds quantity units of the product.
func (s *shop) newCart(token, productID string, quantity int) cart {
	s.t.Helper()
	var c cart
	s.Post(s.t, "/cart/v1/cart.create", token, map[string]any{}).Must(s.t).Decode(s.t, "cart", &c)
	s.Post(s.t, "/cart/v1/cart.addToCart", token, map[string]any{"cartId": c.ID,
		"items": []map[string]any{{"productId": productID, "quantity": quantity, "warehouseId": "W1"}}}).Must(s.t)
	return c
}

// calc returns the cart recalculated.
func (s *shop) calc(token, cartID string) cart {
	s.t.Helper()
	var c cart
	s.Get(s.t, "/cart/v1/cart.calculateCart?cartId="+cartID, token).Must(s.t).Decode(s.t, "cart", &c)
	return c
}

// checkoutBody is cart.checkout's body for the cart, shipped to Hawaii.
func (s *shop) checkoutBody(cartID string) map[string]any {
	return map[string]any{"cartId": cartID, "paymentId": "manual", "paymentData": map[string]any{},
		"shippingAddress": map[string]any{"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Main St", "postCode": "96815",
			"city": "Honolulu", "state": "HI", "country": "US", "phone": "5551234"},
		"shippingMethod": s.method}
}

// checkout checks the cart out and returns the order's items' unit
// prices by product.
func (s *shop) checkout(token, cartID string) map[string]int64 {
	s.t.Helper()
	var o struct {
		Items []struct {
			ProductID string `json:"productId"`
			UnitPrice money  `json:"unitPrice"`
		} `json:"items"`
	}
	s.Post(s.t, "/cart/v1/cart.checkout", token, s.checkoutBody(cartID)).Must(s.t).Decode(s.t, "order", &o)
	out := map[string]int64{}
	for _, it := range o.Items {
		out[it.ProductID] = it.UnitPrice.Amount
	}
	return out
}
