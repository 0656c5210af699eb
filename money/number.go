package money

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Number is a numeric argument of an operation (a tax rate, a price or a
// shipping rate in major units), read exactly from its JSON number. Its
// decoding never fails: a value that is not a usable number is kept with
// its problem, which Check reports (the transport calls it, as for every
// commerce.Checker, naming the field) and Decimal returns, so that the
// problem is reported against the field's path rather than as a failure of
// the whole body. A JSON null leaves a *Number field nil (absent).
type Number struct {
	d       Decimal
	literal string // as given, for MarshalJSON
	problem string
}

// NewNumber returns the Number a JSON literal decodes to: NewNumber("21.5")
// for callers that build arguments in Go.
func NewNumber(literal string) Number {
	var n Number
	_ = n.UnmarshalJSON([]byte(literal))
	return n
}

// UnmarshalJSON reads a JSON number exactly; anything else (a string
// holding a number included) is kept with the problem "must be a number",
// a number beyond Decimal (more than 18 digits, an exponent beyond ±30)
// with "too large or too precise".
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*n = Number{literal: string(b)}
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		n.problem = "must be a number"
		return nil
	}
	d, err := ParseDecimal(string(b))
	switch {
	case err != nil && json.Valid(b):
		// A JSON number beyond Decimal: too many digits, or an exponent
		// beyond ±30.
		n.problem = "too large or too precise"
	case err != nil:
		n.problem = "must be a number"
	default:
		n.d = d
	}
	return nil
}

// MarshalJSON writes the number as it was given.
func (n Number) MarshalJSON() ([]byte, error) {
	if n.literal == "" {
		return []byte(n.d.String()), nil
	}
	return []byte(n.literal), nil
}

// Check returns what is wrong with the value ("" when it is a number).
func (n Number) Check() string { return n.problem }

// NonNegative returns the value of an argument that is required and must
// not be negative (a price, a rate), or what is wrong with it: "required"
// when n is nil (absent or null), the problem Check reports, or "must not
// be negative".
func (n *Number) NonNegative() (Decimal, string) {
	switch {
	case n == nil:
		return Decimal{}, "required"
	case n.problem != "":
		return Decimal{}, n.problem
	case n.d.Units < 0:
		return Decimal{}, "must not be negative"
	}
	return n.d, ""
}

// Decimal returns the number, or the problem of a value that is not one
// (see Check) as an error whose text is the problem.
func (n Number) Decimal() (Decimal, error) {
	if n.problem != "" {
		return Decimal{}, errors.New(n.problem)
	}
	return n.d, nil
}
