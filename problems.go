package commerce

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Problems collects the field problems of a request, so that every problem
// is reported at once in one validation_error. The zero value is ready to
// use:
//
//	var p commerce.Problems
//	p.Add("items[2].quantity", "must be a positive integer")
//	return p.Err()
type Problems []string

// Add records a problem of the field at path ("items[2].quantity"),
// formatting the message with args as fmt.Sprintf does.
func (p *Problems) Add(path, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	if path == "" {
		*p = append(*p, msg)
		return
	}
	*p = append(*p, path+": "+msg)
}

// AddErr records the problems of err: the list of a validation_error, or
// err's text for any other error.
func (p *Problems) AddErr(err error) {
	if err != nil {
		*p = append(*p, ProblemsOf(err)...)
	}
}

// Empty reports whether no problem was recorded.
func (p Problems) Empty() bool { return len(p) == 0 }

// Err returns the problems as one validation_error, or nil when there are
// none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return Invalid(p...)
}

// Index returns the path of a list element: Index("items", 2) is "items[2]".
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// TextProblem returns what is wrong with a text argument that may reach
// the database ("" when nothing is): a NUL byte (PostgreSQL cannot store
// or compare one) or invalid UTF-8 (which PostgreSQL refuses too). The
// transport checks every string of the JSON arguments it decodes with it
// (JSON decoding already turns invalid UTF-8 into U+FFFD), and endpoints
// that read forms (POST /oauth/token, the admin app's sign-in) check their
// values with it before they look anything up, so that no store ever gets
// such text from a client.
func TextProblem(s string) string {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain a NUL byte"
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	}
	return ""
}

// The longest free text the services store, in characters: a longer
// value given at create or update is validation_error naming the field.
// Regex filters and search read these fields row by row, so what one row
// holds is bounded; the limits are far above what a shop needs (the
// sample catalog's longest title has 95 characters, its longest
// description 465).
const (
	// MaxTitleLen bounds titles, names, brands and the fields of an
	// address.
	MaxTitleLen = 500
	// MaxTextLen bounds descriptions.
	MaxTextLen = 20000
)

// CheckLen records a problem of the text v given as the field path when
// it holds more than max characters.
func (p *Problems) CheckLen(path, v string, max int) {
	if len(v) > max && utf8.RuneCountInString(v) > max {
		p.Add(path, "must be at most %d characters", max)
	}
}

// MaxPatternLen is the longest regular expression a filter accepts, in
// bytes: a regex filter runs against every candidate row, so its cost must
// be bounded (a longer pattern is validation_error).
const MaxPatternLen = 1000

// Pattern is a regular-expression filter argument (docs/api.md section 4):
// Go RE2 syntax, matched case-insensitively, anywhere in the value unless
// the pattern anchors itself. The transport checks it (Check) while
// decoding, so a service receives only valid patterns.
type Pattern string

// Check returns what is wrong with the pattern ("" when nothing is): too
// long, not valid UTF-8, or not valid RE2.
func (p Pattern) Check() string {
	_, msg := p.compile()
	return msg
}

// Regexp compiles the pattern as it is matched: case-insensitive RE2.
// An invalid pattern is validation_error naming no field (callers receive
// checked patterns from the transport).
func (p Pattern) Regexp() (*regexp.Regexp, error) {
	re, msg := p.compile()
	if msg != "" {
		return nil, Invalid("pattern: " + msg)
	}
	return re, nil
}

// compile is the one compilation of a pattern: the regexp, or what is
// wrong with the pattern.
func (p Pattern) compile() (*regexp.Regexp, string) {
	switch {
	case len(p) > MaxPatternLen:
		return nil, fmt.Sprintf("must be a regular expression of at most %d bytes", MaxPatternLen)
	case !utf8.ValidString(string(p)):
		return nil, "must be valid UTF-8"
	}
	re, err := regexp.Compile("(?i)" + string(p))
	if err != nil {
		return nil, "must be a valid regular expression (RE2 syntax): " + err.Error()
	}
	return re, ""
}

// CheckPattern records the problem of an optional pattern argument at
// path (see Pattern.Check); nil is absent and fine. The transport checks
// the patterns it decodes; a service checks those a caller in the process
// gives it with this.
func (p *Problems) CheckPattern(path string, pat *Pattern) {
	if pat == nil {
		return
	}
	if msg := pat.Check(); msg != "" {
		p.Add(path, "%s", msg)
	}
}

// Checker is implemented by argument types that validate their own value
// (Pattern): the transport calls Check on every such value it decodes and
// reports a non-empty answer as a validation_error naming the field.
type Checker interface {
	Check() string
}

// Key normalises an identifier that people type (a slug, a sku, a code,
// an email) to Unicode NFC, so that visually identical strings are the same
// key when stored and compared ("café" typed precomposed or decomposed).
func Key(s string) string { return norm.NFC.String(s) }

// Keys returns the values in the form of Key (a list filter of slugs,
// skus or codes, compared as they are stored), nil for none.
func Keys(vals []string) []string {
	if len(vals) == 0 {
		return nil
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = Key(v)
	}
	return out
}

// EmailKey is the form an email address is stored and compared in, for
// customers and staff alike: Key (NFC), without surrounding spaces, in
// lower case.
func EmailKey(s string) string { return strings.ToLower(Key(strings.TrimSpace(s))) }

// UnplacedOffset is the Offset of a *json.UnmarshalTypeError that an
// argument type's UnmarshalJSON returns for its own value (Unplaced): it
// does not know where that value is in the request, so the transport names
// the field by the decoder's field path instead of the offset.
const UnplacedOffset = math.MaxInt64

// Unplaced marks a type error found by an UnmarshalJSON (see
// UnplacedOffset); other errors are returned as they are.
func Unplaced(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		te.Offset = UnplacedOffset
	}
	return err
}
