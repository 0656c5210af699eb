package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/customer"
)

// argFields maps the JSON names of an argument struct's top-level fields to
// their types, so query-string values can be converted to the documented
// type before they are merged with the body.
type argFields map[string]reflect.Type

func fieldsOf(t reflect.Type) argFields {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	f := argFields{}
	if t.Kind() != reflect.Struct {
		return f
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" {
			for k, v := range fieldsOf(sf.Type) {
				f[k] = v
			}
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f[name] = sf.Type
	}
	return f
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	unmarshalerTyp = reflect.TypeFor[json.Unmarshaler]()
)

// queryValue converts one query-string value to JSON for a field of type t:
// strings stay strings, lists are split on commas, booleans and numbers
// are given as such when they parse (else they stay strings, and decoding
// reports the type error against the field).
func queryValue(v string, t reflect.Type) json.RawMessage {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	quote := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	switch {
	case t == rawMessageType || t.Kind() == reflect.Interface:
		if json.Valid([]byte(v)) {
			return json.RawMessage(v)
		}
		return quote(v)
	case t.Kind() == reflect.String && !reflect.PointerTo(t).Implements(unmarshalerTyp):
		return quote(v)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		if strings.HasPrefix(v, "[") && json.Valid([]byte(v)) {
			return json.RawMessage(v) // a JSON list, e.g. items=[{...}]
		}
		var b bytes.Buffer
		b.WriteByte('[')
		n := 0
		for part := range strings.SplitSeq(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			b.Write(queryValue(part, t.Elem()))
			n++
		}
		b.WriteByte(']')
		return b.Bytes()
	case t.Kind() == reflect.Bool:
		if bv, err := strconv.ParseBool(v); err == nil {
			return json.RawMessage(strconv.FormatBool(bv))
		}
		return quote(v)
	default:
		// Numbers, and types with their own JSON form: pass JSON literals
		// through (so "10" is the number 10), anything else as a string.
		if json.Valid([]byte(v)) && v != "" && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9') || v[0] == '{' || v[0] == '[' || v == "true" || v == "false") {
			return json.RawMessage(v)
		}
		return quote(v)
	}
}

// mergeArgs returns the argument object of a request as the operation
// decodes it: the JSON body (trimmed) with each query parameter that names
// a field of the argument type added, converted to the field's type
// (queryValue), where the body does not have it (the body wins). Unknown
// query parameters are left out. shaped reports whether an added value has
// a shape to check (hasShape). The body, when given, must be a JSON object
// (else validation_error). The idempotency fingerprint hashes this object,
// so that `?limit=10` and `{"limit": 10}` are the same arguments.
func mergeArgs(fields argFields, query url.Values, body []byte) (merged []byte, shaped bool, err error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] != '{' {
		return nil, false, commerce.Invalid("body: must be a JSON object")
	}
	hasQuery := false
	for k := range query {
		if _, ok := fields[k]; ok {
			hasQuery = true
			break
		}
	}
	if !hasQuery {
		return body, false, nil
	}
	m := map[string]json.RawMessage{}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, false, decodeError(err, body, nil)
		}
	}
	for k, vs := range query {
		t, ok := fields[k]
		if !ok || len(vs) == 0 {
			continue
		}
		if _, inBody := m[k]; inBody {
			continue
		}
		m[k] = queryValue(vs[len(vs)-1], t)
		if hasShape(t) {
			shaped = true
		}
	}
	if merged, err = json.Marshal(m); err != nil {
		return nil, false, fmt.Errorf("merge arguments: %w", err)
	}
	return merged, shaped, nil
}

// decodeArgs merges the query parameters and the JSON body (the body wins;
// mergeArgs) and decodes them into dst, rejecting unknown body fields.
// Unknown query parameters are ignored.
func decodeArgs(dst any, fields argFields, query url.Values, body []byte) error {
	// Arguments from the query string alone have only known, exactly
	// named fields (merged from fields): unless one is a list (whose
	// length is checked) or holds a NUL byte, their shape needs no check
	// (a query's GET, product.info, is the hottest read).
	plain := len(bytes.TrimSpace(body)) == 0
	body, shaped, err := mergeArgs(fields, query, body)
	if err != nil {
		return err
	}
	plain = plain && !shaped
	if len(body) == 0 {
		return checkValues(dst)
	}
	if !plain || bytes.Contains(body, []byte(`\u0000`)) {
		if err := shapeProblems(body, reflect.TypeOf(dst)).Err(); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, body, reflect.TypeOf(dst))
	}
	if dec.More() {
		return commerce.Invalid("body: unexpected data after the JSON object")
	}
	return checkValues(dst)
}

