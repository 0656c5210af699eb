package rpc

import (
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
)

// A schema is a JSON Schema (OpenAPI 3.1 dialect) as a JSON object.
type schema = map[string]any

// mode is how a Go type is seen: as an argument (in), as a result (out), or
// as a result whose fields may be left out (partial: the `fields`
// projection of info and list operations).
type mode int

const (
	modeIn mode = iota
	modeOut
	modePartial
)

type typeMode struct {
	t reflect.Type
	m mode
	// form is the cart form of a type whose schema depends on it.
	form cartForm
}

// schemaGen builds the schemas of Go types by reflection: structs become
// named components (by their json tags; pointers are optional, JSON null
// allowed), with the constraints of their fields' `openapi` struct tags
// (commerce.ArgRule), and the descriptions of typeDocs.
type schemaGen struct {
	components map[string]schema
	names      map[typeMode]string
	used       map[string]typeMode
	errCodes   map[string]bool
	// form is the cart form of the result being generated (openapi_cart.go).
	form cartForm
}

func newSchemaGen() *schemaGen {
	return &schemaGen{components: map[string]schema{}, names: map[typeMode]string{}, used: map[string]typeMode{}, errCodes: map[string]bool{}}
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	textMarshalTyp = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
	componentChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

func ref(name string) schema { return schema{"$ref": "#/components/schemas/" + name} }

// baseName names the component of a named type: "<package>.<Type>".
func baseName(t reflect.Type) string {
	pkg := t.PkgPath()
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	return componentChars.ReplaceAllString(pkg+"."+t.Name(), "_")
}

// name returns the component name of t seen in mode m, unique per
// (type, mode).
func (g *schemaGen) name(t reflect.Type, m mode) string {
	key := typeMode{t: t, m: m}
	if _, result := resultForms[t]; m != modeIn && g.form != formNone && !result && !formOnly[t] && formDependent(t) {
		key.form = g.form
	}
	if n, ok := g.names[key]; ok {
		return n
	}
	n := baseName(t)
	switch m {
	case modeIn:
		if !strings.HasSuffix(n, "Input") && !strings.HasSuffix(n, "Args") {
			n += "Input"
		}
	case modePartial:
		n += "Partial"
	}
	n += key.form.suffix()
	for i := 2; ; i++ {
		prev, taken := g.used[n]
		if !taken || prev == key {
			break
		}
		n = strings.TrimSuffix(n, strconv.Itoa(i-1)) + strconv.Itoa(i)
	}
	g.names[key] = n
	g.used[n] = key
	return n
}

// of returns the schema of a value of type t in mode m: a $ref for named
// structs and overridden types, inline otherwise.
func (g *schemaGen) of(t reflect.Type, m mode) schema {
	if t.Kind() == reflect.Pointer {
		return nullable(g.of(t.Elem(), m))
	}
	if f, ok := resultForms[t]; ok && m != modeIn {
		outer := g.form
		g.form = f
		defer func() { g.form = outer }()
	}
	if s, ok := g.formSchema(t, m); ok {
		return s
	}
	if o, ok := overrides[t]; ok {
		return g.named(t, m, func() schema { return o(g, m) })
	}
	if t == timeType {
		return schema{"type": "string", "format": "date-time"}
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return schema{}
	}
	custom := (m != modeIn && !fieldsForm[t] && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType))) ||
		(m == modeIn && reflect.PointerTo(t).Implements(unmarshalerTyp))
	if custom {
		// A type with its own JSON form and no override: named, free-form.
		if t.Name() == "" {
			return schema{}
		}
		return g.named(t, m, func() schema {
			return schema{"description": "The JSON form of " + t.String() + "."}
		})
	}
	if t.Kind() == reflect.String && t.Name() != "string" && t.PkgPath() != "" &&
		(t.Implements(textMarshalTyp) || reflect.PointerTo(t).Implements(textMarshalTyp)) {
		return schema{"type": "string"}
	}
	switch t.Kind() {
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := schema{"type": "integer"}
		if t.Kind() == reflect.Int64 {
			s["format"] = "int64"
		}
		return s
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return schema{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return schema{"type": "string", "contentEncoding": "base64"}
		}
		return schema{"type": "array", "items": g.of(t.Elem(), m)}
	case reflect.Map:
		return schema{"type": "object", "additionalProperties": g.of(t.Elem(), m)}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, m)
		}
		return g.named(t, m, func() schema { return g.object(t, m) })
	}
	return schema{}
}

// named registers the component of t in mode m (built once) and returns a
// reference to it.
func (g *schemaGen) named(t reflect.Type, m mode, build func() schema) schema {
	n := g.name(t, m)
	if _, ok := g.components[n]; !ok {
		g.components[n] = schema{} // a recursive type refers to itself
		s := build()
		if d := typeDocs[t.PkgPath()+"."+t.Name()]; d != "" {
			if _, has := s["description"]; !has {
				s["description"] = d
			}
		}
		g.components[n] = s
	}
	return ref(n)
}

