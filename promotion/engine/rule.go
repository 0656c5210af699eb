// Package engine is the pure promotion engine: it parses and validates the
// rule language of a promotion's `if` and `then` (CONTRACT.md section 7,
// item 8) and evaluates active promotions against cart entries (items 1-7).
//
// It knows nothing about storage or transport: the caller passes the active
// promotions, the entries with unit prices in minor units, the currency's
// precision and the category membership of the products, and gets back the
// per-entry discounts and the almost fulfilled promotions.
package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// MaxDepth is how deeply rules may nest: a top-level rule is at depth 1 and
// every `all` or `any` adds a level for its elements.
const MaxDepth = 8

// Rules is a promotion's condition and consequence, as parsed and validated
// by Parse. It marshals to the canonical JSON form the service stores and
// returns.
type Rules struct {
	If   Rule `json:"if"`
	Then Rule `json:"then"`
}

// Rule is one node of the rule language: exactly one of Category, Product,
// All and Any is set.
type Rule struct {
	Category *Leaf  `json:"category,omitempty"`
	Product  *Leaf  `json:"product,omitempty"`
	All      []Rule `json:"all,omitempty"`
	Any      []Rule `json:"any,omitempty"`
}

// Leaf is a category or product rule. Threshold and LowestPrice occur only
// in `if` rules, Discount only (and always) in `then` rules.
type Leaf struct {
	ID       string `json:"id"`
	Quantity int    `json:"quantity"`
	// Threshold is nil when absent: the default (Quantity-1)/Quantity applies.
	Threshold   *float64  `json:"threshold,omitempty"`
	LowestPrice bool      `json:"lowestPrice,omitempty"`
	Discount    *Discount `json:"discount,omitempty"`
}

// Discount is what a `then` leaf does to each unit it targets. Rate is in
// major units of the cart's currency, or a percentage when IsPercentage; at
// most one of IsPercentage and IsFixedPrice is true, and when neither is the
// rate is an amount taken off the price.
type Discount struct {
	Rate         money.Decimal `json:"rate"`
	IsPercentage bool          `json:"isPercentage,omitempty"`
	IsFixedPrice bool          `json:"isFixedPrice,omitempty"`
}

// Parse validates a promotion's `if` and `then` JSON and returns the parsed
// rules. Every problem found is reported in one validation_error whose data
// lists "path: message" strings, such as
// "if.all[1].product.quantity: must be a positive integer".
// Unknown properties are rejected, and a JSON null counts as absent.
func Parse(ifJSON, thenJSON json.RawMessage) (Rules, error) {
	var p parser
	r := Rules{
		If:   p.rule("if", ifJSON, true, 1),
		Then: p.rule("then", thenJSON, false, 1),
	}
	if len(p.problems) > 0 {
		return Rules{}, commerce.Invalid(p.problems...)
	}
	return r, nil
}

// parser collects every problem instead of stopping at the first, so a
// client fixes its rule in one round trip.
type parser struct {
	problems []string
}

func (p *parser) add(path, msg string) {
	p.problems = append(p.problems, path+": "+msg)
}

// rule parses a rule object; cond tells an `if` rule from a `then` rule.
func (p *parser) rule(path string, raw json.RawMessage, cond bool, depth int) Rule {
	if isNull(raw) {
		p.add(path, "required")
		return Rule{}
	}
	m, ok := p.object(path, raw)
	if !ok {
		return Rule{}
	}
	if depth > MaxDepth {
		p.add(path, fmt.Sprintf("nested deeper than %d levels", MaxDepth))
		return Rule{}
	}
	n := 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "category", "product", "all", "any":
			n++
		default:
			p.add(path+"."+k, "unknown property")
		}
	}
	if n != 1 {
		p.add(path, "must hold exactly one of category, product, all, any")
		return Rule{}
	}
	var r Rule
	if v, ok := m["category"]; ok {
		r.Category = p.leaf(path+".category", v, cond)
	}
	if v, ok := m["product"]; ok {
		r.Product = p.leaf(path+".product", v, cond)
	}
	if v, ok := m["all"]; ok {
		r.All = p.list(path+".all", v, cond, depth)
	}
	if v, ok := m["any"]; ok {
		r.Any = p.list(path+".any", v, cond, depth)
	}
	return r
}

