package tax

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Fields are the fields of a tax that tax.create and tax.update take, as
// given: nil (or a JSON null) is absent.
type Fields struct {
	// Code is the tax code: the tax applies to the products and shipping
	// methods with that taxCode (several taxes may share a code).
	Code *string `json:"code,omitempty"`
	// Class names the calculator: default (built in).
	Class *string `json:"class,omitempty"`
	// Title names the tax (the taxDetail of cart entries).
	Title *string `json:"title,omitempty"`
	// Description is the tax's text.
	Description *string `json:"description,omitempty"`
	// Rate is a percentage with isPercentage, else an amount per unit in
	// major units, added on top.
	Rate *money.Number `json:"rate,omitempty"`
	// IsPercentage says whether the rate is a percentage.
	IsPercentage *bool `json:"isPercentage,omitempty"`
}

// CreateInput is the argument of tax.create (see Service.Create for what
// is required).
type CreateInput struct {
	Fields `openapi:"class:required code:required rate:required title:required"`
}

// UpdateInput is the argument of tax.update: the id, and the fields to
// change.
type UpdateInput struct {
	// ID is the tax's id.
	ID string `json:"id" openapi:"required"`
	Fields
}

// ListInput holds the arguments of tax.list; every filter is optional.
// id, code and class match any of their values; title and description are
// case-insensitive Go RE2 patterns matching anywhere; rate matches the
// equal number (21 matches 21.0); isPercentage the flag. fields
// (comma-separated) returns id plus the named fields (unknown names
// ignored).
type ListInput struct {
	// ID matches the taxes with any of these ids.
	ID commerce.StringList `json:"id"`
	// Code matches the taxes with any of these codes, exactly (compared in
	// Unicode NFC).
	Code commerce.StringList `json:"code"`
	// Class matches the taxes of any of these classes.
	Class commerce.StringList `json:"class"`
	// Title matches the taxes whose title matches the pattern.
	Title *commerce.Pattern `json:"title"`
	// Description matches the taxes whose description matches the pattern.
	Description *commerce.Pattern `json:"description"`
	// Rate matches the taxes of this rate (21 matches 21.0).
	Rate *money.Number `json:"rate"`
	// IsPercentage matches the percentage (true) or fixed (false) taxes.
	IsPercentage *bool `json:"isPercentage"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// CartTaxesInput holds the arguments of tax.cartTaxes. Currency was not in
// the original interface, which gives plain-number prices without one: it is an optional
// ISO 4217 code, default USD, that sets the precision prices are read and
// taxes rounded in.
type CartTaxesInput struct {
	// CartID is a reference the caller chooses, returned as given.
	CartID string `json:"cartId" openapi:"required"`
	// Currency is the ISO 4217 currency of the prices (default USD).
	Currency *string `json:"currency" openapi:"pattern=currency"`
	// Items are the entries to tax.
	Items []CartTaxesItem `json:"items" openapi:"required"`
}

// CartTaxesItem is an entry to tax: Price is the TOTAL price of the entry
// (not the unit price) in major units; Quantity defaults to 1 and matters
// to fixed taxes (rate x quantity).
type CartTaxesItem struct {
	// ID names the entry in the answer.
	ID string `json:"id"`
	// ProductID is the product's id (its taxCode picks the taxes).
	ProductID string `json:"productId"`
	// Quantity is the number of units (default 1).
	Quantity *int `json:"quantity"`
	// Price is the entry's total price (not the unit price), in major units.
	Price *money.Number `json:"price"`
}