// shapeProblems lists what is wrong with the shape of the merged arguments
// before they are decoded into the argument type t, each with its path:
// fields that t does not have ("medias[0].alt: unknown field";
// encoding/json matches names case-insensitively and reports no path, but
// the interface's names are exact, so "ISPERCENTAGE" or "isPercentaje"
// must be rejected), and NUL bytes in any string or field name at any
// depth, opaque JSON included (PostgreSQL cannot store them, so no
// operation accepts them on any store).
func shapeProblems(body []byte, t reflect.Type) commerce.Problems {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil // not JSON: the decoder reports it
	}
	var problems commerce.Problems
	// JSON can only carry a NUL as the escape \u0000 (a raw NUL byte is not
	// valid JSON): without one, there is nothing to walk for.
	if bytes.Contains(body, []byte(`\u0000`)) {
		walkNUL(v, "", &problems)
	}
	walkFields(v, t, "", &problems)
	return problems
}

// walkNUL reports every string value (commerce.TextProblem) and field
// name of the JSON value v that holds a NUL byte, with its path.
func walkNUL(v any, path string, problems *commerce.Problems) {
	switch v := v.(type) {
	case string:
		if msg := commerce.TextProblem(v); msg != "" {
			problems.Add(fieldPath(path), "%s", msg)
		}
	case []any:
		for i, e := range v {
			walkNUL(e, commerce.Index(path, i), problems)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		badKey := false
		for k := range v {
			keys = append(keys, k)
			badKey = badKey || strings.IndexByte(k, 0) >= 0
		}
		if badKey {
			problems.Add(path, "field names must not contain a NUL byte")
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.IndexByte(k, 0) < 0 {
				walkNUL(v[k], joinPath(path, k), problems)
			}
		}
	}
}

func fieldPath(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var (
	typeFields     sync.Map // reflect.Type -> argFields
	stringListType = reflect.TypeFor[commerce.StringList]()
)

// listLen counts the values of a String List given as an array or as a
// comma-separated string.
func listLen(v any) int {
	switch l := v.(type) {
	case []any:
		return len(l)
	case string:
		return strings.Count(l, ",") + 1
	}
	return 0
}

func walkFields(v any, t reflect.Type, path string, problems *commerce.Problems) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == stringListType && listLen(v) > commerce.MaxListValues {
		problems.Add(path, "at most %d values", commerce.MaxListValues)
		return
	}
	if f, ok := wireForms[t]; ok && f.object != nil {
		if m, ok := v.(map[string]any); ok {
			walkFields(m, f.object, path, problems) // the object form
		}
		return // another form: the type reads it
	}
	if t == rawMessageType || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerTyp) {
		return // the type reads its own JSON
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return // a type error, which the decoder reports
		}
		f, ok := typeFields.Load(t)
		if !ok {
			f, _ = typeFields.LoadOrStore(t, fieldsOf(t))
		}
		fields := f.(argFields)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.IndexByte(k, 0) >= 0 {
				continue // reported by walkNUL
			}
			ft, ok := fields[k]
			if !ok {
				problems.Add(joinPath(path, k), "unknown field")
				continue
			}
			if hasShape(ft) {
				walkFields(m[k], ft, joinPath(path, k), problems)
			}
		}
	case reflect.Slice, reflect.Array:
		if list, ok := v.([]any); ok {
			for i, e := range list {
				walkFields(e, t.Elem(), commerce.Index(path, i), problems)
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walkFields(m[k], t.Elem(), joinPath(path, k), problems)
			}
		}
	}
}

// hasShape reports whether walkFields has anything to check in a value of
// type t: fields (structs, possibly in lists or maps) or a String List's
// length. Scalars have none.
func hasShape(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f, ok := wireForms[t]; ok && f.object != nil {
		return true
	}
	switch {
	case t == stringListType:
		return true
	case t == rawMessageType || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerTyp):
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return hasShape(t.Elem())
	}
	return false
}

