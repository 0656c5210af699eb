package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
)

// problems collects validation_error messages ("field.path: message").
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return commerce.Invalid(p...)
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// checkProduct checks the fields of a product about to be stored that need
// no other record: required fields, allowed values, empty and duplicate
// entries. It returns a validation_error listing every problem.
func checkProduct(p *Product) error {
	var ps problems
	if blank(p.SKU) {
		ps.add("sku: required")
	}
	if p.Status != StatusOnline && p.Status != StatusDraft {
		ps.add("status: must be ONLINE or DRAFT")
	}
	if blank(p.Title) {
		ps.add("title: required")
	}
	if p.StockStatus < StockNormal || p.StockStatus > StockDiscontinued {
		ps.add("stockStatus: must be 0 (NORMAL), 1 (UNLIMITED) or 2 (DISCONTINUED)")
	}
	if blank(p.TaxCode) {
		ps.add("taxCode: must not be empty")
	}
	if p.Categories == nil {
		ps.add("categories: required")
	} else if len(p.Categories) == 0 && p.Base == "" && len(p.Variations) == 0 {
		ps.add("categories: must not be empty (only a Variant product may have no categories)")
	}
	uniqueStrings(&ps, "categories", p.Categories)
	seen := map[string]bool{}
	for i, m := range p.Medias {
		if blank(m.ID) {
			ps.add("medias[%d].id: required", i)
		} else if seen[m.ID] {
			ps.add("medias[%d].id: duplicate media id %q", i, m.ID)
		}
		seen[m.ID] = true
		if blank(m.URL) {
			ps.add("medias[%d].url: required", i)
		}
	}
	clear(seen)
	for i, c := range p.Classifications {
		if blank(c.ID) {
			ps.add("classifications[%d].id: required", i)
		} else if seen[c.ID] {
			ps.add("classifications[%d].id: duplicate classification %q", i, c.ID)
		}
		seen[c.ID] = true
	}
	uniqueStrings(&ps, "modifiers", p.Modifiers)
	clear(seen)
	for i, v := range p.Variations {
		if blank(v.ID) {
			ps.add("variations[%d].id: required", i)
		} else if seen[v.ID] {
			ps.add("variations[%d].id: duplicate variation %q", i, v.ID)
		}
		seen[v.ID] = true
	}
	return ps.err()
}

// uniqueStrings adds a problem for each blank or repeated element of list.
func uniqueStrings(ps *problems, field string, list []string) {
	seen := make(map[string]bool, len(list))
	for i, s := range list {
		switch {
		case blank(s):
			ps.add("%s[%d]: must not be empty", field, i)
		case seen[s]:
			ps.add("%s[%d]: duplicate %q", field, i, s)
		}
		seen[s] = true
	}
}

// priceFields is a price element as given, decoded strictly.
type priceFields struct {
	ID           *string         `json:"id"`
	Amount       json.RawMessage `json:"amount"`
	Currency     *string         `json:"currency"`
	Country      *string         `json:"country"`
	CustomerType *string         `json:"customerType"`
	Channel      *string         `json:"channel"`
	ValidFrom    json.RawMessage `json:"validFrom"`
	ValidUntil   json.RawMessage `json:"validUntil"`
}

// isNull reports whether raw JSON is absent or null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// parsePrices validates the prices as given and returns them in minor
// units, generating the ids of prices that have none. Checks, per price in
// order: the shape (validation_error), a negative amount (price_invalid),
// the currency (price_currency_invalid, data: the currency), decimals
// beyond the currency's precision (price_invalid, data: the price as
// given), the country (price_country_invalid, data: the country), the
// customer type (validation_error), the validity dates (price_valid_dates,
// data: {validFrom, validUntil} as given). Price ids must be unique within
// the product (validation_error).
func parsePrices(in []PriceInput) ([]Price, error) {
	out := make([]Price, 0, len(in))
	ids := map[string]bool{}
	for i, pin := range in {
		p, err := parsePrice(i, pin.Raw)
		if err != nil {
			return nil, err
		}
		if p.ID == "" {
			p.ID = commerce.NewID()
		} else if ids[p.ID] {
			return nil, commerce.Invalid(fmt.Sprintf("prices[%d].id: duplicate price id %q", i, p.ID))
		}
		ids[p.ID] = true
		out = append(out, p)
	}
	return out, nil
}

