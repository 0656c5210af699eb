package catalog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
)

// parsePrices validates the prices as given and returns them in minor
// units, generating the ids of prices that have none. Checks, per price in
// order: the shape (validation_error), a negative amount (price_invalid),
// the currency (price_currency_invalid, data: the currency), decimals
// beyond the currency's precision (price_invalid, data: the price as
// given), the country (price_country_invalid, data: the country), the
// customer type (validation_error), the validity dates (price_valid_dates,
// data: {validFrom, validUntil} as given). Price ids must be unique within
// the product (validation_error).
func parsePrices(in []*PriceInput) ([]Price, error) {
	out := make([]Price, 0, len(in))
	ids := map[string]bool{}
	for i, pin := range in {
		p, err := parsePrice(commerce.Index("prices", i), pin)
		if err != nil {
			return nil, err
		}
		if p.ID == "" {
			p.ID = commerce.NewID()
		} else if ids[p.ID] {
			return nil, commerce.Invalid(fmt.Sprintf("%s.id: duplicate price id %q", commerce.Index("prices", i), p.ID))
		}
		ids[p.ID] = true
		out = append(out, p)
	}
	return out, nil
}

// parsePrice checks one price as given (path is "prices[i]").
func parsePrice(path string, in *PriceInput) (Price, error) {
	invalid := func(field, msg string) error { return commerce.Invalid(path + "." + field + ": " + msg) }
	if in == nil {
		return Price{}, commerce.Invalid(path + ": must be an object")
	}
	given := *in // the offending price object, as given
	var p Price
	if in.ID != nil {
		p.ID = strings.TrimSpace(*in.ID)
	}

	// amount
	switch {
	case in.Amount.IsNull():
		return Price{}, invalid("amount", "required")
	case in.Amount.Kind() != KindNumber:
		return Price{}, invalid("amount", "must be a number")
	}
	amount, err := money.ParseDecimal(in.Amount.Text())
	if err != nil || amount.Units < 0 {
		return Price{}, commerce.NewError(commerce.EPriceInvalid, given)
	}

	// currency
	if in.Currency == nil {
		return Price{}, invalid("currency", "required")
	}
	prec, err := money.Precision(*in.Currency)
	if err != nil {
		return Price{}, commerce.NewError(commerce.EPriceCurrencyInvalid, *in.Currency)
	}
	p.Currency = *in.Currency
	if p.Amount, err = amount.Minor(prec); err != nil || p.Amount > money.MaxAmount {
		return Price{}, commerce.NewError(commerce.EPriceInvalid, given)
	}

	// country, customer type, channel
	if in.Country != nil && *in.Country != "" {
		if !geo.ValidCountry(*in.Country) {
			return Price{}, commerce.NewError(commerce.EPriceCountryInvalid, *in.Country)
		}
		p.Country = *in.Country
	}
	if in.CustomerType != nil && *in.CustomerType != "" {
		if !slices.Contains(CustomerTypes, *in.CustomerType) {
			return Price{}, invalid("customerType", "must be one of "+strings.Join(CustomerTypes, ", "))
		}
		p.CustomerType = *in.CustomerType
	}
	if in.Channel != nil {
		p.Channel = strings.TrimSpace(*in.Channel)
	}

	// validity dates: both or neither, parsable, in order
	if !in.ValidFrom.IsNull() || !in.ValidUntil.IsNull() {
		from, ok1 := parseDate(in.ValidFrom, false)
		until, ok2 := parseDate(in.ValidUntil, true)
		if !ok1 || !ok2 || until.Before(from) {
			// Absent dates are written as null (Literal).
			return Price{}, commerce.NewError(commerce.EPriceValidDates,
				map[string]Literal{"validFrom": in.ValidFrom, "validUntil": in.ValidUntil})
		}
		p.ValidFrom, p.ValidUntil = &from, &until
	}
	return p, nil
}

// parseDate reads a validity date: a string holding an RFC 3339 date-time
// with an offset, or a plain date (2017-01-01), which is the start of that
// day UTC, or for the end of a period (end true) its last millisecond.
func parseDate(v Literal, end bool) (time.Time, bool) {
	if v.Kind() != KindString {
		return time.Time{}, false
	}
	s := strings.TrimSpace(v.Text())
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		t = t.Add(24*time.Hour - time.Millisecond)
	}
	return t, true
}