func (p *parser) list(path string, raw json.RawMessage, cond bool, depth int) []Rule {
	var elems []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &elems) != nil || len(elems) == 0 {
		p.add(path, "must be a non-empty array")
		return nil
	}
	rules := make([]Rule, len(elems))
	for i, e := range elems {
		rules[i] = p.rule(fmt.Sprintf("%s[%d]", path, i), e, cond, depth+1)
	}
	return rules
}

func (p *parser) leaf(path string, raw json.RawMessage, cond bool) *Leaf {
	m, ok := p.object(path, raw)
	if !ok {
		return nil
	}
	var l Leaf
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, kp := m[k], path+"."+k
		switch k {
		case "id":
			var s string
			if !isString(v) || json.Unmarshal(v, &s) != nil || s == "" {
				p.add(kp, "must be a non-empty string")
			}
			l.ID = s
		case "quantity":
			q, ok := positiveInt(v)
			if !ok {
				p.add(kp, "must be a positive integer")
			}
			l.Quantity = q
		case "threshold":
			if !cond {
				p.add(kp, "only allowed in if rules")
				continue
			}
			f, err := strconv.ParseFloat(string(v), 64)
			if !isNumber(v) || err != nil || f < 0 || f > 1 {
				p.add(kp, "must be a number between 0 and 1")
				continue
			}
			l.Threshold = &f
		case "lowestPrice":
			if !cond {
				p.add(kp, "only allowed in if rules")
				continue
			}
			l.LowestPrice = p.boolean(kp, v)
		case "discount":
			if cond {
				p.add(kp, "only allowed in then rules")
				continue
			}
			l.Discount = p.discount(kp, v)
		default:
			p.add(kp, "unknown property")
		}
	}
	if _, ok := m["id"]; !ok {
		p.add(path+".id", "required")
	}
	if _, ok := m["quantity"]; !ok {
		p.add(path+".quantity", "required")
	}
	if _, ok := m["discount"]; !ok && !cond {
		p.add(path+".discount", "required")
	}
	return &l
}

func (p *parser) discount(path string, raw json.RawMessage) *Discount {
	m, ok := p.object(path, raw)
	if !ok {
		return nil
	}
	var d Discount
	rateOK := false
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, kp := m[k], path+"."+k
		switch k {
		case "rate":
			r, err := money.ParseDecimal(string(v))
			switch {
			case !isNumber(v) || err != nil:
				p.add(kp, "must be a number")
			case r.Units < 0:
				p.add(kp, "must be a number >= 0")
			default:
				d.Rate, rateOK = r, true
			}
		case "isPercentage":
			d.IsPercentage = p.boolean(kp, v)
		case "isFixedPrice":
			d.IsFixedPrice = p.boolean(kp, v)
		default:
			p.add(kp, "unknown property")
		}
	}
	if _, ok := m["rate"]; !ok {
		p.add(path+".rate", "required")
	}
	if d.IsPercentage && d.IsFixedPrice {
		p.add(path, "at most one of isPercentage, isFixedPrice may be true")
	}
	if d.IsPercentage && rateOK && above100(d.Rate) {
		p.add(path+".rate", "must be between 0 and 100 for a percentage")
	}
	return &d
}

// object decodes a JSON object, dropping null members: a null optional
// field means the field is absent (CONTRACT.md section 2).
func (p *parser) object(path string, raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		p.add(path, "must be an object")
		return nil, false
	}
	for k, v := range m {
		if isNull(v) {
			delete(m, k)
		}
	}
	return m, true
}

func (p *parser) boolean(path string, raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true
	case "false":
		return false
	}
	p.add(path, "must be a boolean")
	return false
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// isNumber tells a JSON number from a string holding one, which the
// standard decoder would accept for json.Number.
func isNumber(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9')
}

func isString(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '"'
}

// positiveInt accepts any JSON number with an integral value (2, 2.0, 2e0).
func positiveInt(raw json.RawMessage) (int, bool) {
	if !isNumber(raw) {
		return 0, false
	}
	d, err := money.ParseDecimal(string(bytes.TrimSpace(raw)))
	if err != nil || d.Scale != 0 || d.Units <= 0 || d.Units > math.MaxInt {
		return 0, false
	}
	return int(d.Units), true
}

// above100 reports whether d > 100 without overflowing for large scales.
func above100(d money.Decimal) bool {
	if d.Scale > 16 {
		// Units has at most 18 digits, so d < 100.
		return false
	}
	return d.Units > 100*money.Pow10(d.Scale)
}
