package mail

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
)

// Data is what a template is executed with. Every message has Shop,
// Locale and To; the other fields are set for the templates the README
// lists them for (nil or "" otherwise).
type Data struct {
	Shop   Shop
	Locale string
	// To is the address the message goes to.
	To string
	// Name is the recipient's first name, "" when unknown.
	Name string
	// Subject is the rendered subject (for the HTML's title).
	Subject string

	Order       *OrderView       // order_*, return_update
	Fulfillment *FulfillmentView // order_shipped
	Refund      *RefundView      // order_refunded
	Return      *ReturnView      // return_update
	Link        *LinkView        // password_reset, staff_invite
}

// Shop is the shop the message comes from.
type Shop struct {
	Name string // --shop-name
	URL  string // --storefront-url
}

// OrderView is an order as the templates show it: amounts formatted for
// the message's locale.
type OrderView struct {
	ID, Number, Date, Email string
	Lines                   []LineView
	Items, Discount         string // the totals
	Shipping, Tax, Total    string
	HasDiscount             bool
	ShippingMethod          string
	ShippingAddress         *AddressView
	BillingAddress          *AddressView
	// URL is the order's page on the storefront:
	// <storefront-url>/orders/<id>.
	URL string
}

// LineView is an order line.
type LineView struct {
	Title, SKU       string
	Quantity         int64
	UnitPrice, Total string
}

// AddressView is an address as lines of text.
type AddressView struct {
	Name  string
	Lines []string
}

// FulfillmentView is a shipment.
type FulfillmentView struct {
	Lines          []LineView // Title, SKU, Quantity
	Carrier        string
	TrackingNumber string
}

// RefundView is a refund.
type RefundView struct {
	Amount, Reason string
}

// ReturnView is a return (docs/api.md section 24).
type ReturnView struct {
	Number, Status string
	// Lines are the returned items.
	Lines  []ReturnLine
	Refund string // the refunded amount, "" before a refund
}

// ReturnLine is an item of a return.
type ReturnLine struct {
	Title    string
	Quantity int64
	Reason   string
}

// LinkView is a link the recipient follows, valid until Expires.
type LinkView struct {
	URL     string
	Expires string // formatted for the locale, in UTC
}

// Money formats an amount for a locale: "$1,234.50" in en, "1.234,50 $"
// in es; a currency without a well-known symbol shows its code.
func Money(m money.Money, locale string) string {
	digits := money.FormatMinor(m.Amount, m.Precision)
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	intPart, frac, _ := strings.Cut(digits, ".")
	for len(frac) < m.Precision { // FormatMinor drops trailing zeros
		frac += "0"
	}
	thousands, decimal := ",", "."
	if locale != "en" && !strings.HasPrefix(locale, "en-") {
		thousands, decimal = ".", ","
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteString(thousands)
		}
		b.WriteRune(c)
	}
	n := b.String()
	if frac != "" {
		n += decimal + frac
	}
	sym, ok := symbols[m.Currency]
	if !ok {
		sym = m.Currency
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if decimal == "." && ok {
		return sign + sym + n
	}
	return sign + n + "\u00a0" + sym
}

var symbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$", "MXN": "MX$"}

// Date formats a date for a locale (UTC).
func Date(t time.Time, locale string) string {
	t = t.UTC()
	if locale == "es" || strings.HasPrefix(locale, "es-") {
		return t.Format("02/01/2006")
	}
	return t.Format("January 2, 2006")
}

// DateTime formats a time for a locale (UTC).
func DateTime(t time.Time, locale string) string {
	return Date(t, locale) + " " + t.UTC().Format("15:04") + " UTC"
}

// orderView builds the view of an order for a locale; storefront is the
// storefront's address.
func orderView(o *order.Order, locale, storefront string) *OrderView {
	v := &OrderView{ID: o.ID, Number: o.Number, Date: Date(o.CreatedAt, locale), Email: o.Email,
		Items: Money(o.Totals.Items, locale), Discount: Money(o.Totals.Discount, locale),
		Shipping: Money(o.Totals.Shipping, locale), Tax: Money(o.Totals.Tax, locale), Total: Money(o.Totals.Total, locale),
		HasDiscount: o.Totals.Discount.Amount != 0,
		URL:         strings.TrimRight(storefront, "/") + "/orders/" + url.PathEscape(o.ID)}
	for _, it := range o.Items {
		v.Lines = append(v.Lines, LineView{Title: it.Title, SKU: it.SKU, Quantity: it.Quantity,
			UnitPrice: Money(it.UnitPrice, locale), Total: Money(it.Total, locale)})
	}
	if o.ShippingMethod != nil {
		v.ShippingMethod = o.ShippingMethod.Title
	}
	v.ShippingAddress = addressView(o.ShippingAddress)
	v.BillingAddress = addressView(o.BillingAddress)
	return v
}

// address is what addressView reads of an order's address.
type address struct {
	FirstName string          `json:"firstName"`
	LastName  string          `json:"lastName"`
	Company   string          `json:"company"`
	Address1  string          `json:"address_1"`
	Address2  json.RawMessage `json:"address_2"`
	PostCode  string          `json:"postCode"`
	City      string          `json:"city"`
	State     string          `json:"state"`
	Country   string          `json:"country"`
}

// addressView turns an order's address (JSON) into lines; nil when there
// is none.
func addressView(raw json.RawMessage) *AddressView {
	var a address
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil || (a.Address1 == "" && a.City == "" && a.Country == "") {
		return nil
	}
	v := &AddressView{Name: strings.TrimSpace(a.FirstName + " " + a.LastName)}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			v.Lines = append(v.Lines, s)
		}
	}
	add(a.Company)
	add(a.Address1)
	var a2 string
	if json.Unmarshal(a.Address2, &a2) == nil {
		add(a2)
	}
	add(strings.Join(nonEmpty(a.PostCode, a.City, a.State), " "))
	add(a.Country)
	return v
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// fulfillmentView is the view of the order's fulfillment f.
func fulfillmentView(o *order.Order, f *order.Fulfillment) *FulfillmentView {
	v := &FulfillmentView{Carrier: f.Carrier, TrackingNumber: f.TrackingNumber}
	for _, q := range f.Items {
		l := LineView{Quantity: q.Quantity}
		for _, it := range o.Items {
			if it.ID == q.ItemID {
				l.Title, l.SKU = it.Title, it.SKU
			}
		}
		v.Lines = append(v.Lines, l)
	}
	return v
}

// itemTitle returns the title of the order's item with the id.
func itemTitle(o *order.Order, id string) string {
	for _, it := range o.Items {
		if it.ID == id {
			return it.Title
		}
	}
	return id
}
