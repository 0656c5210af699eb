// Package cart is the shopping cart: entries priced from the catalog, stock
// reserved per entry, promotions and taxes recalculated on every change,
// shipping and billing addresses, the shipping method, and checkout
// (docs/api.md sections 3, 5, 8, 9, 10 and 11).
//
// The cart calls the other areas in-process through interfaces it owns
// (Catalog, Promotions, Taxes, Shipping, Stock, Payments), and every change of a cart
// is made in ONE store transaction: stock is reserved, released or
// committed through the same transaction (Tx.Stock), the cart is stored and
// its CARTS event written to the outbox. A failing change leaves neither a
// cart change nor a reservation behind. The change is computed (prices,
// promotions, taxes, shipping) before that transaction and stored only
// over the version of the cart it was computed from: parallel changes of
// one cart all apply, none is lost, whichever process makes them (see
// Service.change).
//
// Checkout authorises the payment with the provider once, before its
// transaction and outside it, and voids the authorisation when that
// transaction then fails (see Service.Checkout).
//
// A cart shows the reservations it really holds: an ACTIVE cart's entries
// list only reservations not released and not past their expiration time
// (see Cart.DropLapsed); a CHECKED_OUT cart's, the ones committed.
//
// Storage keeps a cart as one document (its entries, addresses, shipping
// method and the last computed promotions and taxes) plus the columns the
// store queries: status, expiration, version.
//
// Files: cart.go (records), input.go (operation arguments), address.go
// (addresses), store.go (the store), service.go (the service, its
// dependencies, cart.create and cart.info), service_items.go,
// service_address.go, service_checkout.go (the other use cases),
// service_change.go (how a change is computed and stored),
// service_pricing.go (promotions and taxes), service_expiry.go (expiry and
// the sweep), price.go (price selection), view.go (the answer forms).
package cart

import (
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/stock"
)

// Cart statuses. A cart is ACTIVE until it is checked out or expires; only
// an ACTIVE cart can change.
const (
	StatusActive     = "ACTIVE"
	StatusCheckedOut = "CHECKED_OUT"
	StatusExpired    = "EXPIRED"
	// StatusDraft is a draft order that staff build (docs/api.md section
	// 24): it changes as an ACTIVE cart does, by admin tokens only; it
	// never expires (its reservations lapse as any cart's, and are
	// taken again at completion if the stock allows).
	StatusDraft = "DRAFT"
	// StatusExchange is the cart of a return's exchange: its units are
	// reserved until the return is refunded (the cart is then checked
	// out into the replacement order), rejected or cancelled (the cart
	// becomes EXPIRED). No cart operation changes it.
	StatusExchange = "EXCHANGE"
)

// open reports whether the cart operations may change c: an ACTIVE cart,
// or a DRAFT (which only admin tokens see, see canUse).
func (c *Cart) open() bool { return c.Status == StatusActive || c.Status == StatusDraft }

// Anonymous is the customerId of a cart created without a customerId claim.
const Anonymous = "ANON"

// Defaults of cart.create.
const (
	DefaultCurrency = "USD"
	DefaultCountry  = "US"
	DefaultChannel  = "WEB"
)

// Limits (docs/api.md section 10).
const (
	// MaxQuantityPerProduct is the most units of one product a cart holds.
	MaxQuantityPerProduct = 100
	// MaxEntries is the most entries (distinct products) a cart holds.
	MaxEntries = 50
)

// DefaultTTL is how long a cart lives after its last successful operation
// other than cart.info (docs/api.md: 7 days, configurable).
const DefaultTTL = 7 * 24 * time.Hour

// SameAsShipping is the billingAddress value that makes the billing
// address the shipping address.
const SameAsShipping = "SAMEASSHIPPING"