func parsePrice(i int, raw json.RawMessage) (Price, error) {
	field := func(name string) string { return fmt.Sprintf("prices[%d].%s", i, name) }
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Price{}, commerce.Invalid(fmt.Sprintf("prices[%d]: must be an object", i))
	}
	var f priceFields
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Price{}, commerce.Invalid(field(te.Field) + ": must be a string")
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return Price{}, commerce.Invalid(field(strings.Trim(name, `"`)) + ": unknown field")
		}
		return Price{}, commerce.Invalid(fmt.Sprintf("prices[%d]: %v", i, err))
	}
	given := raw // the offending price object, as given
	var p Price
	if f.ID != nil {
		p.ID = strings.TrimSpace(*f.ID)
	}

	// amount
	if isNull(f.Amount) {
		return Price{}, commerce.Invalid(field("amount") + ": required")
	}
	if a := bytes.TrimSpace(f.Amount); a[0] == '"' || a[0] == '{' || a[0] == '[' || a[0] == 't' || a[0] == 'f' {
		return Price{}, commerce.Invalid(field("amount") + ": must be a number")
	}
	dec2, err := money.ParseDecimal(string(bytes.TrimSpace(f.Amount)))
	if err != nil {
		return Price{}, commerce.NewError(commerce.EPriceInvalid, given)
	}
	if dec2.Units < 0 {
		return Price{}, commerce.NewError(commerce.EPriceInvalid, given)
	}

	// currency
	if f.Currency == nil {
		return Price{}, commerce.Invalid(field("currency") + ": required")
	}
	prec, err := money.Precision(*f.Currency)
	if err != nil {
		return Price{}, commerce.NewError(commerce.EPriceCurrencyInvalid, *f.Currency)
	}
	p.Currency = *f.Currency
	if p.Amount, err = dec2.Minor(prec); err != nil || p.Amount > money.MaxAmount {
		return Price{}, commerce.NewError(commerce.EPriceInvalid, given)
	}

	// country, customer type, channel
	if f.Country != nil && *f.Country != "" {
		if !geo.ValidCountry(*f.Country) {
			return Price{}, commerce.NewError(commerce.EPriceCountryInvalid, *f.Country)
		}
		p.Country = *f.Country
	}
	if f.CustomerType != nil && *f.CustomerType != "" {
		if !slices.Contains(CustomerTypes, *f.CustomerType) {
			return Price{}, commerce.Invalid(field("customerType") + ": must be one of " + strings.Join(CustomerTypes, ", "))
		}
		p.CustomerType = *f.CustomerType
	}
	if f.Channel != nil {
		p.Channel = strings.TrimSpace(*f.Channel)
	}

	// validity dates: both or neither, parsable, in order
	if !isNull(f.ValidFrom) || !isNull(f.ValidUntil) {
		datesErr := commerce.NewError(commerce.EPriceValidDates, map[string]json.RawMessage{
			"validFrom": rawOrNull(f.ValidFrom), "validUntil": rawOrNull(f.ValidUntil)})
		from, ok1 := parseDate(f.ValidFrom, false)
		until, ok2 := parseDate(f.ValidUntil, true)
		if !ok1 || !ok2 || until.Before(from) {
			return Price{}, datesErr
		}
		p.ValidFrom, p.ValidUntil = &from, &until
	}
	return p, nil
}

func rawOrNull(raw json.RawMessage) json.RawMessage {
	if isNull(raw) {
		return json.RawMessage("null")
	}
	return bytes.TrimSpace(raw)
}

