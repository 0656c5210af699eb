package transfer

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
)

// The columns of the `commerce` CSV (docs/api.md section 25), and
// `classifications` (id=value|id=value), which the contract does not
// name but a catalog cannot move without (see README).
var commerceColumns = []string{"sku", "status", "title", "description", "brand", "categories", "isNetPrice",
	"stockStatus", "taxCode", "images", "base", "variations", "modifiers", "classifications"}

// translationFields are the fields of a translations.<locale>.<field>
// column (docs/api.md sections 25 and 27).
var translationFields = []string{"title", "description", "slug"}

// column is a column of a commerce CSV: its name, and the currency,
// warehouse or locale of price., stock. and translations. columns (field:
// a translation's title, description or slug).
type column struct {
	name  string // "sku", ..., "price", "stock", "translation"
	arg   string
	field string
	head  string // as the header gives it
}

// commerceCSV reads the `commerce` CSV.
type commerceCSV struct {
	r    *csv.Reader
	cols []column
}

// decimal is the form of an amount in a CSV cell: digits, optionally a
// dot and more digits (no thousands separators, no decimal comma).
var decimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// newCSV returns a csv.Reader as every reader here uses it: strict
// quoting (encoding/csv's, LazyQuotes off), any number of fields a record
// (the readers check it), CRLF or LF.
func newCSV(r io.Reader) *csv.Reader {
	c := csv.NewReader(r)
	c.FieldsPerRecord = -1
	c.ReuseRecord = true
	return c
}

// csvError turns an error of encoding/csv into a FileError.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		line := pe.StartLine
		return &FileError{Line: line, Err: commerce.Invalid(fmt.Sprintf("file: line %d: %v (quote a cell that holds a quote, a comma or a line break, and double the quotes inside it)", line, pe.Err))}
	}
	return &FileError{Err: commerce.Invalid("file: " + err.Error())}
}

