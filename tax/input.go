package tax

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Fields are the fields of a tax that tax.create and tax.update take, as
// given: nil (or a JSON null) is absent.
type Fields struct {
	Code         *string       `json:"code,omitempty"`
	Class        *string       `json:"class,omitempty"`
	Title        *string       `json:"title,omitempty"`
	Description  *string       `json:"description,omitempty"`
	Rate         *money.Number `json:"rate,omitempty"`
	IsPercentage *bool         `json:"isPercentage,omitempty"`
}

// CreateInput is the argument of tax.create (see Service.Create for what
// is required).
type CreateInput Fields

// UpdateInput is the argument of tax.update: the id, and the fields to
// change.
type UpdateInput struct {
	ID string `json:"id"`
	Fields
}

// ListInput holds the arguments of tax.list; every filter is optional.
// id, code and class match any of their values; title and description are
// case-insensitive Go RE2 patterns matching anywhere; rate matches the
// equal number (21 matches 21.0); isPercentage the flag. fields
// (comma-separated) returns id plus the named fields (unknown names
// ignored).
type ListInput struct {
	ID           commerce.StringList `json:"id"`
	Code         commerce.StringList `json:"code"`
	Class        commerce.StringList `json:"class"`
	Title        *commerce.Pattern   `json:"title"`
	Description  *commerce.Pattern   `json:"description"`
	Rate         *money.Number       `json:"rate"`
	IsPercentage *bool               `json:"isPercentage"`
	Fields       commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// CartTaxesInput holds the arguments of tax.cartTaxes. Currency is not in
// SPEC.md, which gives plain-number prices without one: it is an optional
// ISO 4217 code, default USD, that sets the precision prices are read and
// taxes rounded in.
type CartTaxesInput struct {
	CartID   string          `json:"cartId"`
	Currency *string         `json:"currency"`
	Items    []CartTaxesItem `json:"items"`
}

// CartTaxesItem is an entry to tax: Price is the TOTAL price of the entry
// (not the unit price) in major units; Quantity defaults to 1 and matters
// to fixed taxes (rate x quantity).
type CartTaxesItem struct {
	ID        string        `json:"id"`
	ProductID string        `json:"productId"`
	Quantity  *int          `json:"quantity"`
	Price     *money.Number `json:"price"`
}
