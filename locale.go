package commerce

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// DefaultLocale is the store's language when --locales names none.
const DefaultLocale = "en"

// Locales are the store's languages (--locales, docs/api.md section 27),
// the default first. The zero value is the one language DefaultLocale.
type Locales []string

// localeTag is the shape of a locale: a language (2-3 letters) and
// optional subtags (es, pt-BR, zh-Hant).
var localeTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// ParseLocales parses --locales: comma-separated language tags, the
// default first, each once.
func ParseLocales(s string) (Locales, error) {
	var out Locales
	for part := range strings.SplitSeq(s, ",") {
		tag := strings.TrimSpace(part)
		if tag == "" {
			continue
		}
		if !localeTag.MatchString(tag) {
			return nil, fmt.Errorf("locale %q: want a language tag such as en, es or pt-BR", tag)
		}
		if slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, tag) }) {
			return nil, fmt.Errorf("locale %q given twice", tag)
		}
		out = append(out, tag)
	}
	if len(out) == 0 {
		return Locales{DefaultLocale}, nil
	}
	return out, nil
}

// Default returns the default locale (the first).
func (l Locales) Default() string {
	if len(l) == 0 {
		return DefaultLocale
	}
	return l[0]
}

// All returns the locales, the default first.
func (l Locales) All() []string {
	if len(l) == 0 {
		return []string{DefaultLocale}
	}
	return slices.Clone(l)
}

// Canonical returns the locale of the store that tag names (compared
// without regard to case), and whether there is one.
func (l Locales) Canonical(tag string) (string, bool) {
	for _, x := range l.All() {
		if strings.EqualFold(x, tag) {
			return x, true
		}
	}
	return "", false
}

// Check returns the store's spelling of locale, or validation_error at
// path when it is not one of the store's locales.
func (l Locales) Check(path, locale string) (string, error) {
	if c, ok := l.Canonical(locale); ok {
		return c, nil
	}
	return "", Invalid(fmt.Sprintf("%s: must be one of %s", path, strings.Join(l.All(), ", ")))
}

// Resolve returns the locale of a read: the argument when given (else
// validation_error when it is not a locale of the store), else the best
// of the request's Accept-Language header (AcceptLanguage) the store has,
// else the default.
func (l Locales) Resolve(ctx context.Context, arg *string) (string, error) {
	if arg != nil && *arg != "" {
		return l.Check("locale", *arg)
	}
	return l.Negotiate(AcceptLanguage(ctx)), nil
}

// Negotiate returns the store's locale an Accept-Language header prefers:
// its tags by q-value (highest first, in order among equals), each matched
// exactly, then by its language alone (es-ES finds es), then a store
// locale of that language (es finds es-ES); "*" and no match are the
// default. A tag with q=0 is never chosen.
func (l Locales) Negotiate(header string) string {
	type choice struct {
		tag string
		q   float64
	}
	var choices []choice
	for part := range strings.SplitSeq(header, ",") {
		tag, params, _ := strings.Cut(part, ";")
		tag = strings.TrimSpace(tag)
		if tag == "" {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0
				}
				q = f
			}
		}
		if q > 0 {
			choices = append(choices, choice{tag, q})
		}
	}
	slices.SortStableFunc(choices, func(a, b choice) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		return 0
	})
	for _, c := range choices {
		if c.tag == "*" {
			return l.Default()
		}
		if x, ok := l.Canonical(c.tag); ok {
			return x
		}
		lang, _, _ := strings.Cut(c.tag, "-")
		if x, ok := l.Canonical(lang); ok {
			return x
		}
		for _, x := range l.All() {
			if xl, _, _ := strings.Cut(x, "-"); strings.EqualFold(xl, lang) {
				return x
			}
		}
	}
	return l.Default()
}

type acceptLanguageKey struct{}

// WithAcceptLanguage returns a context carrying the request's
// Accept-Language header (the transport sets it).
func WithAcceptLanguage(ctx context.Context, header string) context.Context {
	if header == "" {
		return ctx
	}
	return context.WithValue(ctx, acceptLanguageKey{}, header)
}

// AcceptLanguage returns the request's Accept-Language header ("" when
// none).
func AcceptLanguage(ctx context.Context) string {
	s, _ := ctx.Value(acceptLanguageKey{}).(string)
	return s
}
