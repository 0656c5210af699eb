package cart

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/geo"
)

// Address is a shipping or billing address (docs/api.md section 10). It is
// stored and returned as given: validated, not normalised (a state given
// as "Hawaii" stays "Hawaii"). PostCode and Phone are accepted as a JSON
// number or string and kept as strings; Address2 (typed "Array Number" by the
// original interface) is kept as whatever JSON value was given (null is absent).
type Address struct {
	// FirstName is the addressee's first name (required).
	FirstName string `json:"firstName" openapi:"required,trim"`
	// LastName is the addressee's last name.
	LastName string `json:"lastName,omitempty"`
	// Address1 is the street address (required).
	Address1 string `json:"address_1" openapi:"required,trim"`
	// Address2 is more of the address, kept as the JSON value given
	// (the original interface typed it "Array Number").
	Address2 json.RawMessage `json:"address_2,omitempty"`
	// PostCode is the postal code (required), a string or a number, kept as
	// a string of the digits given.
	PostCode Text `json:"postCode" openapi:"required,trim"`
	// City is the city (required).
	City string `json:"city" openapi:"required,trim"`
	// State is an ISO 3166-2 subdivision of the country (required): its code
	// without the country prefix (HI) or its English name (Hawaii),
	// case-insensitive; another is invalid_state.
	State string `json:"state" openapi:"required,trim"`
	// Country is an ISO 3166-1 alpha-2 code in upper case (required);
	// another is invalid_country.
	Country string `json:"country" openapi:"required,trim,pattern=country"`
	// Company is the addressee's company.
	Company string `json:"company,omitempty"`
	// Phone is a phone number, a string or a number, kept as a string.
	Phone Text `json:"phone,omitempty"`
	// Instructions are notes for the delivery.
	Instructions string `json:"instructions,omitempty"`
}

// Text is a string given as a JSON string or number (postCode, phone);
// a number keeps its literal digits ("96815"). It marshals as a string.
type Text string

// UnmarshalJSON reads a string or a number; null leaves it unchanged.
// Another JSON value is a *json.UnmarshalTypeError naming Text, which the
// transport reports as "must be a string or a number".
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case commerce.IsNull(b):
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(s)
		return nil
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		*t = Text(b)
		return nil
	}
	return wrongForm[Text]()
}

// Check records the address's missing fields under path: the required
// fields (firstName, address_1, postCode, city, state, country) must not be
// blank ("shippingAddress.city: required"); and each field holds at most
// commerce.MaxTitleLen characters (address_2 as its JSON).
func (a *Address) Check(p *commerce.Problems, path string) {
	p.CheckArgs(path, a) // the openapi tags: required, trim
	for _, f := range []struct{ name, value string }{
		{"firstName", a.FirstName}, {"lastName", a.LastName}, {"address_1", a.Address1}, {"address_2", string(a.Address2)},
		{"postCode", string(a.PostCode)}, {"city", a.City}, {"state", a.State}, {"country", a.Country},
		{"company", a.Company}, {"phone", string(a.Phone)}, {"instructions", a.Instructions},
	} {
		p.CheckLen(path+"."+f.name, f.value, commerce.MaxTitleLen)
	}
}

// CheckPlace checks the country and state of an address given as the
// argument path: the country must be an ISO 3166-1 alpha-2 code in upper
// case, else invalid_country (data: the country as given); then the state
// must be a subdivision of the country (its code or English name), else
// invalid_state (data: the state as given).
func (a *Address) CheckPlace(path string) error {
	if !geo.ValidCountry(a.Country) {
		return &commerce.Error{Code: commerce.EInvalidCountry, Data: a.Country,
			Message: fmt.Sprintf("%s.country: %q is not an ISO 3166-1 alpha-2 country code", path, a.Country)}
	}
	if !geo.ValidState(a.Country, a.State) {
		return &commerce.Error{Code: commerce.EInvalidState, Data: a.State,
			Message: fmt.Sprintf("%s.state: %q is not a state of %s", path, a.State, a.Country)}
	}
	return nil
}

// Validate checks the address given as the argument path: the missing
// fields (validation_error naming each one, see Check), then the country
// and state (see CheckPlace).
func (a *Address) Validate(path string) error {
	var p commerce.Problems
	a.Check(&p, path)
	if err := p.Err(); err != nil {
		return err
	}
	return a.CheckPlace(path)
}
