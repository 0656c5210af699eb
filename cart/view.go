package cart

import (
	"time"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/stock"
)

// Form selects how a cart is shown (docs/api.md section 10).
type Form uint8

const (
	// AddForm is the answer of cart.addToCart and cart.removeFromCart:
	// amounts are plain numbers in major units (577.65), an entry shows
	// its tax, beforeTax and taxDetail (the details joined with ", "), and
	// the cart carries top-level tax and beforeTax besides taxes.
	AddForm Form = iota
	// CalculateForm is the answer of every other operation that returns a
	// cart: every computed amount is a money object {amount (minor units),
	// currency, precision}, and an entry shows its taxes as a list of
	// {beforeTax, tax, taxDetail}.
	CalculateForm
)

// View is a cart as clients see it. Always present: id, status,
// customerId, currency, country, channel, expirationTime, items,
// promotions, taxes; tax and beforeTax in the AddForm only; the
// addresses and the shipping method once set. BillingAddress is spelled
// with a capital B, as docs/api.md writes it; for a cart whose billing is
// same-as-shipping it shows the shipping address.
type View struct {
	ID             string          `json:"id"`
	Status         string          `json:"status" openapi:"enum=ACTIVE|CHECKED_OUT|EXPIRED|DRAFT|EXCHANGE"`
	CustomerID     string          `json:"customerId"`
	Currency       string          `json:"currency"`
	Country        string          `json:"country"`
	Channel        string          `json:"channel"`
	Locale         string          `json:"locale,omitempty"`
	ExpirationTime time.Time       `json:"expirationTime"`
	Tax            *Amount         `json:"tax,omitempty"`
	BeforeTax      *Amount         `json:"beforeTax,omitempty"`
	Items          []any           `json:"items"`
	Promotions     PromotionsView  `json:"promotions"`
	Taxes          TaxesView       `json:"taxes"`
	ShippingAddr   *Address        `json:"shippingAddress,omitempty"`
	BillingAddr    *Address        `json:"BillingAddress,omitempty"`
	ShippingMethod *ShippingMethod `json:"shippingMethod,omitempty"`
	OrderID        string          `json:"orderId,omitempty"`
	// Coupons are the codes the cart holds, as created (always present).
	Coupons []string `json:"coupons"`
}

// Amount is an amount in minor units shown as a plain number in major
// units (Plain, the AddForm) or as a money object.
type Amount = money.Amount

// PriceView is a price shown as {amount, currency} with a plain amount in
// major units (Plain, the AddForm) or as a money object.
type PriceView struct {
	money.Money
	Plain bool
	// PriceListID is the price list that gave an entry's price (docs/api.md
	// section 26), shown as priceListId; empty when the product's own
	// prices gave it.
	PriceListID string
}

// MarshalJSON writes the price in its form.
func (p PriceView) MarshalJSON() ([]byte, error) {
	return appendPrice(nil, p), nil
}

// AddEntry is an entry in the AddForm.
type AddEntry struct {
	ID        string              `json:"id"`
	ProductID string              `json:"productId"`
	Quantity  int                 `json:"quantity"`
	Title     string              `json:"title"`
	TaxDetail string              `json:"taxDetail"`
	Price     PriceView           `json:"price"`
	Tax       Amount              `json:"tax"`
	BeforeTax Amount              `json:"beforeTax"`
	Discounts []DiscountView      `json:"discounts"`
	Reserves  []stock.Reservation `json:"reserves"`
}

// CalculateEntry is an entry in the CalculateForm.
type CalculateEntry struct {
	ID        string              `json:"id"`
	ProductID string              `json:"productId"`
	Title     string              `json:"title"`
	Quantity  int                 `json:"quantity"`
	Price     PriceView           `json:"price"`
	Taxes     []TaxLineView       `json:"taxes"`
	Discounts []DiscountView      `json:"discounts"`
	Reserves  []stock.Reservation `json:"reserves"`
}

// TaxLineView is one tax of an entry in the CalculateForm.
type TaxLineView struct {
	BeforeTax Amount `json:"beforeTax"`
	Tax       Amount `json:"tax"`
	TaxDetail string `json:"taxDetail"`
}

// DiscountView is a discount of an entry: quantity units discounted by a
// promotion, price the unit price and discount the per-unit discount.
type DiscountView struct {
	PromotionID    string `json:"promotionId"`
	PromotionTitle string `json:"promotionTitle"`
	Quantity       int    `json:"quantity"`
	Price          Amount `json:"price"`
	Discount       Amount `json:"discount"`
}

// PromotionsView is the cart's promotions: almostFulfilledPromos as
// promotion.cartPromotions reports them, fulfilledPromos the promotions
// that discounted the cart, and ok, always true (a failed evaluation fails
// the operation instead: the cart never shows stale promotions).
type PromotionsView struct {
	AlmostFulfilledPromos []engine.AlmostFulfilled `json:"almostFulfilledPromos"`
	FulfilledPromos       []FulfilledPromo         `json:"fulfilledPromos"`
	OK                    bool                     `json:"ok"`
}

// FulfilledPromo is a promotion that fired and discounted the cart: its
// id, title and the total discount it gave (over every unit of every
// entry). Promotions are listed in cart order of the first entry they
// discounted. A promotion whose discount came to 0 is not listed (as it is
// not listed among an entry's discounts).
type FulfilledPromo struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Discount Amount `json:"discount"`
}

