package commerce

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The rules of an operation's arguments are written once, in the
// `openapi` struct tag of the fields of its <Op>Input: the API document
// states them (rpc generates it from the tags) and the services check the
// presence rules with Problems.CheckArgs, so that the two never disagree.
//
//	CartID string           `json:"cartId" openapi:"required"`
//	Items  []AddItem        `json:"items" openapi:"required,minItems=1"`
//	Status *string          `json:"status" openapi:"enum=ACTIVE|DRAFT"`
//	ProductID string        `json:"productId" openapi:"required,trim"`
//
// The parts, separated by commas (a later part overrides an earlier one;
// required is never taken back):
//
//   - required: the argument must be given (see CheckArgs for what absent
//     is); trim: with required, a text of spaces only is absent too (the
//     service trims it; the document cannot say so and says required);
//   - minItems=n: a list of at least n elements;
//   - enum=A|B, min=n, max=n, format=f (a JSON Schema format: date-time,
//     uri, idn-email), pattern=name (a pattern the transport names:
//     currency, country, country-or-empty): values the document states and
//     the service checks itself, with messages of its own that name what
//     the document cannot (the currency list, the bounds of the other
//     side, the set's meaning).
//
// A struct embedded in several arguments holds the rules its fields have
// everywhere; the tag of the embedding field adds the rules of one
// argument, as space-separated name:rules pairs of the promoted fields:
//
//	type CreateProductInput struct {
//		ProductFields `openapi:"sku:required title:required"`
//	}

// ArgRule is what an `openapi` struct tag says of an argument field.
type ArgRule struct {
	// Required: the argument must be given.
	Required bool
	// Trim: with Required, a text of spaces only is absent too.
	Trim bool
	// Enum are the values allowed (nil: any).
	Enum []string
	// Min and Max bound a number (nil: no bound).
	Min, Max *float64
	// Format is the JSON Schema format of a text ("" none).
	Format string
	// Pattern names the pattern of a text ("" none).
	Pattern string
	// MinItems is the least number of elements of a list (0 none).
	MinItems int
}

// Add reads the rule parts of tag into r; later parts override earlier
// ones (required is never taken back). Unknown parts are ignored here:
// the API document's generator rejects them.
func (r *ArgRule) Add(tag string) {
	if tag == "" {
		return
	}
	for part := range strings.SplitSeq(tag, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "required":
			r.Required = true
		case "trim":
			r.Trim = true
		case "enum":
			r.Enum = strings.Split(v, "|")
		case "min", "max":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				if k == "min" {
					r.Min = &f
				} else {
					r.Max = &f
				}
			}
		case "format":
			r.Format = v
		case "pattern":
			r.Pattern = v
		case "minItems":
			if n, err := strconv.Atoi(v); err == nil {
				r.MinItems = n
			}
		}
	}
}

// PromotedRule returns the rules that the `openapi` tag of an embedded
// struct field gives its promoted field name ("" none): the tag is
// space-separated name:rules pairs.
func PromotedRule(tag, name string) string {
	for pair := range strings.FieldsSeq(tag) {
		if n, rules, ok := strings.Cut(pair, ":"); ok && n == name {
			return rules
		}
	}
	return ""
}

// ArgField is a JSON field of an argument struct, as encoding/json sees
// it (promoted fields of embedded structs included), with its rule.
type ArgField struct {
	// Name is the JSON name, Field the Go field, Owner the struct that
	// declares it, Index its path in the outermost struct.
	Name  string
	Field reflect.StructField
	Owner reflect.Type
	Index []int
	// OmitEmpty: the json tag has omitempty or omitzero.
	OmitEmpty bool
	// Rule is the field's own `openapi` tag, then the rules the tags of
	// the fields that embed its struct add (innermost first).
	Rule ArgRule
}

// argFieldsCache holds the argument fields with presence rules by struct
// type ([]ArgField).
var argFieldsCache sync.Map

