package cart_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
)

// money is a money object as a client reads it.
type money struct {
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Precision int    `json:"precision"`
}

// reserve is an entry's reservation as a client reads it.
type reserve struct {
	ID             string    `json:"id"`
	WarehouseID    string    `json:"warehouseId"`
	Quantity       int       `json:"quantity"`
	ExpirationTime time.Time `json:"expirationTime"`
}

type calcDiscount struct {
	PromotionID    string `json:"promotionId"`
	PromotionTitle string `json:"promotionTitle"`
	Quantity       int    `json:"quantity"`
	Price          money  `json:"price"`
	Discount       money  `json:"discount"`
}

type calcEntry struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	Title     string `json:"title"`
	Quantity  int    `json:"quantity"`
	Price     money  `json:"price"`
	Taxes     []struct {
		BeforeTax money  `json:"beforeTax"`
		Tax       money  `json:"tax"`
		TaxDetail string `json:"taxDetail"`
	} `json:"taxes"`
	Discounts []calcDiscount `json:"discounts"`
	Reserves  []reserve      `json:"reserves"`
}

type promotions struct {
	AlmostFulfilledPromos []struct {
		ID   string `json:"id"`
		Data []struct {
			CollectedQuantity int    `json:"collectedQuantity"`
			PromoQuantity     int    `json:"promoQuantity"`
			Type              string `json:"type"`
			Code              string `json:"code"`
		} `json:"data"`
	} `json:"almostFulfilledPromos"`
	FulfilledPromos []struct {
		ID       string          `json:"id"`
		Title    string          `json:"title"`
		Discount json.RawMessage `json:"discount"`
	} `json:"fulfilledPromos"`
	OK bool `json:"ok"`
}

type method struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	TaxCode string `json:"taxCode"`
	RateID  string `json:"rateId"`
	Rate    money  `json:"rate"`
}

// calcCart is a cart in the calculateCart form.
type calcCart struct {
	ID             string      `json:"id"`
	Status         string      `json:"status"`
	CustomerID     string      `json:"customerId"`
	Currency       string      `json:"currency"`
	Country        string      `json:"country"`
	Channel        string      `json:"channel"`
	ExpirationTime time.Time   `json:"expirationTime"`
	Items          []calcEntry `json:"items"`
	Promotions     promotions  `json:"promotions"`
	Taxes          struct {
		OK        bool  `json:"ok"`
		BeforeTax money `json:"beforeTax"`
		Tax       money `json:"tax"`
	} `json:"taxes"`
	ShippingAddress map[string]any `json:"shippingAddress"`
	BillingAddress  map[string]any `json:"BillingAddress"`
	ShippingMethod  *method        `json:"shippingMethod"`
}

type addDiscount struct {
	PromotionID string      `json:"promotionId"`
	Quantity    int         `json:"quantity"`
	Price       json.Number `json:"price"`
	Discount    json.Number `json:"discount"`
}

type addEntry struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	Quantity  int    `json:"quantity"`
	Title     string `json:"title"`
	TaxDetail string `json:"taxDetail"`
	Price     struct {
		Amount   json.Number `json:"amount"`
		Currency string      `json:"currency"`
	} `json:"price"`
	Tax       json.Number   `json:"tax"`
	BeforeTax json.Number   `json:"beforeTax"`
	Discounts []addDiscount `json:"discounts"`
	Reserves  []reserve     `json:"reserves"`
}

// addCart is a cart in the addToCart form.
type addCart struct {
	ID         string      `json:"id"`
	Status     string      `json:"status"`
	CustomerID string      `json:"customerId"`
	Currency   string      `json:"currency"`
	Channel    string      `json:"channel"`
	Tax        json.Number `json:"tax"`
	BeforeTax  json.Number `json:"beforeTax"`
	Items      []addEntry  `json:"items"`
	Promotions promotions  `json:"promotions"`
	Taxes      struct {
		OK        bool        `json:"ok"`
		BeforeTax json.Number `json:"beforeTax"`
		Tax       json.Number `json:"tax"`
	} `json:"taxes"`
	ShippingMethod *struct {
		ID   string `json:"id"`
		Rate struct {
			Amount   json.Number `json:"amount"`
			Currency string      `json:"currency"`
		} `json:"rate"`
	} `json:"shippingMethod"`
}

// entry returns the entry of a product, failing when there is none.
func (c calcCart) entry(t *testing.T, productID string) calcEntry {
	t.Helper()
	for _, e := range c.Items {
		if e.ProductID == productID {
			return e
		}
	}
	t.Fatalf("cart has no entry for product %s: %+v", productID, c.Items)
	return calcEntry{}
}

func (c addCart) entry(t *testing.T, productID string) addEntry {
	t.Helper()
	for _, e := range c.Items {
		if e.ProductID == productID {
			return e
		}
	}
	t.Fatalf("cart has no entry for product %s: %+v", productID, c.Items)
	return addEntry{}
}

