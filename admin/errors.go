package admin

import (
	"encoding/json"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/commercekit/commerce"
)

// The error box, shared by every page (templates "formerror" and
// "fielderror" in layout.html; new pages use them the same way):
//
//   - A handler whose form failed describes that form with a formSpec (the
//     form's element id, and which of its fields each field path of the
//     API's problems belongs to) and calls page.failed(spec, err).
//   - The form's template puts {{template "formerror" ($.ErrorIn "ID")}}
//     first inside the form: the error box (role="alert", focused when
//     the page or the swapped content loads, so that it is announced and
//     scrolled into view), in words (errorSentence), with each field
//     problem linked to its field.
//   - Each field puts {{$.Invalid "FIELD"}} in its tag (aria-invalid and
//     aria-describedby when it has a problem) and
//     {{template "fielderror" ($.FieldError "FIELD")}} after it (the
//     problem, next to the field).
//   - An error whose form is not on the page (or a page's own, such as a
//     list that could not be read) is shown at the top of the page.

// formError is an error as staff see it: the API's code (kept for
// machines in a data attribute, never shown), a sentence, and the field
// problems of a validation_error.
type formError struct {
	// Form is the id of the form that failed; "" for the page's own.
	Form     string
	Code     string
	Sentence string
	Problems []problem
}

// problem is one field problem: the field's element id ("" when the path
// names no field of the form), its label, and the message in words.
type problem struct {
	Field, Label, Text string
}

// formSpec describes a form for its errors: its element id, the field each
// API field path belongs to (the longest mapped prefix of the path wins:
// "items[0].quantity", then "items[0]", then "items"), and the names of
// ids that messages may hold (an order's item ids: their SKU).
type formSpec struct {
	ID     string
	Fields map[string]field
	Names  map[string]string
}

// field is a form field: its element id and its label.
type field struct{ ID, Label string }

// fieldsOf maps each "path:Label" to the field of that id (the path is the
// element id): the common case of a form whose fields are named as the
// operation's arguments.
func fieldsOf(pairs ...string) map[string]field {
	m := make(map[string]field, len(pairs))
	for _, p := range pairs {
		path, label, _ := strings.Cut(p, ":")
		m[path] = field{ID: path, Label: label}
	}
	return m
}

// explain turns an error of an operation into what staff see, for the
// form described by spec.
func explain(err error, spec formSpec) *formError {
	if err == nil {
		return nil
	}
	code := commerce.ErrorCode(err)
	e := &formError{Form: spec.ID, Code: code}
	data := plainData(err)
	if code == commerce.EValidation {
		if ps, ok := commerce.ErrorData(err).([]string); ok {
			for _, s := range ps {
				e.Problems = append(e.Problems, spec.problem(s))
			}
		}
	}
	e.Sentence = errorSentence(code, data, spec.Names)
	return e
}

// plainData is an error's data as JSON would give it (maps, lists,
// json.Number): the shape the sentences read, whatever Go type the area
// used. Internal and unavailable errors have none to show.
func plainData(err error) any {
	code := commerce.ErrorCode(err)
	d := commerce.ErrorData(err)
	if d == nil || code == commerce.EInternal || code == commerce.EUnavailable {
		return nil
	}
	b, jerr := json.Marshal(d)
	if jerr != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// pathRE matches the field path that starts a problem ("items[2].quantity:").
var pathRE = regexp.MustCompile(`^([A-Za-z_$][\w$-]*(?:\[\d+\]|\.[A-Za-z_$][\w$-]*)*): (.*)$`)

// problem places one problem of a validation_error ("path: message") on
// the form's field and words its message.
func (f formSpec) problem(s string) problem {
	path, msg := "", s
	if m := pathRE.FindStringSubmatch(s); m != nil {
		path, msg = m[1], m[2]
	}
	p := problem{Text: readable(msg, f.Names)}
	if path == "" {
		return p
	}
	for q := path; q != ""; q = parentPath(q) {
		if fl, ok := f.Fields[q]; ok {
			p.Field, p.Label = fl.ID, fl.Label
			if q != path {
				// A part of the field (a rule's if.product.quantity):
				// say which.
				p.Text = humanPath(strings.TrimPrefix(strings.TrimPrefix(path, q), ".")) + ": " + p.Text
			}
			return p
		}
	}
	p.Label = humanPath(path)
	return p
}

// parentPath drops the last step of a field path: "items[0].quantity" ->
// "items[0]" -> "items" -> "".
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i <= 0 {
		return ""
	}
	return p[:i]
}