// decodeError turns a JSON decoding error into a validation_error naming
// the field path, with the decoder's error as its cause. t is the type
// decoded into (nil for a generic value).
func decodeError(err error, body []byte, t reflect.Type) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var ce *commerce.Error
	invalid := func(problem string) error {
		e := commerce.Invalid(problem)
		e.Err = err
		return e
	}
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &te):
		field, ok := "", false
		if te.Offset != commerce.UnplacedOffset {
			field, ok = pathAt(body, te.Offset)
		}
		if !ok {
			field = jsonPath(t, te.Field)
		}
		if field == "" {
			field = "body"
		}
		return invalid(field + ": must be " + kindName(te.Type))
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("body: not valid JSON")
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return invalid(strings.Trim(name, `"`) + ": unknown field")
	}
	return invalid("body: " + strings.TrimPrefix(msg, "json: "))
}

// pathAt returns the path ("items[2].quantity") of the scalar value that
// ends at byte offset off of body, where encoding/json reported a type
// error (its own Field omits array indexes).
func pathAt(body []byte, off int64) (string, bool) {
	type frame struct {
		key            string
		idx            int
		array, wantKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				b.WriteString("[" + strconv.Itoa(f.idx) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		n := len(stack)
		if n > 0 && !stack[n-1].array && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantKey = key, false
				continue
			}
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if n > 0 && stack[n-1].array {
					stack[n-1].idx++
				}
				if n > 0 && dec.InputOffset() >= off {
					// An object or list where another type was due:
					// the decoder's offset is just past its opening.
					return path(), true
				}
				stack = append(stack, frame{array: d == '[', idx: -1, wantKey: d == '{'})
			default:
				stack = stack[:n-1]
				if n > 1 && !stack[n-2].array {
					stack[n-2].wantKey = true
				}
			}
			continue
		}
		if n > 0 && stack[n-1].array {
			stack[n-1].idx++
		}
		if dec.InputOffset() >= off {
			return path(), true
		}
		if n > 0 && !stack[n-1].array {
			stack[n-1].wantKey = true
		}
	}
}

// wireForm is the JSON form of an argument type that its Go type does not
// show (wireForms).
type wireForm struct {
	// kind names the form in a problem: "must be <kind>".
	kind string
	// object is, for a type given as an object or in another form (whose
	// UnmarshalJSON takes the form given, decoding an object with
	// encoding/json), the struct type an object given for it is checked
	// against, as every object argument is (unknown fields with their
	// paths); nil for the others.
	object reflect.Type
}

// wireForms are the argument types whose JSON form is not what their Go
// type says. A new one (a value given in two forms, a struct with a
// name of its own in problems) is a line here.
var wireForms = map[reflect.Type]wireForm{
	reflect.TypeFor[cart.Text]():              {kind: "a string or a number"},
	reflect.TypeFor[cart.AddressArg]():        {kind: "an address object"},
	reflect.TypeFor[customer.AddressArg]():    {kind: "an address object"},
	reflect.TypeFor[cart.BillingAddressArg](): {kind: `an address object or the string "` + cart.SameAsShipping + `"`, object: reflect.TypeFor[cart.AddressArg]()},
	reflect.TypeFor[cart.MethodRef]():         {kind: "a shipping method id or an object with the id", object: reflect.TypeFor[cart.MethodObject]()},
}

// jsonPath turns the decoder's field name of a type error in a value of
// type t ("address.AddressArg.Address.postCode": it names embedded
// structs by their Go type) into the argument's path ("address.postCode").
// It knows no list index (the decoder gives none).
func jsonPath(t reflect.Type, field string) string {
	if field == "" || t == nil {
		return field
	}
	var out []string
	for _, name := range strings.Split(field, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if f, ok := wireForms[t]; ok && f.object != nil {
			t = f.object
		}
		if t == nil || t.Kind() != reflect.Struct {
			out, t = append(out, name), nil
			continue
		}
		if sf, ok := t.FieldByName(name); ok && sf.Anonymous && sf.Tag.Get("json") == "" {
			t = sf.Type // an embedded struct: its fields are the parent's
			continue
		}
		out = append(out, name)
		ft, ok := fieldsOf(t)[name]
		if !ok {
			t = nil
			continue
		}
		t = ft
	}
	return strings.Join(out, ".")
}

func kindName(t reflect.Type) string {
	if t == nil {
		return "of another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f, ok := wireForms[t]; ok {
		return f.kind
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		if t.Name() == "Decimal" {
			return "a number"
		}
		return "an object"
	}
	return "of type " + t.String()
}
