package commerce

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// MaxListValues is the most values a String List argument may hold (more
// is validation_error): list filters become SQL parameters, which the
// databases limit.
const MaxListValues = 1000

// IsNull reports whether raw, a JSON value, is absent: empty or null,
// surrounding white space aside. Optional arguments and the opaque JSON
// the areas read treat both alike.
func IsNull(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// StringList is a String List argument: a JSON array of strings (or
// numbers), or one string of comma-separated values (the query-string
// form). Values are trimmed and empty ones dropped.
type StringList []string

// UnmarshalJSON reads an array of strings or numbers, a comma-separated
// string, or a single number.
func (l *StringList) UnmarshalJSON(b []byte) error {
	// The decoder names the field; an offset past the end tells the
	// transport to use that name rather than look for the value.
	typeErr := &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[StringList](), Offset: math.MaxInt64}
	if IsNull(b) {
		*l = nil
		return nil
	}
	b = bytes.TrimSpace(b)
	var s string
	var n json.Number
	if json.Unmarshal(b, &s) == nil {
		*l = splitList(s)
		return nil
	}
	if json.Unmarshal(b, &n) == nil {
		*l = StringList{n.String()}
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return typeErr
	}
	out := make(StringList, 0, len(raw))
	for _, r := range raw {
		if err := json.Unmarshal(r, &s); err != nil {
			if err := json.Unmarshal(r, &n); err != nil {
				return typeErr
			}
			s = n.String()
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	*l = out
	return nil
}

func splitList(s string) StringList {
	out := StringList{}
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// Project returns the JSON object of v reduced to `id` plus the named
// top-level fields (unknown names ignored), or v itself when fields is
// empty: the `fields` argument of info and list operations.
func Project(v any, fields []string) (any, error) {
	if len(fields) == 0 {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, Errorf(EInternal, "project fields: %w", err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, Errorf(EInternal, "project fields: %w", err)
	}
	out := map[string]json.RawMessage{"id": all["id"]}
	for _, f := range fields {
		if raw, ok := all[f]; ok {
			out[f] = raw
		}
	}
	return out, nil
}

// ProjectAll applies Project to every record of a list.
func ProjectAll[T any](list []T, fields []string) ([]any, error) {
	out := make([]any, len(list))
	for i, v := range list {
		p, err := Project(v, fields)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