// clock is a controllable clock for the app.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// shop is a running service with a category, the 21% gross default tax
// and helpers to create what carts need.
type shop struct {
	*apitest.Server
	t        testing.TB
	category string
}

// newShop starts the service over db with the app options opts.
func newShop(t testing.TB, db *sqldb.DB, opts ...func(*app.Options)) *shop {
	t.Helper()
	s := &shop{Server: apitest.New(t, db, opts...), t: t}
	var cat struct{ ID string }
	s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	s.category = cat.ID
	s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "default", "class": "default", "title": "IVA 21%", "rate": 21}).Must(t)
	return s
}

// product creates an ONLINE product in the shop's category with NORMAL
// stock and the given fields over the defaults; it returns its id.
func (s *shop) product(sku string, fields map[string]any) string {
	s.t.Helper()
	body := map[string]any{
		"sku": sku, "status": "ONLINE", "title": "Fridge " + sku, "brand": "Acme",
		"categories": []string{s.category}, "stockStatus": 0,
		"prices": []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}},
	}
	for k, v := range fields {
		body[k] = v
	}
	var p struct{ ID string }
	s.Post(s.t, "/catalog/v1/product.create", s.Admin, body).Must(s.t).Decode(s.t, "product", &p)
	return p.ID
}

// stock puts quantity units of the product in the warehouse.
func (s *shop) stock(productID, warehouse string, quantity int) {
	s.t.Helper()
	s.Post(s.t, "/stock/v1/stock.create", s.Admin, map[string]any{"productId": productID, "warehouseId": warehouse, "quantity": quantity}).Must(s.t)
}

// stockInfo returns {quantity, reserved} of the product in the warehouse.
func (s *shop) stockInfo(productID, warehouse string) (quantity, reserved int) {
	s.t.Helper()
	var st struct{ Quantity, Reserved int }
	s.Get(s.t, fmt.Sprintf("/stock/v1/stock.info?productId=%s&warehouseId=%s", productID, warehouse), s.Admin).
		Must(s.t).Decode(s.t, "stock", &st)
	return st.Quantity, st.Reserved
}

// newCart creates a cart with the token and body, and returns it.
func (s *shop) newCart(token string, body map[string]any) calcCart {
	s.t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	var c calcCart
	s.Post(s.t, "/cart/v1/cart.create", token, body).Must(s.t).Decode(s.t, "cart", &c)
	return c
}

// add adds items (productId, quantity pairs in warehouse W1) and returns
// the cart in the addToCart form.
func (s *shop) add(token, cartID string, items ...any) addCart {
	s.t.Helper()
	var c addCart
	s.Post(s.t, "/cart/v1/cart.addToCart", token, map[string]any{"cartId": cartID, "items": itemList(items...)}).
		Must(s.t).Decode(s.t, "cart", &c)
	return c
}

// itemList turns productId, quantity pairs into addToCart items in W1.
func itemList(pairs ...any) []map[string]any {
	var items []map[string]any
	for i := 0; i+1 < len(pairs); i += 2 {
		items = append(items, map[string]any{"productId": pairs[i], "quantity": pairs[i+1], "warehouseId": "W1"})
	}
	return items
}

// calc returns the cart recalculated (calculateCart, GET).
func (s *shop) calc(token, cartID string) calcCart {
	s.t.Helper()
	var c calcCart
	s.Get(s.t, "/cart/v1/cart.calculateCart?cartId="+cartID, token).Must(s.t).Decode(s.t, "cart", &c)
	return c
}

// info returns the cart (cart.info, GET).
func (s *shop) info(token, cartID string) calcCart {
	s.t.Helper()
	var c calcCart
	s.Get(s.t, "/cart/v1/cart.info?cartId="+cartID, token).Must(s.t).Decode(s.t, "cart", &c)
	return c
}

// customer returns an api token for a customer.
func (s *shop) customer(id string) string {
	return s.Token(s.t, commerce.Claims{Subject: "user-" + id, Scopes: []string{commerce.ScopeAPI}, CustomerID: id})
}

// events returns the CARTS events, oldest first.
func (s *shop) events() []event.Event {
	s.t.Helper()
	var evs []event.Event
	s.Get(s.t, "/event/v1/event.list?channel=CARTS&limit=1000", s.Admin).Must(s.t).Decode(s.t, "data", &evs)
	return evs
}

// address returns a valid address in the state and country.
func address(country, state string) map[string]any {
	return map[string]any{
		"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Main St", "postCode": 96815,
		"city": "Honolulu", "state": state, "country": country, "phone": 5551234,
	}
}

// errData returns the error data of a response as a string (JSON).
func errData(r apitest.Response) string { return string(r.Data) }
