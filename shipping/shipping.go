// Package shipping holds the shipping methods a cart can be shipped with
// (CONTRACT.md section 10) and the pure rules that decide which methods are
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
// The shipping area emits no events: CONTRACT.md section 11 lists none.
package shipping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
)

// DefaultTaxCode is the tax code of a method created without one.
const DefaultTaxCode = "default"

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

// Input is the body of shipping.create. Pointers and raw amounts tell an
// absent (or null) field apart from a zero one and let a value of the
// wrong type be reported against its field path.
type Input struct {
	Title   *string      `json:"title"`
	Active  *bool        `json:"active"`
	TaxCode *string      `json:"taxCode"`
	Rates   []GroupInput `json:"rates"`
}

// GroupInput is an element of Input.Rates. Its id is generated: an "id"
// in the input is rejected as an unknown field.
type GroupInput struct {
	Locations []LocationInput `json:"locations"`
	Rates     []RateInput     `json:"rates"`
}

// LocationInput is an element of GroupInput.Locations.
type LocationInput struct {
	Country *string `json:"country"`
	State   *string `json:"state"`
}

// RateInput is an element of GroupInput.Rates; Amount is a JSON number in
// major units of Currency.
type RateInput struct {
	Currency *string         `json:"currency"`
	Amount   json.RawMessage `json:"amount"`
}

// Build validates a shipping.create input and returns the method it
// describes, with new ids for the method and each of its rate groups.
//
// Rules: title is required (not blank); active defaults to true; taxCode
// defaults to "default" when absent or null, and must not be blank when
// given; rates needs at least one group, each with at least one location
// and at least one rate. A location's country must be an ISO 3166-1
// alpha-2 code in upper case; its state, when given, must be a state of
// that country (a code without the country prefix, or its English name, as
// package geo accepts). A rate's currency must be an ISO 4217 code, given
// at most once per group (a group cannot have two prices in one
// currency), and its amount a number >= 0 with no more decimals than the
// currency has. Every problem is reported, each naming its field path
// ("rates[1].locations[0].state: ..."), in one validation_error.
func Build(in Input) (Method, error) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	m := Method{ID: commerce.NewID(), Active: true, TaxCode: DefaultTaxCode}
	if in.Title == nil || strings.TrimSpace(*in.Title) == "" {
		add("title: required")
	} else {
		m.Title = *in.Title
	}
	if in.Active != nil {
		m.Active = *in.Active
	}
	if in.TaxCode != nil {
		if strings.TrimSpace(*in.TaxCode) == "" {
			add("taxCode: must not be blank (omit it for %q)", DefaultTaxCode)
		} else {
			m.TaxCode = *in.TaxCode
		}
	}
	if len(in.Rates) == 0 {
		add("rates: must have at least one rate group")
	}
	m.Rates = make([]RateGroup, 0, len(in.Rates))
	for i, gi := range in.Rates {
		g := RateGroup{ID: commerce.NewID(), Locations: make([]Location, 0, len(gi.Locations)), Rates: make([]Rate, 0, len(gi.Rates))}
		if len(gi.Locations) == 0 {
			add("rates[%d].locations: must have at least one location", i)
		}
		for j, li := range gi.Locations {
			at := fmt.Sprintf("rates[%d].locations[%d].", i, j)
			var l Location
			countryOK := false
			switch {
			case li.Country == nil || *li.Country == "":
				add("%scountry: required", at)
			case !geo.ValidCountry(*li.Country):
				add("%scountry: %q is not an ISO 3166-1 alpha-2 country code (upper case)", at, *li.Country)
			default:
				l.Country, countryOK = *li.Country, true
			}
			if li.State != nil {
				if countryOK && !geo.ValidState(l.Country, *li.State) {
					add("%sstate: %q is not a state of %s", at, *li.State, l.Country)
				}
				l.State = *li.State
			}
			g.Locations = append(g.Locations, l)
		}
		if len(gi.Rates) == 0 {
			add("rates[%d].rates: must have at least one rate", i)
		}
		seen := map[string]bool{}
		for j, ri := range gi.Rates {
			at := fmt.Sprintf("rates[%d].rates[%d].", i, j)
			var r Rate
			precision, currencyOK := 0, false
			switch {
			case ri.Currency == nil || *ri.Currency == "":
				add("%scurrency: required", at)
			case !money.ValidCurrency(*ri.Currency):
				add("%scurrency: %q is not an ISO 4217 currency code", at, *ri.Currency)
			case seen[*ri.Currency]:
				add("%scurrency: %s is given twice in this rate group", at, *ri.Currency)
			default:
				r.Currency, currencyOK = *ri.Currency, true
				seen[r.Currency] = true
				precision, _ = money.Precision(r.Currency)
			}
			d, present, problem := amount(ri.Amount)
			switch {
			case problem != "":
				add("%samount: %s", at, problem)
			case !present:
				add("%samount: required", at)
			case d.Units < 0:
				add("%samount: must not be negative", at)
			case currencyOK:
				minor, err := d.Minor(precision)
				if err == nil && minor > money.MaxAmount {
					add("%samount: at most %s", at, money.FormatMinor(money.MaxAmount, precision))
				}
				if err != nil {
					if d.Scale > precision {
						add("%samount: %s has more than %d decimals, the precision of %s", at, d, precision, r.Currency)
					} else {
						add("%samount: too large", at)
					}
				}
				r.Amount = minor
			}
			g.Rates = append(g.Rates, r)
		}
		m.Rates = append(m.Rates, g)
	}
	if len(problems) > 0 {
		return Method{}, commerce.Invalid(problems...)
	}
	return m, nil
}

// amount reads a raw JSON amount exactly: present is false for an absent
// or null one, and problem says what is wrong with one that is not a
// usable number.
func amount(raw json.RawMessage) (d money.Decimal, present bool, problem string) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return money.Decimal{}, false, ""
	}
	if !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return money.Decimal{}, true, "must be a number"
	}
	d, err := money.ParseDecimal(s)
	if errors.Is(err, money.ErrRange) {
		return money.Decimal{}, true, "too large or too precise"
	}
	if err != nil {
		return money.Decimal{}, true, "must be a number"
	}
	return d, true, ""
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
