package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Kind is the kind of JSON value a Literal holds.
type Kind uint8

// The kinds of a Literal. The zero Literal is KindAbsent: the field was not
// given at all.
const (
	KindAbsent Kind = iota
	KindNull
	KindString
	KindNumber
	KindBool
	// KindComposite is an object or an array: never a valid value where
	// a Literal is read, but kept so that it can be reported as given.
	KindComposite
)

// Literal is one JSON value as a client gave it, read into its kind
// without judging it: a classification value (a string, a number or a
// boolean, in whichever form the client chose) or a price's amount and
// validity dates. Decoding never fails on valid JSON, so that the service
// can check the value in the order the contract gives (a price_invalid
// before the next price's validation_error) and answer with the value as
// given. A number keeps its literal text ("577.65", "1e30"), so nothing is
// lost to floating point.
type Literal struct {
	kind Kind
	// text is the string; a number's literal; "true" or "false"; an
	// object or array in compact JSON.
	text string
}

// StringLiteral returns the Literal of a JSON string.
func StringLiteral(s string) Literal { return Literal{kind: KindString, text: s} }

// NumberLiteral returns the Literal of a JSON number given by its literal
// text ("59.5", "-1.5e2"); the text must be a JSON number.
func NumberLiteral(lit string) Literal { return Literal{kind: KindNumber, text: lit} }

// BoolLiteral returns the Literal of a JSON boolean.
func BoolLiteral(b bool) Literal { return Literal{kind: KindBool, text: strconv.FormatBool(b)} }

// NullLiteral returns the Literal of a JSON null.
func NullLiteral() Literal { return Literal{kind: KindNull} }

// Kind returns the kind of the value.
func (l Literal) Kind() Kind { return l.kind }

// Text returns the string of a KindString, the literal of a KindNumber,
// "true" or "false" for a KindBool, the compact JSON of a KindComposite
// and "" for absent and null.
func (l Literal) Text() string { return l.text }

// IsZero reports whether the value was not given (for omitzero: a field
// that was absent stays absent when the input is written back).
func (l Literal) IsZero() bool { return l.kind == KindAbsent }

// IsNull reports whether the value is absent or null.
func (l Literal) IsNull() bool { return l.kind == KindAbsent || l.kind == KindNull }

// Blank reports whether the value is empty: absent, null, or a string of
// white space only.
func (l Literal) Blank() bool {
	return l.IsNull() || l.kind == KindString && strings.TrimSpace(l.text) == ""
}

// MarshalJSON writes the value as it was given (null when absent).
func (l Literal) MarshalJSON() ([]byte, error) {
	switch l.kind {
	case KindString:
		return json.Marshal(l.text)
	case KindNumber, KindBool, KindComposite:
		return []byte(l.text), nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads any JSON value into its kind.
func (l *Literal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || !json.Valid(b) {
		return errors.New("catalog: literal: not JSON")
	}
	switch b[0] {
	case 'n':
		*l = NullLiteral()
	case 't', 'f':
		*l = BoolLiteral(b[0] == 't')
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = StringLiteral(s)
	case '{', '[':
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			return err
		}
		*l = Literal{kind: KindComposite, text: c.String()}
	default:
		*l = NumberLiteral(string(b))
	}
	return nil
}
