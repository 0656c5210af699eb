// Package tax holds taxes and computes the taxes of cart entries.
//
// A Tax applies to every product whose taxCode equals its Code; its Class
// names the Calculator that computes it. Amounts are integers in minor
// units; each computed amount is rounded half away from zero, per line.
//
// The class "default" is built in. On an entry's base (see Compute):
//   - a percentage on a net price is base x rate / 100;
//   - a percentage on a gross price is the tax it includes: with net the
//     exact base / (1 + sum of the percentage rates / 100), each line is
//     net x rate / 100, rounded once (for one tax: base - base / (1 + rate / 100));
//   - a fixed tax (IsPercentage false) is rate x quantity, added on top of
//     a net or gross price alike; a rate with more decimals than the
//     currency is multiplied by the quantity first and the line rounded once
//     (0.005 x 3 = 0.015 USD is 0.02).
//
// Adding a class: write a package that implements Calculator and registers
// it in an init function,
//
//	func init() { tax.Register("ecotax", ecotax{}) }
//
// and import that package for its side effect from cmd/commerce
// (import _ "github.com/commercekit/commerce/tax/ecotax"). Taxes can name the class from then on;
// Validate rejects a class nobody registered.
package tax

import (
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// DefaultClass is the class of the built-in calculator.
const DefaultClass = "default"

// DefaultCode is the tax code of a product that names none.
const DefaultCode = "default"

// DefaultCurrency is the currency of tax.cartTaxes prices when the request
// names none.
const DefaultCurrency = "USD"

// Tax is a tax that applies to the products with its Code. Rate is a
// percentage when IsPercentage is true, else an amount in major units of
// the cart's currency charged per unit. IsPercentage defaults to true on
// creation (Service.Create).
type Tax struct {
	ID           string        `json:"id"`
	Code         string        `json:"code"`
	Class        string        `json:"class"`
	Title        string        `json:"title"`
	Description  string        `json:"description"`
	Rate         money.Decimal `json:"rate"`
	IsPercentage bool          `json:"isPercentage"`
}

// NotFound returns the tax_not_found error of an id (data: the id).
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.ETaxNotFound, Data: id, Message: "no tax with id " + id}
}

// Validate checks a tax about to be created or updated (the record as it
// will be stored): code and title are required, class must be registered
// and rate must not be negative. A percentage above 100 is allowed (some
// excise duties are). It returns a validation_error listing every problem.
func Validate(t Tax) error {
	var problems commerce.Problems
	if strings.TrimSpace(t.Code) == "" {
		problems.Add("code", "required")
	}
	if strings.TrimSpace(t.Title) == "" {
		problems.Add("title", "required")
	}
	if _, ok := Lookup(t.Class); !ok {
		problems.Add("class", "must be one of %s", strings.Join(Classes(), ", "))
	}
	if t.Rate.Units < 0 {
		problems.Add("rate", "must not be negative")
	}
	return problems.Err()
}
