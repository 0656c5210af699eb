package promotion

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Price is the unit price of a cartPromotions item, in the form its JSON
// shape gives: a number is the v1 form (major units of the request's
// currency), an object the v2 money object {amount, currency, precision}.
// Decoding never fails: what is wrong with a price depends on the rest of
// the request (its currency, the other items' form), so the service checks
// it and reports each problem at the item's path.
type Price struct {
	form form
	// plain is the v1 number, plainOK false when the number does not parse.
	plain   money.Decimal
	plainOK bool
	obj     moneyObject
}

// form of a price, and of a cartPromotions request.
type form uint8

const (
	formAbsent form = iota // no price, or null
	formOther              // neither a number nor an object
	formPlain              // v1: a number in major units
	formMoney              // v2: a money object
)

// PlainPrice returns the v1 price a JSON number literal gives ("10.5"),
// for callers that build requests in Go.
func PlainPrice(literal string) Price {
	var p Price
	_ = p.UnmarshalJSON([]byte(literal))
	return p
}

// MoneyPrice returns the v2 price {amount, currency, precision} of m.
func MoneyPrice(m money.Money) Price {
	return Price{form: formMoney, obj: moneyObject{
		amount:    intField{set: true, ok: true, v: m.Amount},
		precision: intField{set: true, ok: true, v: int64(m.Precision)},
		currency:  m.Currency, hasCurrency: true, currencyOK: true,
	}}
}

// UnmarshalJSON reads either form; it never fails (see Price).
func (p *Price) UnmarshalJSON(b []byte) error {
	*p = Price{}
	t := bytes.TrimSpace(b)
	switch {
	case commerce.IsNull(t):
	case t[0] == '{':
		p.form, p.obj = formMoney, decodeMoney(t)
	case t[0] == '-' || t[0] >= '0' && t[0] <= '9':
		d, err := money.ParseDecimal(string(t))
		p.form, p.plain, p.plainOK = formPlain, d, err == nil
	default:
		p.form = formOther
	}
	return nil
}

func formName(f form) string {
	if f == formMoney {
		return "money objects"
	}
	return "plain numbers"
}

// plainMinor checks a v1 price in a currency of the precision and returns
// it in minor units.
func (p Price) plainMinor(path string, precision int, currency string, problems *commerce.Problems) int64 {
	v, err := p.plain.Minor(precision)
	switch {
	case !p.plainOK || err != nil:
		problems.Add(path, "must be a number with at most %d decimals (%s)", precision, currency)
	case v < 0:
		problems.Add(path, "must not be negative")
	}
	return v
}

// moneyObject is a v2 price as given, its members decoded.
type moneyObject struct {
	amount, precision intField
	currency          string
	currencyOK        bool   // currency present and a string
	hasCurrency       bool   // currency present (not null)
	unknown           string // the first unknown member, if any
	bad               bool   // not a JSON object
}

// intField is a member that must be an integer, as decoded.
type intField struct {
	set bool // present and not null
	ok  bool // a JSON number with an integral value (5, 5.0, 5e0) within int64
	v   int64
}

func readInt(val []byte) intField {
	if commerce.IsNull(val) {
		return intField{}
	}
	f := intField{set: true}
	if len(val) > 0 && (val[0] == '-' || val[0] >= '0' && val[0] <= '9') {
		d, err := money.ParseDecimal(string(val))
		f.ok, f.v = err == nil && d.Scale == 0, d.Units
	}
	return f
}

// decodeMoney decodes a v2 price in one pass over its bytes (a
// json.Decoder per item would cost more than the evaluation).
func decodeMoney(raw []byte) moneyObject {
	var m moneyObject
	ok := members(raw, func(key, val []byte) {
		switch string(key) {
		case "amount":
			m.amount = readInt(val)
		case "precision":
			m.precision = readInt(val)
		case "currency":
			m.hasCurrency = string(val) != "null"
			switch {
			case len(val) >= 2 && val[0] == '"' && bytes.IndexByte(val, '\\') < 0:
				m.currency, m.currencyOK = string(val[1:len(val)-1]), true
			case len(val) > 0 && val[0] == '"':
				m.currencyOK = json.Unmarshal(val, &m.currency) == nil
			}
		default:
			if m.unknown == "" {
				m.unknown = string(key)
			}
		}
	})
	if !ok {
		return moneyObject{bad: true}
	}
	return m
}

// members calls fn with the key and the raw value of each member of the
// JSON object raw, in order, and reports whether raw is an object. Values
// are delimited, not validated: the callers check them.
func members(raw []byte, fn func(key, val []byte)) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		end := stringEnd(raw, i)
		if end < 0 {
			return false
		}
		key := raw[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(raw[i:end], &k) != nil {
				return false
			}
			key = []byte(k)
		}
		if i = skipSpace(raw, end); i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		vend := valueEnd(raw, i)
		if vend < 0 {
			return false
		}
		fn(key, raw[i:vend])
		switch i = skipSpace(raw, vend); {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at i,
// or -1.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the JSON value starting at i, or
// -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = stringEnd(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// precisionOf returns the precision of the object's currency when it is a
// valid ISO 4217 code.
func (m moneyObject) precisionOf() (int, bool) {
	if !m.currencyOK {
		return 0, false
	}
	p, err := money.Precision(m.currency)
	return p, err == nil
}

// check validates a v2 price against the request's currency (want; ""
// when no item has a valid one) and returns its amount.
func (m moneyObject) check(path string, want string, problems *commerce.Problems) int64 {
	if m.bad {
		problems.Add(path, "must be a money object {amount, currency, precision}")
		return 0
	}
	if m.unknown != "" {
		problems.Add(path+"."+m.unknown, "unknown field")
	}
	switch {
	case !m.amount.set:
		problems.Add(path+".amount", "required")
	case !m.amount.ok:
		problems.Add(path+".amount", "must be an integer in minor units")
	case m.amount.v < 0:
		problems.Add(path+".amount", "must not be negative")
	}
	precision := -1
	switch p, ok := m.precisionOf(); {
	case !m.hasCurrency:
		problems.Add(path+".currency", "required")
	case !m.currencyOK:
		problems.Add(path+".currency", "must be a string")
	case !ok:
		problems.Add(path+".currency", "%q is not an ISO 4217 currency code", m.currency)
	case want != "" && m.currency != want:
		problems.Add(path+".currency", "must be the same for every item (%s)", want)
	default:
		precision = p
	}
	switch {
	case !m.precision.set:
		problems.Add(path+".precision", "required")
	case !m.precision.ok:
		problems.Add(path+".precision", "must be an integer")
	case precision >= 0 && m.precision.v != int64(precision):
		problems.Add(path+".precision", "must be %d, the minor unit of %s", precision, m.currency)
	}
	return m.amount.v
}
