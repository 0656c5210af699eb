package shipping

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// CreateInput is the argument of shipping.create (see New for the
// rules). Pointers tell an absent (or null) field apart from a zero one.
type CreateInput struct {
	// Title names the method (shown to shoppers).
	Title *string `json:"title,omitempty" openapi:"required"`
	// Active says whether carts may use the method.
	Active *bool `json:"active,omitempty"`
	// TaxCode names the taxes of the shipping line (every tax of that code).
	TaxCode *string `json:"taxCode,omitempty"`
	// Rates are the rate groups: where the method ships (locations) and what
	// it costs there (a rate per currency).
	Rates []GroupInput `json:"rates,omitempty" openapi:"required,minItems=1"`
}

// GroupInput is an element of CreateInput.Rates. Its id is generated: an
// "id" in the input is rejected as an unknown field.
type GroupInput struct {
	// Locations are the places the group's rates apply to; a location
	// naming a state wins over a country-wide one.
	Locations []LocationInput `json:"locations,omitempty" openapi:"required,minItems=1"`
	// Rates are the group's prices, one per currency.
	Rates []RateInput `json:"rates,omitempty" openapi:"required,minItems=1"`
}

// LocationInput is an element of GroupInput.Locations.
type LocationInput struct {
	// Country is an ISO 3166-1 alpha-2 code in upper case.
	Country *string `json:"country,omitempty" openapi:"required,pattern=country"`
	// State is an ISO 3166-2 subdivision of the country (its code or
	// English name); absent, the whole country.
	State *string `json:"state,omitempty"`
}

// RateInput is an element of GroupInput.Rates; Amount is a number in major
// units of Currency.
type RateInput struct {
	// Currency is the rate's ISO 4217 currency code.
	Currency *string `json:"currency,omitempty" openapi:"required,pattern=currency"`
	// Amount is the rate in major units of the currency.
	Amount *money.Number `json:"amount,omitempty" openapi:"required"`
}

// InfoInput names a method in shipping.info and shipping.remove: `id`, or
// its alias `shippingId` (docs/api.md section 4).
type InfoInput struct {
	// ID is the method's id (or give it as shippingId).
	ID string `json:"id"`
	// ShippingID is the method's id (or give it as id).
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
	// ID matches the methods with any of these ids.
	ID commerce.StringList `json:"id"`
	// Title matches the methods whose title matches the pattern.
	Title *commerce.Pattern `json:"title"`
	// Active matches the active (true) or inactive (false) methods; absent,
	// both.
	Active *bool `json:"active"`
	// Country matches the methods with a location in any of these
	// countries.
	Country commerce.StringList `json:"country"`
	// TaxCode matches the methods with any of these tax codes, exactly.
	TaxCode commerce.StringList `json:"taxCode"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
	commerce.PageArgs
}
