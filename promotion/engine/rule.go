// Package engine is the pure promotion engine: it parses and validates the
// rule language of a promotion's `if` and `then` (docs/api.md section 7,
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

// Rule is one node of the rule language: a leaf of a kind (Kind names it,
// "product" or "category", and Leaf holds its properties), or All or Any
// of sub-rules. Exactly one of Leaf, All and Any is set. Its JSON form is
// {"<kind>": {leaf}}, {"all": [...]} or {"any": [...]}.
type Rule struct {
	Kind string
	Leaf *Leaf
	All  []Rule
	Any  []Rule
}

// Leaf is the properties of a leaf rule. For the product and category
// kinds ID and Quantity are required, Threshold and LowestPrice occur only
// in `if` rules, Discount only (and always) in `then` rules.
type Leaf struct {
	ID       string `json:"id,omitempty"`
	Quantity int    `json:"quantity,omitempty"`
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

// MarshalJSON writes the rule's JSON form, members in the order leaf, all,
// any (a parsed rule has exactly one).
func (r Rule) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	member := func(name string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		m, err := json.Marshal(v)
		b.Write(m)
		return err
	}
	if r.Leaf != nil {
		if err := member(r.Kind, r.Leaf); err != nil {
			return nil, err
		}
	}
	if len(r.All) > 0 {
		if err := member("all", r.All); err != nil {
			return nil, err
		}
	}
	if len(r.Any) > 0 {
		if err := member("any", r.Any); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the JSON form MarshalJSON writes: the stored form of
// parsed rules. It does not validate (Parse does, for what clients send);
// a member naming no kind is an error.
func (r *Rule) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*r = Rule{}
	for name, v := range m {
		var err error
		switch name {
		case "all":
			err = json.Unmarshal(v, &r.All)
		case "any":
			err = json.Unmarshal(v, &r.Any)
		default:
			if kindNamed(name) == nil {
				return fmt.Errorf("rule: unknown kind %q", name)
			}
			r.Kind, r.Leaf = name, new(Leaf)
			err = json.Unmarshal(v, r.Leaf)
		}
		if err != nil {
			return fmt.Errorf("rule %s: %w", name, err)
		}
	}
	return nil
}

// Parse validates a promotion's `if` and `then` JSON and returns the parsed
// rules. Every problem found is reported in one validation_error whose data
// lists "path: message" strings, such as
// "if.all[1].product.quantity: must be a positive integer".
// Unknown properties are rejected, and a JSON null counts as absent.
func Parse(ifJSON, thenJSON json.RawMessage) (Rules, error) {
	var p parser
	r := Rules{
		If:   p.rule("if", ifJSON, inIf, 1),
		Then: p.rule("then", thenJSON, inThen, 1),
	}
	if err := p.problems.Err(); err != nil {
		return Rules{}, err
	}
	return r, nil
}

// parser collects every problem instead of stopping at the first, so a
// client fixes its rule in one round trip.
type parser struct {
	problems commerce.Problems
}

func (p *parser) add(path, msg string) { p.problems.Add(path, "%s", msg) }

// rule parses a rule object standing in an `if` or a `then` rule (at).
func (p *parser) rule(path string, raw json.RawMessage, at place, depth int) Rule {
	if commerce.IsNull(raw) {
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
		if k == "all" || k == "any" || kindNamed(k) != nil {
			n++
		} else {
			p.add(path+"."+k, "unknown property")
		}
	}
	if n != 1 {
		p.add(path, "must hold exactly one of "+ruleNames())
		return Rule{}
	}
	var r Rule
	for k, v := range m {
		switch k {
		case "all":
			r.All = p.list(path+".all", v, at, depth)
		case "any":
			r.Any = p.list(path+".any", v, at, depth)
		default:
			if kd := kindNamed(k); kd != nil {
				r.Kind, r.Leaf = k, p.leaf(path+"."+k, v, kd, at)
			}
		}
	}
	return r
}

func (p *parser) list(path string, raw json.RawMessage, at place, depth int) []Rule {
	var elems []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &elems) != nil || len(elems) == 0 {
		p.add(path, "must be a non-empty array")
		return nil
	}
	rules := make([]Rule, len(elems))
	for i, e := range elems {
		rules[i] = p.rule(commerce.Index(path, i), e, at, depth+1)
	}
	return rules
}

// leaf parses the leaf of a rule of kind kd standing at at.
func (p *parser) leaf(path string, raw json.RawMessage, kd *kind, at place) *Leaf {
	if kd.at&at == 0 {
		p.add(path, kd.at.only())
		return nil
	}
	m, ok := p.object(path, raw)
	if !ok {
		return nil
	}
	var l Leaf
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kp := path + "." + k
		i := slices.IndexFunc(kd.props, func(pr *property) bool { return pr.name == k })
		switch {
		case i < 0:
			p.add(kp, "unknown property")
		case kd.props[i].at&at == 0:
			p.add(kp, kd.props[i].at.only())
		default:
			kd.props[i].parse(p, kp, m[k], &l)
		}
	}
	for _, pr := range kd.props {
		if _, ok := m[pr.name]; !ok && pr.required && pr.at&at != 0 {
			p.add(path+"."+pr.name, "required")
		}
	}
	return &l
}

// property is a property of a leaf: where it may stand, whether it is
// required there, and how its value is read into the leaf.
type property struct {
	name     string
	at       place
	required bool
	parse    func(p *parser, path string, raw json.RawMessage, l *Leaf)
}

// unitProps are the properties of the leaves that count units (product,
// category): id and quantity, threshold and lowestPrice in `if` rules, a
// discount in `then` rules.
var unitProps = []*property{
	{name: "id", at: anywhere, required: true, parse: func(p *parser, path string, v json.RawMessage, l *Leaf) {
		var s string
		if !isString(v) || json.Unmarshal(v, &s) != nil || s == "" {
			p.add(path, "must be a non-empty string")
		}
		l.ID = s
	}},
	{name: "quantity", at: anywhere, required: true, parse: func(p *parser, path string, v json.RawMessage, l *Leaf) {
		q, ok := positiveInt(v)
		if !ok {
			p.add(path, "must be a positive integer")
		}
		l.Quantity = q
	}},
	{name: "threshold", at: inIf, parse: func(p *parser, path string, v json.RawMessage, l *Leaf) {
		f, err := strconv.ParseFloat(string(v), 64)
		if !isNumber(v) || err != nil || f < 0 || f > 1 {
			p.add(path, "must be a number between 0 and 1")
			return
		}
		l.Threshold = &f
	}},
	{name: "lowestPrice", at: inIf, parse: func(p *parser, path string, v json.RawMessage, l *Leaf) {
		l.LowestPrice = p.boolean(path, v)
	}},
	discountProp,
}

// discountProp is the discount of a `then` leaf (required there).
var discountProp = &property{name: "discount", at: inThen, required: true, parse: func(p *parser, path string, v json.RawMessage, l *Leaf) {
	l.Discount = p.discount(path, v)
}}

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
// field means the field is absent (docs/api.md section 2).
func (p *parser) object(path string, raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		p.add(path, "must be an object")
		return nil, false
	}
	for k, v := range m {
		if commerce.IsNull(v) {
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
