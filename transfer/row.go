package transfer

import (
	"strings"

	"github.com/commercekit/commerce/catalog"
)

// Row is one product as a reader found it in a file, whatever the format:
// the fields the file gives (nil: not given, so that an update keeps what
// the store has) and what refers to other records by a name the file can
// carry (category title paths, the base product's sku).
type Row struct {
	// Line is the line of the file the row starts on (the header is 1).
	Line int
	// SKU is the product's sku (commerce.Key applied).
	SKU string
	// Fields are the product's fields; Categories, Base, Prices and
	// Medias are left nil and come from the fields below.
	Fields catalog.ProductFields
	// Categories are title paths from the root ({"Electro",
	// "Frigoríficos"}); nil when not given.
	Categories *[][]string
	// BaseSKU is the sku of a Variant's base product.
	BaseSKU *string
	// Prices is the whole list of prices (JSON Lines).
	Prices *[]*catalog.PriceInput
	// CurrencyPrices are the unrestricted prices by currency (CSV): the
	// amount as given, nil to remove that currency's price. Other prices
	// of the product are kept.
	CurrencyPrices map[string]*string
	// Images are media URLs (CSV); a media already on the product with the
	// same URL keeps its id.
	Images *[]string
	// Medias is the whole list of medias with their ids (JSON Lines).
	Medias *[]catalog.Media
	// Stock is the quantity on hand by warehouse.
	Stock map[string]int64
	// Category, when set, makes the row a category's (JSON Lines): the
	// other fields are unset.
	Category *CategoryRow
	// Err is what is wrong with the row as read (validation_error), nil
	// when the reader found nothing wrong.
	Err error
}

// CategoryRow is a category as a file gives it: its title path from the
// root and its fields (Parent and Title come from the path).
type CategoryRow struct {
	Path   []string
	Fields catalog.CategoryFields
}

// Reader reads the rows of a file. Next returns io.EOF after the last
// row, and a *FileError when the file cannot be read on (an unclosed
// quote): its rows cannot be trusted from there on.
type Reader interface {
	Next() (*Row, error)
}

// FileError is a problem of the file as a whole.
type FileError struct {
	Line int
	Err  error
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// MaxCell is the longest cell (or JSON line value) a reader takes, in
// bytes: a longer one rejects its row.
const MaxCell = 1 << 20

// splitList splits a cell of values separated by sep; a backslash takes
// the next character as it is (`\|` is a |, `\\` a backslash). Values are
// trimmed; empty ones are dropped.
func splitList(s string, sep byte) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if v := strings.TrimSpace(b.String()); v != "" {
			out = append(out, v)
		}
		b.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == sep:
			flush()
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return out
}

// splitPair splits name=value at the first = that is not escaped; ok is
// false when there is none.
func splitPair(s string) (name, value string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '=':
			return unescape(strings.TrimSpace(s[:i])), unescape(strings.TrimSpace(s[i+1:])), true
		}
	}
	return "", "", false
}

// splitPairsRaw splits name=value|name=value keeping escapes inside each
// pair (splitPair removes them).
func splitPairsRaw(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '|':
			if v := strings.TrimSpace(s[start:i]); v != "" {
				out = append(out, v)
			}
			start = i + 1
		}
	}
	if start <= len(s) {
		if v := strings.TrimSpace(s[start:]); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escape escapes what splitList, splitPair and the category paths treat
// as separators.
func escape(s string) string {
	if !strings.ContainsAny(s, `\|=>`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '|', '=', '>':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// categoryPaths reads a categories cell: paths separated by |, titles in a
// path by >.
func categoryPaths(s string) [][]string {
	var out [][]string
	for _, raw := range splitRaw(s, '|') {
		var path []string
		for _, t := range splitRaw(raw, '>') {
			path = append(path, unescape(t))
		}
		if len(path) > 0 {
			out = append(out, path)
		}
	}
	return out
}

// splitRaw splits at unescaped sep, keeping escapes, trimming and dropping
// empty parts.
func splitRaw(s string, sep byte) []string {
	var out []string
	start := 0
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			add(s[start:i])
			start = i + 1
		}
	}
	if start <= len(s) {
		add(s[start:])
	}
	return out
}

func ptr[T any](v T) *T { return &v }