// humanPath words a field path that no field of the form stands for:
// "if.product.quantity" -> "If › product › quantity", "items[2]" ->
// "Items › 3".
func humanPath(p string) string {
	var parts []string
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
		if n, err := strconv.Atoi(seg); err == nil {
			seg = strconv.Itoa(n + 1)
		} else {
			seg = words(seg)
		}
		parts = append(parts, seg)
	}
	return capitalize(strings.Join(parts, " › "))
}

// words splits a camelCase or snake_case name into lower-case words.
func words(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return b.String()
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// readable words a problem's message for staff: a regular expression's
// parser error as a sentence, ids replaced by the names given. It stays in
// lower case, as it follows its field's label ("Amount: must be ...");
// next to the field, the template "fielderror" capitalises it.
func readable(msg string, names map[string]string) string {
	if i := strings.Index(msg, "error parsing regexp: "); i >= 0 {
		msg = "is not a valid pattern: " + regexpProblem(msg[i+len("error parsing regexp: "):])
	}
	for id, name := range names {
		if id != "" && name != "" {
			msg = strings.ReplaceAll(msg, "item "+id, name)
			msg = strings.ReplaceAll(msg, id, name)
		}
	}
	return msg
}

// regexpSentences word the errors of Go's regular expression parser
// (regexp/syntax.ErrorCode), as the API reports them.
var regexpSentences = map[string]string{
	"missing closing )":                       "an opening bracket “(” is never closed",
	"unexpected )":                            "a closing bracket “)” has no opening one",
	"missing closing ]":                       "a character class “[” is never closed",
	"invalid character class":                 "a character class “[…]” is not valid",
	"invalid character class range":           "a range in “[…]” goes backwards or is not valid",
	"invalid escape sequence":                 "a backslash escape is not one RE2 knows (escape special characters such as \\. \\( \\[)",
	"trailing backslash at end of expression": "it ends with a lone backslash “\\”",
	"missing argument to repetition operator": "a “*”, “+”, “?” or “{n}” has nothing before it to repeat (write \\* for the character itself)",
	"invalid nested repetition operator":      "two repetition operators follow each other (such as “**”)",
	"invalid repeat count":                    "a repeat count “{n,m}” is not valid or more than 1000",
	"invalid or unsupported Perl syntax":      "it uses syntax RE2 does not support (such as look-ahead “(?=”)",
	"invalid named capture":                   "a named group “(?P<name>…)” is not valid",
	"invalid UTF-8":                           "it is not valid UTF-8",
	"expression nests too deeply":             "it nests brackets too deeply",
	"expression too large":                    "it is too large once expanded",
}

// regexpProblem words "CODE: `EXPR`" (the parser's error after its
// prefix): the sentence, and where, without the case-insensitive flag
// the service adds in front of every pattern.
func regexpProblem(s string) string {
	code, expr, _ := strings.Cut(s, ": `")
	expr = strings.TrimSuffix(expr, "`")
	expr = strings.TrimPrefix(expr, "(?i)")
	sentence, ok := regexpSentences[code]
	if !ok {
		sentence = code
	}
	if expr != "" {
		sentence += " (at “" + expr + "”)"
	}
	return sentence
}

// ErrorIn returns the page's error when it belongs to the form of that
// element id (and notes that the page shows it), else nil: the template
// "formerror" draws it inside the form.
func (p *page) ErrorIn(form string) *formError {
	if p.Error == nil || p.Error.Form != form || form == "" {
		return nil
	}
	p.errorShown = true
	return p.Error
}

// FieldError returns the problems of the field of that element id.
func (p *page) FieldError(id string) *fieldProblems {
	if p.Error == nil {
		return nil
	}
	var texts []string
	for _, pr := range p.Error.Problems {
		if pr.Field == id {
			texts = append(texts, pr.Text)
		}
	}
	if texts == nil {
		return nil
	}
	return &fieldProblems{ID: id, Texts: texts}
}

// fieldProblems are the problems shown next to a field (template
// "fielderror"): the element id "<ID>-error" describes the field.
type fieldProblems struct {
	ID    string
	Texts []string
}

// Invalid returns the attributes of a field with a problem: aria-invalid,
// and aria-describedby naming its problem (and the ids given, which the
// field is described by anyway, such as a hint).
func (p *page) Invalid(id string, describedBy ...string) template.HTMLAttr {
	if p.FieldError(id) == nil {
		if len(describedBy) == 0 {
			return ""
		}
		return template.HTMLAttr(` aria-describedby="` + template.HTMLEscapeString(strings.Join(describedBy, " ")) + `"`)
	}
	ids := append([]string{id + "-error"}, describedBy...)
	return template.HTMLAttr(` aria-invalid="true" aria-describedby="` + template.HTMLEscapeString(strings.Join(ids, " ")) + `"`)
}

// failed puts the error of the form spec describes on the page.
func (p *page) failed(spec formSpec, err error) {
	p.Error = explain(err, spec)
}
