package cart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/geo"
)

// Address is a shipping or billing address (SPEC.md "Address"). It is
// stored and returned as given: validated, not normalised (a state given
// as "Hawaii" stays "Hawaii"). PostCode and Phone are accepted as a JSON
// number or string and kept as strings; Address2 (typed "Array Number" in
// SPEC.md) is kept as whatever JSON value was given.
type Address struct {
	FirstName    string          `json:"firstName"`
	LastName     string          `json:"lastName,omitempty"`
	Address1     string          `json:"address_1"`
	Address2     json.RawMessage `json:"address_2,omitempty"`
	PostCode     Text            `json:"postCode"`
	City         string          `json:"city"`
	State        string          `json:"state"`
	Country      string          `json:"country"`
	Company      string          `json:"company,omitempty"`
	Phone        Text            `json:"phone,omitempty"`
	Instructions string          `json:"instructions,omitempty"`
}

// Text is a string given as a JSON string or number (postCode, phone);
// a number keeps its literal digits ("96815"). It marshals as a string.
type Text string

// UnmarshalJSON reads a string or a number; null leaves it unchanged.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
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
	// The decoder names the field; an offset past the end tells the
	// transport to use that name rather than look for the value.
	return &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[Text](), Offset: math.MaxInt64}
}

// Validate checks the address given as the argument field: the required
// fields (firstName, address_1, postCode, city, state, country) must not be
// blank, else validation_error naming each missing one
// ("shippingAddress.city: required"); then the country must be an ISO
// 3166-1 alpha-2 code in upper case, else invalid_country (data: the
// country as given); then the state must be a subdivision of the country
// (its code or English name), else invalid_state (data: the state as
// given).
func (a *Address) Validate(field string) error {
	var problems []string
	for _, f := range []struct{ name, value string }{
		{"firstName", a.FirstName}, {"address_1", a.Address1}, {"postCode", string(a.PostCode)},
		{"city", a.City}, {"state", a.State}, {"country", a.Country},
	} {
		if strings.TrimSpace(f.value) == "" {
			problems = append(problems, field+"."+f.name+": required")
		}
	}
	if problems != nil {
		return commerce.Invalid(problems...)
	}
	if !geo.ValidCountry(a.Country) {
		return &commerce.Error{Code: commerce.EInvalidCountry, Data: a.Country,
			Message: fmt.Sprintf("%s.country: %q is not an ISO 3166-1 alpha-2 country code", field, a.Country)}
	}
	if !geo.ValidState(a.Country, a.State) {
		return &commerce.Error{Code: commerce.EInvalidState, Data: a.State,
			Message: fmt.Sprintf("%s.state: %q is not a state of %s", field, a.State, a.Country)}
	}
	return nil
}

// normalise drops an address_2 given as null (null means absent).
func (a *Address) normalise() {
	if s := strings.TrimSpace(string(a.Address2)); s == "" || s == "null" {
		a.Address2 = nil
	}
}

// parseAddressArg reads an argument holding an address object or a
// string. It returns the address, or the string, or neither when the
// argument is absent (or null). A malformed object is validation_error
// naming the field path; the address is validated (see Address.Validate).
func parseAddressArg(field string, raw json.RawMessage) (*Address, string, error) {
	b := bytes.TrimSpace(raw)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil, "", nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, "", commerce.Invalid(field + ": not valid JSON")
		}
		return nil, s, nil
	case b[0] != '{':
		return nil, "", commerce.Invalid(field + ": must be an address object or the string " + SameAsShipping)
	}
	a, err := decodeAddress(field, b)
	if err != nil {
		return nil, "", err
	}
	if err := a.Validate(field); err != nil {
		return nil, "", err
	}
	return a, "", nil
}

// addressFields are the names of an address's fields, matched exactly.
var addressFields = map[string]bool{
	"firstName": true, "lastName": true, "address_1": true, "address_2": true, "postCode": true,
	"city": true, "state": true, "country": true, "company": true, "phone": true, "instructions": true,
}

// decodeAddress decodes an address object strictly: a field whose name is
// not exactly one of addressFields is validation_error, as in every
// request body (encoding/json alone would take "FIRSTNAME" for firstName).
func decodeAddress(field string, b []byte) (*Address, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, commerce.Invalid(field + ": not valid JSON")
	}
	var unknown []string
	for k := range keys {
		if !addressFields[k] {
			unknown = append(unknown, field+"."+k+": unknown field")
		}
	}
	if unknown != nil {
		slices.Sort(unknown)
		return nil, commerce.Invalid(unknown...)
	}
	var a Address
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			path := field
			if te.Field != "" {
				path += "." + te.Field
			}
			return nil, commerce.Invalid(path + ": must be " + typeName(te.Type))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, commerce.Invalid(field + ": not valid JSON")
		}
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return nil, commerce.Invalid(field + "." + strings.Trim(name, `"`) + ": unknown field")
		}
		return nil, commerce.Invalid(field + ": " + strings.TrimPrefix(msg, "json: "))
	}
	a.normalise()
	return &a, nil
}

func typeName(t reflect.Type) string {
	if t == reflect.TypeFor[Text]() {
		return "a string or a number"
	}
	if t != nil && t.Kind() == reflect.String {
		return "a string"
	}
	return "of another type"
}