// NewCommerceCSV reads the header of a commerce CSV; locales are the
// store's (--locales), which translations.<locale>.<field> columns must
// name (not the default: its text is the title and description columns).
// validation_error listing every problem of the header: a missing sku
// column, an unknown or repeated column, a locale the store does not have.
func NewCommerceCSV(r io.Reader, locales commerce.Locales) (Reader, error) {
	c := &commerceCSV{r: newCSV(r)}
	head, err := c.r.Read()
	if err == io.EOF {
		return nil, commerce.Invalid("file: empty: want a header row")
	}
	if err != nil {
		return nil, csvError(err).(*FileError).Err
	}
	var ps commerce.Problems
	seen := map[string]bool{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		col := column{name: h, head: h}
		switch {
		case contains(commerceColumns, h):
		case strings.HasPrefix(h, "price."):
			col = column{name: "price", arg: strings.TrimPrefix(h, "price."), head: h}
			if !money.ValidCurrency(col.arg) {
				ps.Add("columns", "%q: %q is not an ISO 4217 currency code", h, col.arg)
			}
		case strings.HasPrefix(h, "stock.") && len(h) > len("stock."):
			col = column{name: "stock", arg: commerce.Key(strings.TrimPrefix(h, "stock.")), head: h}
		case translationColumn(h):
			locale, field := splitTranslationColumn(h)
			col = column{name: "translation", arg: locale, field: field, head: h}
			canon, ok := locales.Canonical(locale)
			switch {
			case !ok:
				ps.Add("columns", "%q: %q is not a locale of the store (%s)", h, locale, strings.Join(locales.All(), ", "))
			case canon == locales.Default():
				ps.Add("columns", "%q: %s is the default locale, whose text is the product's own columns", h, canon)
			default:
				col.arg = canon
			}
		default:
			ps.Add("columns", "unknown column %q (known: %s, price.<CURRENCY>, stock.<WAREHOUSE>, translations.<locale>.title, translations.<locale>.description, translations.<locale>.slug)",
				h, strings.Join(commerceColumns, ", "))
		}
		if seen[h] {
			ps.Add("columns", "column %q given twice", h)
		}
		seen[h] = true
		c.cols = append(c.cols, col)
	}
	if !seen["sku"] {
		ps.Add("columns", "the sku column is required")
	}
	if err := ps.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// translationColumn reports whether h is a translations.<locale>.<field>
// column.
func translationColumn(h string) bool {
	if !strings.HasPrefix(h, "translations.") {
		return false
	}
	locale, field := splitTranslationColumn(h)
	return locale != "" && contains(translationFields, field)
}

// splitTranslationColumn splits translations.<locale>.<field>.
func splitTranslationColumn(h string) (locale, field string) {
	rest := strings.TrimPrefix(h, "translations.")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return "", rest
	}
	return rest[:i], rest[i+1:]
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Next implements Reader.
func (c *commerceCSV) Next() (*Row, error) {
	rec, err := c.r.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, csvError(err)
	}
	line, _ := c.r.FieldPos(0)
	row := &Row{Line: line}
	var ps commerce.Problems
	if len(rec) != len(c.cols) {
		ps.Add("row", "has %d cells, the header has %d columns", len(rec), len(c.cols))
		for i, col := range c.cols {
			if col.name == "sku" && i < len(rec) {
				row.SKU = commerce.Key(strings.TrimSpace(rec[i]))
			}
		}
		row.Err = ps.Err()
		return row, nil
	}
	f := &row.Fields
	for i, col := range c.cols {
		cell := rec[i]
		if len(cell) > MaxCell {
			ps.Add(col.head, "longer than %d bytes", MaxCell)
			continue
		}
		v := strings.TrimSpace(cell)
		switch col.name {
		case "sku":
			row.SKU = commerce.Key(v)
		case "status":
			if v != "" {
				f.Status = ptr(strings.ToUpper(v))
			}
		case "title":
			if v != "" {
				f.Title = ptr(v)
			}
		case "description":
			f.Description = ptr(cell)
		case "brand":
			f.Brand = ptr(v)
		case "categories":
			if v != "" {
				row.Categories = ptr(categoryPaths(v))
			}
		case "isNetPrice":
			if v != "" {
				b, err := strconv.ParseBool(strings.ToLower(v))
				if err != nil {
					ps.Add(col.head, "must be true or false (got %q)", v)
				}
				f.IsNetPrice = &b
			}
		case "stockStatus":
			if v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					ps.Add(col.head, "must be 0 (NORMAL), 1 (UNLIMITED) or 2 (DISCONTINUED) (got %q)", v)
				}
				f.StockStatus = &n
			}
		case "taxCode":
			if v != "" {
				f.TaxCode = ptr(v)
			}
		case "images":
			row.Images = ptr(splitList(v, '|'))
		case "base":
			if v != "" {
				row.BaseSKU = ptr(commerce.Key(v))
			}
		case "variations":
			if v != "" {
				var vs []catalog.Variation
				for _, pair := range splitPairsRaw(v) {
					name, value, ok := splitPair(pair)
					if !ok {
						ps.Add(col.head, "%q: want name=value", pair)
					}
					vs = append(vs, catalog.Variation{ID: name, Value: value})
				}
				f.Variations = &vs
			}
		case "modifiers":
			if v != "" {
				f.Modifiers = ptr(splitList(v, '|'))
			}
		case "classifications":
			cs := []catalog.ClassificationValue{}
			for _, pair := range splitPairsRaw(v) {
				name, value, ok := splitPair(pair)
				if !ok {
					ps.Add(col.head, "%q: want id=value", pair)
				}
				cs = append(cs, catalog.ClassificationValue{ID: name, Value: catalog.StringLiteral(value)})
			}
			f.Classifications = &cs
		case "price":
			if row.CurrencyPrices == nil {
				row.CurrencyPrices = map[string]*string{}
			}
			if v == "" {
				row.CurrencyPrices[col.arg] = nil
				continue
			}
			if !decimal.MatchString(v) {
				ps.Add(col.head, "must be an amount in major units with a dot before the decimals, as 12.50 (got %q)", v)
				continue
			}
			row.CurrencyPrices[col.arg] = ptr(v)
		case "stock":
			if v == "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				ps.Add(col.head, "must be a whole number of units, 0 or more (got %q)", v)
				continue
			}
			if row.Stock == nil {
				row.Stock = map[string]int64{}
			}
			row.Stock[col.arg] = n
		case "translation":
			// A cell empty removes that field of the translation, as an
			// empty description cell does the description.
			if f.Translations == nil {
				f.Translations = catalog.TranslationsInput{}
			}
			tr := f.Translations[col.arg]
			if tr == nil {
				tr = &catalog.TranslationInput{}
				f.Translations[col.arg] = tr
			}
			switch col.field {
			case "title":
				tr.Title = ptr(v)
			case "description":
				tr.Description = ptr(cell)
			default:
				tr.Slug = ptr(v)
			}
		}
	}
	if row.SKU == "" {
		ps.Add("sku", "required")
	}
	row.Err = ps.Err()
	return row, nil
}
