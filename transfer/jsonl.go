package transfer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

// Product is a product in the `commerce` JSON Lines format: one object a
// line, the product's fields as product.create takes them, with what
// refers to other records by a name a file can carry: categories as title
// paths ("Electro > Frigoríficos"), base as the base product's sku, and
// the stock by warehouse. product.export writes it; product.import reads
// it (unknown fields reject the line).
type Product struct {
	SKU             *string                        `json:"sku,omitempty"`
	Status          *string                        `json:"status,omitempty"`
	Title           *string                        `json:"title,omitempty"`
	Description     *string                        `json:"description,omitempty"`
	Brand           *string                        `json:"brand,omitempty"`
	Categories      *[]string                      `json:"categories,omitempty"`
	Prices          *[]*catalog.PriceInput         `json:"prices,omitempty"`
	IsNetPrice      *bool                          `json:"isNetPrice,omitempty"`
	StockStatus     *int                           `json:"stockStatus,omitempty"`
	TaxCode         *string                        `json:"taxCode,omitempty"`
	Medias          *[]catalog.Media               `json:"medias,omitempty"`
	Classifications *[]catalog.ClassificationValue `json:"classifications,omitempty"`
	Stock           map[string]int64               `json:"stock,omitempty"`
	Base            *string                        `json:"base,omitempty"`
	Variations      *[]catalog.Variation           `json:"variations,omitempty"`
	Modifiers       *[]string                      `json:"modifiers,omitempty"`
	Translations    catalog.TranslationsInput      `json:"translations,omitempty"`
	// Category makes the line a category's (no other field may be given):
	// product.export writes the whole tree first, parents first, so that
	// an import into an empty store has the classifications the products'
	// values need.
	Category *Category `json:"category,omitempty"`
}

// Category is a category line of the JSON Lines format.
type Category struct {
	// Path is the category's title path from the root ("Electro >
	// Frigoríficos"; "" is the root itself).
	Path string `json:"path"`
	// Slug is the category's slug (made from its title when absent).
	Slug *string `json:"slug,omitempty"`
	// Description is the category's text.
	Description *string `json:"description,omitempty"`
	// Classifications are the definitions the category gives its products.
	Classifications *[]catalog.ClassificationDefInput `json:"classifications,omitempty"`
}

// maxLine is the longest line of a JSON Lines file.
const maxLine = 16 << 20

type jsonLines struct {
	s    *bufio.Scanner
	line int
}

// NewJSONLines returns the reader of a commerce JSON Lines file.
func NewJSONLines(r io.Reader) Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), maxLine)
	return &jsonLines{s: s}
}

// Next implements Reader.
func (j *jsonLines) Next() (*Row, error) {
	for j.s.Scan() {
		j.line++
		b := bytes.TrimSpace(j.s.Bytes())
		if j.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		}
		if len(b) == 0 {
			continue
		}
		return j.row(b), nil
	}
	if err := j.s.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &FileError{Line: j.line + 1, Err: commerce.Invalid(fmt.Sprintf("file: line %d: longer than %d bytes", j.line+1, maxLine))}
		}
		return nil, &FileError{Err: commerce.Invalid("file: " + err.Error())}
	}
	return nil, io.EOF
}

func (j *jsonLines) row(b []byte) *Row {
	row := &Row{Line: j.line}
	var p Product
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		// The sku, if the line has one, for the error's row.
		var probe struct {
			SKU string `json:"sku"`
		}
		_ = json.Unmarshal(b, &probe)
		row.SKU = commerce.Key(strings.TrimSpace(probe.SKU))
		row.Err = commerce.Invalid("line: not a product object of the commerce format: " + strings.TrimPrefix(err.Error(), "json: "))
		return row
	}
	if dec.More() {
		row.Err = commerce.Invalid("line: one JSON object a line")
		return row
	}
	if p.Category != nil {
		if !reflect.DeepEqual(p, Product{Category: p.Category}) {
			row.Err = commerce.Invalid("line: a category line has the field category only")
			return row
		}
		paths := categoryPaths(p.Category.Path)
		path := []string{}
		if len(paths) > 1 {
			row.Err = commerce.Invalid("category.path: one path")
			return row
		}
		if len(paths) == 1 {
			path = paths[0]
		}
		row.Category = &CategoryRow{Path: path, Fields: catalog.CategoryFields{Slug: p.Category.Slug,
			Description: p.Category.Description, Classifications: p.Category.Classifications}}
		row.SKU = ""
		return row
	}
	var ps commerce.Problems
	if p.SKU != nil {
		row.SKU = commerce.Key(strings.TrimSpace(*p.SKU))
	}
	if row.SKU == "" {
		ps.Add("sku", "required")
	}
	f := &row.Fields
	f.Status, f.Title, f.Description, f.Brand = p.Status, p.Title, p.Description, p.Brand
	f.IsNetPrice, f.StockStatus, f.TaxCode = p.IsNetPrice, p.StockStatus, p.TaxCode
	f.Classifications, f.Variations, f.Modifiers = p.Classifications, p.Variations, p.Modifiers
	row.Prices, row.Medias = p.Prices, p.Medias
	if p.Categories != nil {
		paths := [][]string{}
		for _, c := range *p.Categories {
			paths = append(paths, categoryPaths(c)...)
		}
		row.Categories = &paths
	}
	if p.Base != nil {
		row.BaseSKU = ptr(commerce.Key(strings.TrimSpace(*p.Base)))
	}
	for wh, n := range p.Stock {
		if n < 0 {
			ps.Add("stock."+wh, "must be a whole number of units, 0 or more (got %d)", n)
		}
		if strings.TrimSpace(wh) == "" {
			ps.Add("stock", "a warehouse id must not be empty")
		}
	}
	if len(p.Stock) > 0 {
		row.Stock = map[string]int64{}
		for wh, n := range p.Stock {
			row.Stock[commerce.Key(strings.TrimSpace(wh))] = n
		}
	}
	// Checked against the store's locales by the catalog (a row's
	// validation_error at translations.<locale>).
	f.Translations = p.Translations
	row.Err = ps.Err()
	return row
}