// parseDate reads a validity date: an RFC 3339 date-time with an offset, or
// a plain date (2017-01-01), which is the start of that day UTC, or for the
// end of a period (end true) its last millisecond.
func parseDate(raw json.RawMessage, end bool) (time.Time, bool) {
	var s string
	if isNull(raw) || json.Unmarshal(raw, &s) != nil {
		return time.Time{}, false
	}
	s = strings.TrimSpace(s)
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

// checkCategory checks a category about to be stored (the fields that need
// no other record) and returns a validation_error listing every problem.
func checkCategory(c *Category) error {
	var ps problems
	if blank(c.Title) {
		ps.add("title: required")
	}
	if c.ID != RootID {
		if blank(c.Slug) {
			ps.add("slug: required")
		} else if strings.ContainsAny(c.Slug, " \t\r\n/?#") {
			ps.add("slug: must not contain spaces, '/', '?' or '#'")
		}
	}
	return ps.err()
}

// classificationDefs converts classification definitions as given,
// checking that each has an id, a description, a type of STRING, BOOLEAN or
// NUMBER and mandatory, and that ids are unique; it adds the problems to ps.
func classificationDefs(in []ClassificationDefInput, ps *problems) []ClassificationDef {
	out := make([]ClassificationDef, 0, len(in))
	seen := map[string]bool{}
	for i, d := range in {
		var def ClassificationDef
		switch {
		case d.ID == nil || blank(*d.ID):
			ps.add("classifications[%d].id: required", i)
		case seen[*d.ID]:
			ps.add("classifications[%d].id: duplicate classification %q", i, *d.ID)
		default:
			def.ID = *d.ID
			seen[def.ID] = true
		}
		if d.Description == nil {
			ps.add("classifications[%d].description: required", i)
		} else {
			def.Description = *d.Description
		}
		if d.Type == nil {
			ps.add("classifications[%d].type: required", i)
		} else if t := *d.Type; t != TypeString && t != TypeBoolean && t != TypeNumber {
			ps.add("classifications[%d].type: must be STRING, BOOLEAN or NUMBER", i)
		} else {
			def.Type = t
		}
		if d.Mandatory == nil {
			ps.add("classifications[%d].mandatory: required", i)
		} else {
			def.Mandatory = *d.Mandatory
		}
		out = append(out, def)
	}
	return out
}

// effectiveDefs merges the classification definitions that apply to a
// product: those of each of its categories and all their ancestors. When
// two categories define the same id, the first found wins for the type
// (the product's categories in order, each from itself up to ROOT), and
// the classification is mandatory if any of them says so. cats must hold
// every category on the paths. The result is in the order found.
func effectiveDefs(categories []string, cats map[string]*Category) []ClassificationDef {
	var out []ClassificationDef
	index := map[string]int{}
	for _, id := range categories {
		c := cats[id]
		if c == nil {
			continue
		}
		path := strings.Split(c.Path, ".")
		for j := len(path) - 1; j >= 0; j-- {
			a := cats[path[j]]
			if a == nil {
				continue
			}
			for _, d := range a.Classifications {
				if k, ok := index[d.ID]; ok {
					out[k].Mandatory = out[k].Mandatory || d.Mandatory
					continue
				}
				index[d.ID] = len(out)
				out = append(out, d)
			}
		}
	}
	return out
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// normalizeClassifications checks a product's classification values
// against the definitions that apply to it and returns them normalised
// (NUMBER as JSON numbers, BOOLEAN as booleans, STRING as strings), in the
// order given, without the optional ones given empty. Errors: a value for
// an id no definition names (validation_error), then per definition in
// order: missing_classification, empty_classification_value,
// classification_value_not_a_boolean, classification_value_not_a_number
// (data: the classification id).
func normalizeClassifications(values []ClassificationValue, defs []ClassificationDef) ([]ClassificationValue, error) {
	byID := make(map[string]ClassificationDef, len(defs))
	for _, d := range defs {
		byID[d.ID] = d
	}
	var ps problems
	given := make(map[string]int, len(values))
	for i, v := range values {
		if _, ok := byID[v.ID]; !ok {
			ps.add("classifications[%d].id: no category of the product (or their ancestors) defines classification %q", i, v.ID)
		}
		given[v.ID] = i
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	norm := make([]json.RawMessage, len(values))
	for _, d := range defs {
		i, ok := given[d.ID]
		if !ok {
			if d.Mandatory {
				return nil, commerce.NewError(commerce.EMissingClassification, d.ID)
			}
			continue
		}
		raw := bytes.TrimSpace(values[i].Value)
		var str *string
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err == nil {
				str = &s
			}
		}
		if isNull(raw) || (str != nil && blank(*str)) {
			if d.Mandatory {
				return nil, commerce.NewError(commerce.EEmptyClassificationValue, d.ID)
			}
			continue // an optional classification given empty is absent
		}
		switch d.Type {
		case TypeBoolean:
			switch {
			case string(raw) == "true" || str != nil && strings.EqualFold(strings.TrimSpace(*str), "true"):
				norm[i] = json.RawMessage("true")
			case string(raw) == "false" || str != nil && strings.EqualFold(strings.TrimSpace(*str), "false"):
				norm[i] = json.RawMessage("false")
			default:
				return nil, commerce.NewError(commerce.EClassificationValueNotBoolean, d.ID)
			}
		case TypeNumber:
			n := string(raw)
			if str != nil {
				n = strings.TrimSpace(*str)
			}
			if !jsonNumber.MatchString(n) {
				return nil, commerce.NewError(commerce.EClassificationValueNotNumber, d.ID)
			}
			if _, err := strconv.ParseFloat(n, 64); err != nil {
				return nil, commerce.NewError(commerce.EClassificationValueNotNumber, d.ID)
			}
			norm[i] = json.RawMessage(n)
		default: // STRING: numbers and booleans are taken as their text
			switch {
			case str != nil:
				norm[i] = raw
			case raw[0] == '{' || raw[0] == '[':
				return nil, commerce.Invalid(fmt.Sprintf("classifications[%d].value: must be a string", i))
			default:
				b, _ := json.Marshal(string(raw))
				norm[i] = b
			}
		}
	}
	out := make([]ClassificationValue, 0, len(values))
	for i, v := range values {
		if norm[i] != nil {
			out = append(out, ClassificationValue{ID: v.ID, Value: norm[i]})
		}
	}
	return out, nil
}