// nullable allows JSON null besides s (an optional field: null is absent).
func nullable(s schema) schema {
	switch typ := s["type"].(type) {
	case string:
		if _, isRef := s["$ref"]; !isRef {
			out := schema{}
			for k, v := range s {
				out[k] = v
			}
			out["type"] = []any{typ, "null"}
			if e, ok := out["enum"].([]any); ok {
				out["enum"] = append(append([]any{}, e...), nil)
			}
			return out
		}
	case []any:
		return s
	}
	if len(s) == 0 {
		return s // anything, null included
	}
	return schema{"anyOf": []any{s, schema{"type": "null"}}}
}

// nonNull is s without the JSON null that nullable allows.
func nonNull(s schema) schema {
	if types, ok := s["type"].([]any); ok && len(types) == 2 && types[1] == "null" {
		out := schema{}
		for k, v := range s {
			out[k] = v
		}
		out["type"] = types[0]
		if e, ok := out["enum"].([]any); ok && len(e) > 0 && e[len(e)-1] == nil {
			out["enum"] = e[:len(e)-1]
		}
		return out
	}
	if alts, ok := s["anyOf"].([]any); ok && len(alts) == 2 && len(s) == 1 {
		if null, ok := alts[1].(schema); ok && len(null) == 1 && null["type"] == "null" {
			return alts[0].(schema)
		}
	}
	return s
}

// field is a JSON property of a struct with its rule (commerce.ArgField:
// the services read the same list).
type field struct {
	name      string
	sf        reflect.StructField
	owner     reflect.Type // the struct that declares the field
	arg       commerce.ArgRule
	omitEmpty bool
}

// jsonFields lists the JSON properties of struct t as encoding/json sees
// them (commerce.ArgFields), promoted fields of embedded structs included.
func jsonFields(t reflect.Type) []field {
	fs := commerce.ArgFields(t)
	out := make([]field, len(fs))
	for i, f := range fs {
		out[i] = field{name: f.Name, sf: f.Field, owner: f.Owner, arg: f.Rule, omitEmpty: f.OmitEmpty}
	}
	return out
}

// object is the schema of struct t's properties. Arguments reject unknown
// properties (the transport does); results may grow.
func (g *schemaGen) object(t reflect.Type, m mode) schema {
	props := schema{}
	var required []string
	for _, f := range jsonFields(t) {
		s := g.of(f.sf.Type, m)
		r := ruleOf(f)
		if m == modeIn && r.required {
			// null means absent (docs/api.md section 2): not a value of
			// a required argument.
			s = nonNull(s)
		}
		if m != modeIn {
			// A result's nil slice or map is null unless left out; the
			// lists of a cart in its forms are never nil (cart.Render).
			k := f.sf.Type.Kind()
			inForm := g.form != formNone && f.owner.PkgPath() == viewType.PkgPath()
			if !f.omitEmpty && !inForm && (k == reflect.Slice || k == reflect.Map) {
				s = nullable(s)
			}
		}
		if derefType(f.sf.Type) == stringListType && r.enum != nil {
			s = stringListEnum(r.enum)
		} else {
			s = r.apply(s)
		}
		if d := argDoc(f); d != "" {
			s = describe(s, d)
		}
		props[f.name] = s
		switch {
		case m == modeIn && r.required:
			required = append(required, f.name)
		case m == modeOut && !f.omitEmpty:
			required = append(required, f.name)
		}
	}
	out := schema{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = required
	}
	if m == modeIn {
		out["additionalProperties"] = false
		if names := requiredOneOf[t]; len(names) > 0 {
			// One of names is required: the object with each of them
			// required, as alternatives (a form TypeScript generators
			// turn into a union of the object types).
			alts := make([]any, len(names))
			for i, n := range names {
				alt := schema{}
				for k, v := range out {
					alt[k] = v
				}
				alt["required"] = append(append([]string{}, required...), n)
				alts[i] = alt
			}
			return schema{"anyOf": alts}
		}
	}
	return out
}

// patternType is the type of the regex filters (docs/api.md section 4).
var patternType = reflect.TypeFor[commerce.Pattern]()

// patternDoc says what a regex filter takes, after its field's doc.
var patternDoc = "A regular expression (Go RE2 syntax), case-insensitive, matching anywhere in the text " +
	"unless anchored with ^ or $; at most " + strconv.Itoa(commerce.MaxPatternLen) + " bytes."

// argDoc is the description of a field: its Go doc comment (openapi_docs.json),
// and for a regex filter (commerce.Pattern) what a pattern is.
func argDoc(f field) string {
	d := ""
	if f.owner.Name() != "" {
		d = fieldDocs[f.owner.PkgPath()+"."+f.owner.Name()+"."+f.sf.Name]
	}
	if derefType(f.sf.Type) == patternType {
		d = strings.TrimSpace(d + " " + patternDoc)
	}
	return d
}

