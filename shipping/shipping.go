// Package shipping holds the shipping methods a cart can be shipped with
// (docs/api.md section 10) and the pure rules that decide which methods are
// available for an address and a currency, at what rate.
//
// A Method has rate groups (its "rates"). Each group lists the locations
// it serves (a country, optionally narrowed to a state of it) and its
// rates, one per currency. Amounts are kept in minor units of their
// currency and shown as plain numbers in major units (10.1 for 10.10 EUR).
//
// Availability (AvailableMethods, Select): a method is available for an
// address (country, state) in a cart currency when one of its groups has a
// location with the address's country and either no state or the
// address's state, and a rate in the currency. States are compared with
// geo.SameState, so "HI", "us-hi" and "Hawaii" are one state. Among the
// groups that qualify, one whose location names the state wins over a
// country-wide one; among equally specific groups the first one (in the
// order the method lists them) wins.
//
// Every admin write emits its event on SHIPPING in its transaction:
// shipping.create CREATE {new, data}, shipping.remove REMOVE {id, old}.
package shipping

import (
	"encoding/json"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
)

// DefaultTaxCode is the tax code of a method created without one.
const DefaultTaxCode = "default"

// NotFound returns the shipping_not_found error of an id (data: the id).
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EShippingNotFound, Data: id, Message: fmt.Sprintf("no shipping method %q", id)}
}

// Method is a shipping method: {id, title, active, taxCode, rates}.
type Method struct {
	ID      string      `json:"id"`
	Title   string      `json:"title"`
	Active  bool        `json:"active"`
	TaxCode string      `json:"taxCode"`
	Rates   []RateGroup `json:"rates"`
}

// RateGroup is an element of a method's rates: the locations it serves and
// its rates, one per currency. ID is generated at creation: it is the
// rateId a cart's shippingMethod names.
type RateGroup struct {
	ID        string     `json:"id"`
	Locations []Location `json:"locations"`
	Rates     []Rate     `json:"rates"`
}

// Location is a place a rate group serves: a whole country (State empty)
// or one state of it. State is kept as it was given (a code such as "HI"
// or a name such as "Hawaii"), not normalised.
type Location struct {
	Country string `json:"country"`
	State   string `json:"state,omitempty"`
}

// Rate is the price of shipping in one currency, Amount in minor units.
// Its JSON form is {currency, amount} with amount a plain number in major
// units.
type Rate struct {
	Currency string
	Amount   int64
}

// MarshalJSON writes {"currency": ..., "amount": <major units>}.
func (r Rate) MarshalJSON() ([]byte, error) {
	p, err := money.Precision(r.Currency)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Currency string      `json:"currency"`
		Amount   json.Number `json:"amount"`
	}{r.Currency, money.Major(r.Amount, p)})
}

// Available is a method available for an address and currency, in the
// shape setShippingAddress lists it: {id, title, taxCode, rates}, where
// rates are the matching group's rates as created (every currency of the
// group). Selected, not part of the JSON form, is what the cart stores
// when it assigns the method.
type Available struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	TaxCode  string   `json:"taxCode"`
	Rates    []Rate   `json:"rates"`
	Selected Selected `json:"-"`
}

// Selected is a method chosen for a cart: the method's ID, Title and
// TaxCode, the winning rate group's id (RateID) and that group's rate in
// the cart's Currency (Amount, in minor units). Its JSON tags are a
// storage form that round-trips (amount in minor units); the cart's
// shippingMethod output ({id, title, taxCode, rateId, rate}) is built by
// the cart, with Money for the money-object rate.
type Selected struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	TaxCode  string `json:"taxCode"`
	RateID   string `json:"rateId"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Money returns the selected rate as a money object {amount, currency,
// precision}.
func (s Selected) Money() money.Money {
	p, _ := money.Precision(s.Currency)
	return money.Money{Amount: s.Amount, Currency: s.Currency, Precision: p}
}

// Select returns what the method charges for shipping to (country, state)
// in currency, per the availability rules of the package documentation,
// and false when the method is not available there (an inactive method
// is never available). country must be the upper-case code; state may be
// empty (only country-wide groups match then) and is a code or a name.
func Select(m Method, country, state, currency string) (Selected, bool) {
	if !m.Active {
		return Selected{}, false
	}
	g, r, ok := match(m, country, state, currency)
	if !ok {
		return Selected{}, false
	}
	return Selected{ID: m.ID, Title: m.Title, TaxCode: m.TaxCode, RateID: g.ID, Amount: r.Amount, Currency: r.Currency}, true
}

// AvailableMethods returns, in the order given, the methods available for
// shipping to (country, state) in currency (see Select), each with the
// rates of its winning group. Inactive methods are left out. It never
// returns nil.
func AvailableMethods(methods []Method, country, state, currency string) []Available {
	out := []Available{}
	for _, m := range methods {
		if !m.Active {
			continue
		}
		g, r, ok := match(m, country, state, currency)
		if !ok {
			continue
		}
		out = append(out, Available{
			ID: m.ID, Title: m.Title, TaxCode: m.TaxCode, Rates: g.Rates,
			Selected: Selected{ID: m.ID, Title: m.Title, TaxCode: m.TaxCode, RateID: g.ID, Amount: r.Amount, Currency: r.Currency},
		})
	}
	return out
}

// match returns the winning group of m for the address and currency and
// its rate in the currency: the first group naming the address's state,
// else the first country-wide one, among the groups with a rate in the
// currency.
func match(m Method, country, state, currency string) (RateGroup, Rate, bool) {
	best, bestRate, found, bestSpecific := RateGroup{}, Rate{}, false, false
	for _, g := range m.Rates {
		r, ok := g.rate(currency)
		if !ok {
			continue
		}
		specific, ok := g.serves(country, state)
		if !ok {
			continue
		}
		if !found || (specific && !bestSpecific) {
			best, bestRate, found, bestSpecific = g, r, true, specific
		}
		if bestSpecific {
			break
		}
	}
	return best, bestRate, found
}

// rate returns the group's rate in the currency.
func (g RateGroup) rate(currency string) (Rate, bool) {
	for _, r := range g.Rates {
		if r.Currency == currency {
			return r, true
		}
	}
	return Rate{}, false
}

// serves reports whether the group serves the address (ok), and whether
// it does through a location naming the address's state (specific).
func (g RateGroup) serves(country, state string) (specific, ok bool) {
	for _, l := range g.Locations {
		if l.Country != country {
			continue
		}
		if l.State == "" {
			ok = true
			continue
		}
		if state != "" && geo.SameState(country, l.State, state) {
			return true, true
		}
	}
	return false, ok
}
