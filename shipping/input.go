package shipping

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// CreateInput is the argument of shipping.create (see New for the
// rules). Pointers tell an absent (or null) field apart from a zero one.
type CreateInput struct {
	Title   *string      `json:"title,omitempty"`
	Active  *bool        `json:"active,omitempty"`
	TaxCode *string      `json:"taxCode,omitempty"`
	Rates   []GroupInput `json:"rates,omitempty"`
}

// GroupInput is an element of CreateInput.Rates. Its id is generated: an
// "id" in the input is rejected as an unknown field.
type GroupInput struct {
	Locations []LocationInput `json:"locations,omitempty"`
	Rates     []RateInput     `json:"rates,omitempty"`
}

// LocationInput is an element of GroupInput.Locations.
type LocationInput struct {
	Country *string `json:"country,omitempty"`
	State   *string `json:"state,omitempty"`
}

// RateInput is an element of GroupInput.Rates; Amount is a number in major
// units of Currency.
type RateInput struct {
	Currency *string       `json:"currency,omitempty"`
	Amount   *money.Number `json:"amount,omitempty"`
}

// InfoInput names a method in shipping.info and shipping.remove: `id`, or
// its alias `shippingId` (CONTRACT.md section 4).
type InfoInput struct {
	ID         string `json:"id"`
	ShippingID string `json:"shippingId"`
}

// RemoveInput is the argument of shipping.remove, named as for
// shipping.info.
type RemoveInput = InfoInput

// Resolve returns the id the input names. One of id and shippingId is
// required; both may be given only with the same value (else
// validation_error, rather than silently picking one).
func (in InfoInput) Resolve() (string, error) {
	switch {
	case in.ID == "" && in.ShippingID == "":
		return "", commerce.Invalid("id: required")
	case in.ID != "" && in.ShippingID != "" && in.ID != in.ShippingID:
		return "", commerce.Invalid("shippingId: differs from id (give one of them)")
	case in.ID != "":
		return in.ID, nil
	}
	return in.ShippingID, nil
}

// ListInput holds the arguments of shipping.list; every filter is
// optional. id, country and taxCode match any of their values (country:
// the methods with a location in that country); title is a
// case-insensitive Go RE2 pattern matching anywhere; active the flag
// (absent: active and inactive methods alike, since this is the admin's
// view; the cart asks Available for what a customer may use). fields
// (comma-separated) returns id plus the named top-level fields (unknown
// names ignored).
type ListInput struct {
	ID      commerce.StringList `json:"id"`
	Title   *commerce.Pattern   `json:"title"`
	Active  *bool               `json:"active"`
	Country commerce.StringList `json:"country"`
	TaxCode commerce.StringList `json:"taxCode"`
	Fields  commerce.StringList `json:"fields"`
	commerce.PageArgs
}