// presenceFields returns the fields of struct type t (promoted ones
// included, in encoding/json's order) that have a presence rule
// (required, minItems).
func presenceFields(t reflect.Type) []ArgField {
	if c, ok := argFieldsCache.Load(t); ok {
		return c.([]ArgField)
	}
	var out []ArgField
	for _, f := range ArgFields(t) {
		if f.Rule.Required || f.Rule.MinItems > 0 {
			out = append(out, f)
		}
	}
	argFieldsCache.Store(t, out)
	return out
}

// ArgFields lists the JSON fields of struct t with their rules, in
// encoding/json's order: what the services check (CheckArgs) and the API
// document states (package rpc) read the same list.
func ArgFields(t reflect.Type) []ArgField { return argFields(t, nil, nil) }

// argFields is ArgFields of struct t found at index in the outermost
// struct, outer the tags of the fields that embed it.
func argFields(t reflect.Type, index []int, outer []string) []ArgField {
	var out []ArgField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		at := append(append([]int{}, index...), i)
		if et := sf.Type; sf.Anonymous && name == "" {
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, argFields(et, at, append([]string{sf.Tag.Get("openapi")}, outer...))...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		var r ArgRule
		r.Add(sf.Tag.Get("openapi"))
		for j := len(outer) - 1; j >= 0; j-- {
			r.Add(PromotedRule(outer[j], name))
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		out = append(out, ArgField{Name: name, Field: sf, Owner: t, Index: at, OmitEmpty: omit, Rule: r})
	}
	return out
}

// CheckArgs records the problems of the presence rules of argument v (a
// struct or a pointer to one) with the field paths under path (""
// top-level): "required" for a required field that is absent (a nil
// pointer, list, map or JSON value, JSON null, an empty text, or with
// trim a blank one), and for a list of fewer than minItems elements
// (absent included) "must list at least one item" ("at least n items").
// Fields are checked in their order in the struct; nested arguments (the
// elements of a list) are the caller's to check, in the order its other
// problems of them take.
func (p *Problems) CheckArgs(path string, v any) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return
	}
	for _, f := range presenceFields(rv.Type()) {
		fv, err := rv.FieldByIndexErr(f.Index)
		if err != nil {
			continue // in a nil embedded struct: not given
		}
		at := f.Name
		if path != "" {
			at = path + "." + f.Name
		}
		switch {
		case f.Rule.MinItems > 0:
			if n := listLen(fv); n < f.Rule.MinItems {
				if f.Rule.MinItems == 1 {
					p.Add(at, "must list at least one item")
				} else {
					p.Add(at, "must list at least %d items", f.Rule.MinItems)
				}
			}
		case absent(fv, f.Rule.Trim):
			p.Add(at, "required")
		}
	}
}

// nuller is a value that knows whether it is JSON null or absent
// (catalog.Literal).
type nuller interface{ IsNull() bool }

var nullerType = reflect.TypeFor[nuller]()

var rawBytes = reflect.TypeFor[[]byte]()

// absent reports whether an argument's value was not given.
func absent(v reflect.Value, trim bool) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	if v.Type().Implements(nullerType) && v.CanInterface() {
		return v.Interface().(nuller).IsNull()
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().ConvertibleTo(rawBytes) && v.Type().Elem().Kind() == reflect.Uint8 {
			return IsNull(v.Bytes()) // json.RawMessage
		}
		return v.IsNil()
	case reflect.String:
		if trim {
			return strings.TrimSpace(v.String()) == ""
		}
		return v.Len() == 0
	}
	return false
}

// listLen is the number of elements of a list argument (or of the list a
// pointer points to; 0 for nil).
func listLen(v reflect.Value) int {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
		return v.Len()
	}
	return 0
}

// CheckArgs returns the problems of the presence rules of argument v as
// one validation_error (nil when there are none): Problems.CheckArgs at
// the top level.
func CheckArgs(v any) error {
	var p Problems
	p.CheckArgs("", v)
	return p.Err()
}
