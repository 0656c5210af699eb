package search

import (
	"strings"
	"unicode"
)

// LocaleMarker returns what the index puts before every word of a
// product's text in locale (docs/api.md section 27): "0l" + the locale's
// letters and digits in lower case + "0" ("0les0" for es, "0lptbr0" for
// pt-BR). A marked word is one token for both stores' tokenizers (letters
// and digits only), and one no text holds by chance: so that one index
// holds every locale's words apart from the default's and from each
// other's, and a search in a locale looks up each word as it is and
// marked.
func LocaleMarker(locale string) string {
	var b strings.Builder
	b.WriteString("0l")
	for _, r := range strings.ToLower(locale) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	b.WriteString("0")
	return b.String()
}

// LocaleText returns the indexed form of texts in locale: their words
// (Words), each marked with LocaleMarker, separated by spaces; "" when
// they hold none.
func LocaleText(locale string, texts ...string) string {
	marker := LocaleMarker(locale)
	var b strings.Builder
	for _, t := range texts {
		for _, w := range Words(t) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(marker)
			b.WriteString(w)
		}
	}
	return b.String()
}