// TaxesView is the cart's taxes: ok (always true, as for promotions),
// beforeTax and tax, the sums over the entries and the shipping line.
type TaxesView struct {
	OK        bool   `json:"ok"`
	BeforeTax Amount `json:"beforeTax"`
	Tax       Amount `json:"tax"`
}

// ShippingMethod is the cart's shipping method: the method's id, title and
// taxCode, the rate group it is charged by (rateId) and the rate in the
// cart's currency.
type ShippingMethod struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	TaxCode string    `json:"taxCode"`
	RateID  string    `json:"rateId"`
	Rate    PriceView `json:"rate"`
	// Discount is the amount a promotion took off the rate (docs/api.md
	// section 16), absent when none did.
	Discount *Amount `json:"discount,omitempty"`
}

// Render returns the cart as clients see it, in the form f.
func Render(c *Cart, f Form) View {
	prec, _ := money.Precision(c.Currency)
	plain := f == AddForm
	amt := func(v int64) Amount {
		return Amount{Money: money.Money{Amount: v, Currency: c.Currency, Precision: prec}, Plain: plain}
	}
	v := View{
		ID: c.ID, Status: c.Status, CustomerID: c.CustomerID, Currency: c.Currency, Country: c.Country,
		Channel: c.Channel, Locale: c.Locale, ExpirationTime: c.ExpirationTime, OrderID: c.OrderID,
		Items:        make([]any, 0, len(c.Items)),
		Promotions:   PromotionsView{AlmostFulfilledPromos: c.AlmostFulfilled, FulfilledPromos: []FulfilledPromo{}, OK: true},
		Taxes:        TaxesView{OK: true, BeforeTax: amt(c.BeforeTax), Tax: amt(c.Tax)},
		ShippingAddr: c.ShippingAddress,
		BillingAddr:  c.Billing(),
		Coupons:      c.Coupons,
	}
	if v.Coupons == nil {
		v.Coupons = []string{}
	}
	if v.Promotions.AlmostFulfilledPromos == nil {
		v.Promotions.AlmostFulfilledPromos = []engine.AlmostFulfilled{}
	}
	if plain {
		tax, before := amt(c.Tax), amt(c.BeforeTax)
		v.Tax, v.BeforeTax = &tax, &before
	}
	fulfilled := map[string]int{}
	for _, e := range c.Items {
		price := PriceView{Money: money.Money{Amount: e.UnitPrice, Currency: c.Currency, Precision: prec}, Plain: plain, PriceListID: e.PriceListID}
		discounts := make([]DiscountView, len(e.Discounts))
		for i, d := range e.Discounts {
			discounts[i] = DiscountView{PromotionID: d.PromotionID, PromotionTitle: d.PromotionTitle,
				Quantity: d.Quantity, Price: amt(d.Price), Discount: amt(d.Discount)}
			j, ok := fulfilled[d.PromotionID]
			if !ok {
				j = len(v.Promotions.FulfilledPromos)
				fulfilled[d.PromotionID] = j
				v.Promotions.FulfilledPromos = append(v.Promotions.FulfilledPromos,
					FulfilledPromo{ID: d.PromotionID, Title: d.PromotionTitle, Discount: amt(0)})
			}
			v.Promotions.FulfilledPromos[j].Discount.Amount += d.Discount * int64(d.Quantity)
		}
		reserves := e.Reserves
		if reserves == nil {
			reserves = []stock.Reservation{}
		}
		if plain {
			v.Items = append(v.Items, AddEntry{
				ID: e.ID, ProductID: e.ProductID, Quantity: e.Quantity, Title: e.Title,
				TaxDetail: e.Taxes.TaxDetail, Price: price, Tax: amt(e.Taxes.Tax), BeforeTax: amt(e.Taxes.BeforeTax),
				Discounts: discounts, Reserves: reserves,
			})
			continue
		}
		lines := make([]TaxLineView, len(e.Taxes.Lines))
		for i, l := range e.Taxes.Lines {
			lines[i] = TaxLineView{BeforeTax: amt(l.BeforeTax), Tax: amt(l.Tax), TaxDetail: l.TaxDetail}
		}
		v.Items = append(v.Items, CalculateEntry{
			ID: e.ID, ProductID: e.ProductID, Title: e.Title, Quantity: e.Quantity, Price: price,
			Taxes: lines, Discounts: discounts, Reserves: reserves,
		})
	}
	if m := c.ShippingMethod; m != nil {
		v.ShippingMethod = &ShippingMethod{ID: m.ID, Title: m.Title, TaxCode: m.TaxCode, RateID: m.RateID,
			Rate: PriceView{Money: money.Money{Amount: m.Amount, Currency: m.Currency, Precision: prec}, Plain: plain}}
		if d := c.ShippingDiscount; d != nil && c.shippingDiscount() > 0 {
			a := amt(c.shippingDiscount())
			v.ShippingMethod.Discount = &a
			// The promotion is listed among those that discounted the
			// cart, with the shipping discount in its total.
			j, ok := fulfilled[d.PromotionID]
			if !ok {
				j = len(v.Promotions.FulfilledPromos)
				v.Promotions.FulfilledPromos = append(v.Promotions.FulfilledPromos,
					FulfilledPromo{ID: d.PromotionID, Title: d.PromotionTitle, Discount: amt(0)})
			}
			v.Promotions.FulfilledPromos[j].Discount.Amount += a.Amount
		}
	}
	return v
}