// describe adds a description to s (beside a $ref, which 3.1 allows).
func describe(s schema, d string) schema {
	out := schema{}
	for k, v := range s {
		out[k] = v
	}
	out["description"] = d
	return out
}

// rule is what the document says of an argument field beyond its Go
// type: required, enum, range, format, pattern, least number of items.
type rule struct {
	required bool
	enum     []any
	min, max *float64
	format   string
	pattern  string
	minItems int
}

// patterns are the named patterns of the `pattern=` rule (a name, so that
// the rule's syntax needs no escaping): codes as the services check them.
var patterns = map[string]struct{ re, doc string }{
	// money.ValidCurrency: three upper-case letters, an ISO 4217 code.
	"currency": {`^[A-Z]{3}$`, "An ISO 4217 currency code (upper case)."},
	// geo.ValidCountry: two upper-case letters, an ISO 3166-1 alpha-2 code.
	"country": {`^[A-Z]{2}$`, "An ISO 3166-1 alpha-2 country code (upper case)."},
	// A country that may be left empty (catalog prices: none).
	"country-or-empty": {`^([A-Z]{2})?$`, "An ISO 3166-1 alpha-2 country code (upper case), or empty for none."},
}

// ruleOf returns the rule of a field: its `openapi` tag, then the rules
// the tags of the fields that embed its struct give it, outermost last
// (commerce.ArgRule: the syntax, and the one reading of it that the
// services' checks share), so that an operation's argument type states
// the rules of the fields it takes from a struct shared with others
// (catalog.CreateProductInput requires sku, a field of
// catalog.ProductFields, which catalog.UpdateProductInput embeds too).
func ruleOf(f field) rule {
	a := f.arg
	r := rule{required: a.Required, min: a.Min, max: a.Max, format: a.Format, pattern: a.Pattern, minItems: a.MinItems}
	for _, e := range a.Enum {
		r.enum = append(r.enum, e)
	}
	return r
}

// apply puts the rule's constraints on the field's schema s (on the items
// of a list for an enum; on the non-null alternative of a nullable field).
func (r rule) apply(s schema) schema {
	if r.enum == nil && r.min == nil && r.max == nil && r.format == "" && r.pattern == "" && r.minItems == 0 {
		return s
	}
	if _, isRef := s["$ref"]; isRef {
		return s
	}
	value := s
	if anyOf, ok := s["anyOf"].([]any); ok && len(anyOf) > 0 {
		if inner, ok := anyOf[0].(schema); ok {
			value = inner
		}
	}
	target := value
	if items, ok := value["items"].(schema); ok && r.enum != nil {
		target = items
	}
	if r.enum != nil {
		enum := r.enum
		if types, ok := target["type"].([]any); ok && len(types) == 2 && types[1] == "null" {
			enum = append(append([]any{}, enum...), nil)
		}
		target["enum"] = enum
	}
	if r.min != nil {
		target["minimum"] = *r.min
	}
	if r.max != nil {
		target["maximum"] = *r.max
	}
	if r.format != "" {
		target["format"] = r.format
	}
	if p, ok := patterns[r.pattern]; ok {
		target["pattern"] = p.re
		if _, has := s["description"]; !has {
			s["description"] = p.doc
		}
	} else if r.pattern != "" {
		panic("rpc: openapi tag: unknown pattern " + r.pattern)
	}
	if r.minItems > 0 {
		value["minItems"] = r.minItems
	}
	return s
}

// stringListSchema is a commerce.StringList in a body: a list, or one
// comma-separated string.
func stringListSchema(*schemaGen, mode) schema {
	return schema{
		"description": "A list of strings, or one comma-separated string.",
		"anyOf": []any{
			schema{"type": "array", "items": schema{"type": []any{"string", "number"}}, "maxItems": commerce.MaxListValues},
			schema{"type": "string"},
			schema{"type": "null"},
		},
	}
}

// stringListEnum is a commerce.StringList whose values are one of enum: a
// list of them, or one comma-separated string of them.
func stringListEnum(enum []any) schema {
	alts := make([]string, len(enum))
	for i, e := range enum {
		alts[i] = regexp.QuoteMeta(e.(string))
	}
	one := `\s*(` + strings.Join(alts, "|") + `)?\s*`
	return schema{
		"description": "One of " + strings.Join(alts, ", ") + ", or a list of them (a list, or one comma-separated string).",
		"anyOf": []any{
			schema{"type": "array", "items": schema{"type": "string", "enum": enum}, "maxItems": commerce.MaxListValues},
			schema{"type": "string", "pattern": "^" + one + "(," + one + ")*$"},
			schema{"type": "null"},
		},
	}
}