// Cart is a shopping cart as stored. Its JSON form is the storage form;
// clients see it through Render.
type Cart struct {
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Status     string `json:"status"`
	Currency   string `json:"currency"`
	Country    string `json:"country"`
	Channel    string `json:"channel"`
	// Locale is the cart's language (docs/api.md section 27): its items'
	// titles are written in it and its order keeps it. "" for a cart made
	// before the store had languages (the default).
	Locale string `json:"locale,omitempty"`
	// ExpirationTime is when the cart expires unless it changes before
	// (UTC, to the millisecond).
	ExpirationTime time.Time `json:"expirationTime"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
	// Version counts the stored changes; the store refuses to store over
	// a version that moved.
	Version int64 `json:"-"`

	Items           []*Entry `json:"items"`
	ShippingAddress *Address `json:"shippingAddress,omitempty"`
	// BillingAddress is the billing address given as an object; when
	// BillingSameAsShipping is set it is nil and the billing address is
	// the shipping address, whatever it is at the time.
	BillingAddress        *Address           `json:"billingAddress,omitempty"`
	BillingSameAsShipping bool               `json:"billingSameAsShipping,omitempty"`
	ShippingMethod        *shipping.Selected `json:"shippingMethod,omitempty"`
	// Coupons are the coupon codes the cart holds, as created (at most
	// promotion.MaxCoupons).
	Coupons []string `json:"coupons,omitempty"`

	// ShippingDiscount is the discount a promotion gave the shipping
	// method's rate (nil when none did).
	ShippingDiscount *ShippingDiscount `json:"shippingDiscount,omitempty"`
	// Fired lists the promotions that fired in the last recalculation:
	// those a checkout uses.
	Fired []string `json:"fired,omitempty"`
	// exhausted lists the codes held whose promotion reached a usage
	// limit (computed, not stored): they fail a checkout.
	exhausted []string

	// Computed by the last recalculation.
	AlmostFulfilled []engine.AlmostFulfilled `json:"almostFulfilled"`
	// ShippingTaxes is the tax of the shipping line (nil without a method).
	ShippingTaxes *EntryTaxes `json:"shippingTaxes,omitempty"`
	// BeforeTax and Tax are the cart's totals: the entries' plus the
	// shipping line's.
	BeforeTax int64 `json:"beforeTax"`
	Tax       int64 `json:"tax"`

	// Payment is the authorised payment of a checked-out cart.
	Payment *payment.Record `json:"payment,omitempty"`
	// OrderID is the order a checkout placed.
	OrderID string `json:"orderId,omitempty"`
	// Email is a draft's email, which its order takes (draft.create).
	Email string `json:"email,omitempty"`
	// Groups are the customer groups its prices are selected for: those
	// of the token of the last change made by the cart's own customer (a
	// token without admin scope), kept so that a change by an admin
	// token reprices it for the same groups (docs/api.md section 26).
	Groups []string `json:"groups,omitempty"`
}

// Entry is a cart entry: Quantity units of a product, aggregated over
// every addToCart of that product. The product's data (title, price, tax
// code, kind of price, stock status) is taken when units are added.
type Entry struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	Title     string `json:"title"`
	Quantity  int    `json:"quantity"`
	// UnitPrice is the selected price in minor units of the cart's
	// currency; PriceID names it among the product's prices.
	UnitPrice int64  `json:"unitPrice"`
	PriceID   string `json:"priceId,omitempty"`
	// PriceListID is the price list that gave UnitPrice; empty when the
	// product's own prices did (PriceID).
	PriceListID string `json:"priceListId,omitempty"`
	TaxCode     string `json:"taxCode"`
	IsNetPrice  bool   `json:"isNetPrice"`
	StockStatus int    `json:"stockStatus"`

	// Computed by the last recalculation.
	Discounts []Discount `json:"discounts"`
	Taxes     EntryTaxes `json:"taxes"`
	// Reserves are the entry's stock reservations (none for a product
	// with UNLIMITED stock): for an ACTIVE cart, the ones holding units
	// (see DropLapsed); for a checked-out cart, the ones committed.
	Reserves []stock.Reservation `json:"reserves"`
}

// Discount is Quantity units of an entry discounted by one promotion:
// Price is the unit price and Discount the per-unit discount, in minor
// units.
type Discount struct {
	PromotionID    string `json:"promotionId"`
	PromotionTitle string `json:"promotionTitle"`
	Quantity       int    `json:"quantity"`
	Price          int64  `json:"price"`
	Discount       int64  `json:"discount"`
}

// EntryTaxes is the taxes of an entry (or of the shipping line): its lines and
// its totals, in minor units. BeforeTax is the net base counted once, Tax
// the sum of the lines, TaxDetail their details joined with ", ".
type EntryTaxes struct {
	Lines     []TaxLine `json:"lines"`
	BeforeTax int64     `json:"beforeTax"`
	Tax       int64     `json:"tax"`
	TaxDetail string    `json:"taxDetail"`
}

// TaxLine is one tax applied to an entry.
type TaxLine struct {
	BeforeTax int64  `json:"beforeTax"`
	Tax       int64  `json:"tax"`
	TaxDetail string `json:"taxDetail"`
}

// ShippingDiscount is the amount a promotion took off the shipping
// method's rate, in minor units.
type ShippingDiscount struct {
	PromotionID    string `json:"promotionId"`
	PromotionTitle string `json:"promotionTitle"`
	Discount       int64  `json:"discount"`
}

// Billing returns the billing address: the shipping address when billing
// is same-as-shipping, else the one given (nil when none is set).
func (c *Cart) Billing() *Address {
	if c.BillingSameAsShipping {
		return c.ShippingAddress
	}
	return c.BillingAddress
}

// Entry returns the entry with the id, or nil.
func (c *Cart) Entry(id string) *Entry {
	for _, e := range c.Items {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// DropLapsed removes from an ACTIVE (or DRAFT) cart's entries the reservations that
// no longer hold units at now: released (by the sweep, or by another cart
// that needed the units) or past their expiration time, which makes their
// units free for other carts. A cart in another status is left as it is.
func (c *Cart) DropLapsed(now time.Time) {
	if !c.open() {
		return
	}
	for _, e := range c.Items {
		e.Reserves = slices.DeleteFunc(e.Reserves, func(r stock.Reservation) bool { return !r.Holds(now) })
		if e.Reserves == nil {
			e.Reserves = []stock.Reservation{}
		}
	}
}

// Discount returns the entry's total discount: per-unit discount x
// discounted quantity, over its discounts.
func (e *Entry) Discount() int64 {
	var d int64
	for _, x := range e.Discounts {
		d += x.Discount * int64(x.Quantity)
	}
	return d
}

// NotFound returns the cart_not_found error of a cart id, with the id as
// data.
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.ECartNotFound, Data: id, Message: "no cart with id " + id}
}

// notActive returns the cart_not_active error of a cart in status.
func notActive(status string) *commerce.Error {
	return &commerce.Error{Code: commerce.ECartNotActive, Data: status, Message: "the cart is " + status}
}
