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
}

// schemaGen builds the schemas of Go types by reflection: structs become
// named components (by their json tags; pointers are optional, JSON null
// allowed), with the constraints of the `openapi` struct tag or of
// fieldRules, and the descriptions of typeDocs.
type schemaGen struct {
	components map[string]schema
	names      map[typeMode]string
	used       map[string]typeMode
	errCodes   map[string]bool
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
	if n, ok := g.names[typeMode{t, m}]; ok {
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
	for i := 2; ; i++ {
		prev, taken := g.used[n]
		if !taken || prev == (typeMode{t, m}) {
			break
		}
		n = strings.TrimSuffix(n, strconv.Itoa(i-1)) + strconv.Itoa(i)
	}
	g.names[typeMode{t, m}] = n
	g.used[n] = typeMode{t, m}
	return n
}

// of returns the schema of a value of type t in mode m: a $ref for named
// structs and overridden types, inline otherwise.
func (g *schemaGen) of(t reflect.Type, m mode) schema {
	if t.Kind() == reflect.Pointer {
		return nullable(g.of(t.Elem(), m))
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

// field is a JSON property of a struct.
type field struct {
	name      string
	sf        reflect.StructField
	owner     reflect.Type
	omitEmpty bool
}

// jsonFields lists the JSON properties of struct t as encoding/json sees
// them (embedded structs flattened).
func jsonFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, jsonFields(et)...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		out = append(out, field{name: name, sf: sf, owner: t, omitEmpty: omit})
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
		if m != modeIn {
			// A result's nil slice or map is null unless left out.
			k := f.sf.Type.Kind()
			if !f.omitEmpty && (k == reflect.Slice || k == reflect.Map) {
				s = nullable(s)
			}
		}
		if derefType(f.sf.Type) == stringListType && r.enum != nil {
			s = stringListEnum(r.enum)
		} else {
			s = r.apply(s)
		}
		if d := fieldDocs[f.owner.PkgPath()+"."+f.owner.Name()+"."+f.sf.Name]; d != "" && f.owner.Name() != "" {
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
	}
	return out
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
// type: required, enum, range, format.
type rule struct {
	required bool
	enum     []any
	min, max *float64
	format   string
}

// parseRule reads `openapi:"required,enum=A|B,min=1,max=1000,format=email"`.
func parseRule(tag string) rule {
	var r rule
	for part := range strings.SplitSeq(tag, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "required":
			r.required = true
		case "enum":
			for e := range strings.SplitSeq(v, "|") {
				r.enum = append(r.enum, e)
			}
		case "min", "max":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				if k == "min" {
					r.min = &f
				} else {
					r.max = &f
				}
			}
		case "format":
			r.format = v
		}
	}
	return r
}

// ruleOf returns the rule of a field: its `openapi` tag, else the
// fieldRules entry of its struct.
func ruleOf(f field) rule {
	if tag, ok := f.sf.Tag.Lookup("openapi"); ok {
		return parseRule(tag)
	}
	return parseRule(fieldRules[f.owner][f.name])
}

// apply puts the rule's constraints on the field's schema s (on the items
// of a list).
func (r rule) apply(s schema) schema {
	if r.enum == nil && r.min == nil && r.max == nil && r.format == "" {
		return s
	}
	target := s
	if _, isRef := s["$ref"]; isRef {
		return s
	}
	if items, ok := s["items"].(schema); ok && r.enum != nil {
		target = items
	}
	if anyOf, ok := s["anyOf"].([]any); ok && len(anyOf) > 0 {
		if inner, ok := anyOf[0].(schema); ok {
			target = inner
		}
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
