package transfer

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/loader"
)

// ShopifyWarehouse is the warehouse Shopify's inventory goes to.
const ShopifyWarehouse = "default"

// ShopifyCategory is the category of a Shopify product that names neither
// a Product Category nor a Type.
const ShopifyCategory = "Imported"

// shopify reads Shopify's product CSV (the columns of the template in
// Shopify's help centre: Handle, Title, Body (HTML), Vendor, Product
// Category, Type, Tags, Published, Option1 Name, Option1 Value, ...,
// Variant SKU, Variant Inventory Tracker, Variant Inventory Qty, Variant
// Inventory Policy, Variant Price, ..., Image Src, Image Position, ...,
// Variant Image, ..., Status). The rows of one Handle are one product: a
// product with options is a Base product (sku: the handle; modifiers: the
// option names) followed by one Variant a row with option values. Columns
// the import has no use for are ignored, as Shopify's exports carry many
// (metafields, markets).
type shopify struct {
	r        *csv.Reader
	col      map[string]int
	currency string
	next     []string // a record read ahead
	nextLine int
	queue    []*Row
	err      error
}

// NewShopify reads the header of a Shopify product CSV. validation_error
// when it has no Handle or Title column.
func NewShopify(r io.Reader, currency string) (Reader, error) {
	s := &shopify{r: newCSV(r), col: map[string]int{}, currency: currency}
	s.r.ReuseRecord = false
	head, err := s.r.Read()
	if err == io.EOF {
		return nil, commerce.Invalid("file: empty: want Shopify's header row")
	}
	if err != nil {
		return nil, csvError(err).(*FileError).Err
	}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		if _, dup := s.col[h]; !dup {
			s.col[h] = i
		}
	}
	var ps commerce.Problems
	for _, need := range []string{"Handle", "Title"} {
		if _, ok := s.col[need]; !ok {
			ps.Add("columns", "the %s column is required (Shopify's product CSV)", need)
		}
	}
	return s, ps.Err()
}

func (s *shopify) get(rec []string, name string) string {
	i, ok := s.col[name]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func (s *shopify) read() ([]string, int, error) {
	if s.next != nil {
		rec, line := s.next, s.nextLine
		s.next = nil
		return rec, line, nil
	}
	rec, err := s.r.Read()
	if err != nil {
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		return nil, 0, csvError(err)
	}
	line, _ := s.r.FieldPos(0)
	return rec, line, nil
}

// Next implements Reader.
func (s *shopify) Next() (*Row, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return nil, s.err
		}
		rec, line, err := s.read()
		if err != nil {
			s.err = err
			continue
		}
		handle := s.get(rec, "Handle")
		if handle == "" {
			s.queue = append(s.queue, &Row{Line: line, Err: commerce.Invalid("Handle: required")})
			continue
		}
		group := [][]string{rec}
		lines := []int{line}
		for {
			r, l, err := s.read()
			if err != nil {
				s.err = err
				break
			}
			if s.get(r, "Handle") != handle {
				s.next, s.nextLine = r, l
				break
			}
			group = append(group, r)
			lines = append(lines, l)
		}
		s.queue = s.product(handle, group, lines)
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	return r, nil
}

// product turns the rows of one handle into the product rows.
func (s *shopify) product(handle string, group [][]string, lines []int) []*Row {
	head := group[0]
	var ps commerce.Problems
	for i, rec := range group {
		for _, v := range rec {
			if len(v) > MaxCell {
				ps.Add("row", "line %d: a cell is longer than %d bytes", lines[i], MaxCell)
				break
			}
		}
	}
	base := Row{Line: lines[0], SKU: commerce.Key(handle)}
	f := &base.Fields
	if t := s.get(head, "Title"); t != "" {
		f.Title = ptr(t)
	}
	if _, ok := s.col["Body (HTML)"]; ok {
		f.Description = ptr(s.get(head, "Body (HTML)"))
	}
	if _, ok := s.col["Vendor"]; ok {
		f.Brand = ptr(s.get(head, "Vendor"))
	}
	switch st := strings.ToLower(s.get(head, "Status")); {
	case st == "active":
		f.Status = ptr(catalog.StatusOnline)
	case st == "draft" || st == "archived":
		f.Status = ptr(catalog.StatusDraft)
	case st != "":
		ps.Add("Status", "must be active, draft or archived (got %q)", st)
	case strings.EqualFold(s.get(head, "Published"), "false"):
		f.Status = ptr(catalog.StatusDraft)
	default:
		f.Status = ptr(catalog.StatusOnline)
	}
	cat := s.get(head, "Product Category")
	if cat == "" {
		cat = escape(s.get(head, "Type"))
	}
	if cat == "" {
		cat = ShopifyCategory
	}
	base.Categories = ptr(categoryPaths(strings.ReplaceAll(cat, "|", `\|`)))

	// Images: every row's Image Src, by Image Position.
	type image struct {
		pos int
		url string
	}
	var images []image
	for i, rec := range group {
		if src := s.get(rec, "Image Src"); src != "" {
			pos, err := strconv.Atoi(s.get(rec, "Image Position"))
			if err != nil {
				pos = 1 << 30
			}
			images = append(images, image{pos, src})
			_ = i
		}
	}
	for i := 1; i < len(images); i++ { // stable insertion sort by position
		for j := i; j > 0 && images[j].pos < images[j-1].pos; j-- {
			images[j], images[j-1] = images[j-1], images[j]
		}
	}
	urls := []string{}
	for _, im := range images {
		if !contains(urls, im.url) {
			urls = append(urls, im.url)
		}
	}
	base.Images = &urls

	var names []string
	for n := 1; n <= 3; n++ {
		if name := s.get(head, "Option"+strconv.Itoa(n)+" Name"); name != "" {
			names = append(names, name)
		}
	}
	simple := len(names) == 0 || (len(names) == 1 && names[0] == "Title" && s.get(head, "Option1 Value") == "Default Title")

	// The variant rows: those with a SKU, a price or an option value.
	var variants []int
	for i, rec := range group {
		if i == 0 || s.get(rec, "Variant SKU") != "" || s.get(rec, "Option1 Value") != "" || s.get(rec, "Variant Price") != "" {
			variants = append(variants, i)
		}
	}
	if simple {
		if sku := s.get(head, "Variant SKU"); sku != "" {
			base.SKU = commerce.Key(sku)
		}
		s.variant(&base, head, &ps)
		base.Err = ps.Err()
		return []*Row{&base}
	}
	base.Fields.Modifiers = &names
	out := []*Row{&base}
	for _, i := range variants {
		rec := group[i]
		v := &Row{Line: lines[i], BaseSKU: ptr(base.SKU)}
		var vps commerce.Problems
		var values, parts []string
		for n := range names {
			val := s.get(rec, "Option"+strconv.Itoa(n+1)+" Value")
			if val == "" {
				vps.Add("Option"+strconv.Itoa(n+1)+" Value", "required: the product has the option %q", names[n])
			}
			values = append(values, val)
			parts = append(parts, val)
		}
		vs := make([]catalog.Variation, len(names))
		for n := range names {
			vs[n] = catalog.Variation{ID: names[n], Value: values[n]}
		}
		v.Fields.Variations = &vs
		v.SKU = commerce.Key(s.get(rec, "Variant SKU"))
		if v.SKU == "" {
			v.SKU = commerce.Key(handle + "-" + loader.Slug(strings.Join(parts, " ")))
		}
		if base.Fields.Title != nil {
			v.Fields.Title = ptr(*base.Fields.Title + " - " + strings.Join(parts, " / "))
		}
		v.Fields.Status = base.Fields.Status
		if img := s.get(rec, "Variant Image"); img != "" {
			v.Images = &[]string{img}
		} else {
			v.Images = &[]string{}
		}
		s.variant(v, rec, &vps)
		if i == 0 {
			// The base sells nothing itself; it shows the first price.
			base.CurrencyPrices = v.CurrencyPrices
		}
		v.Err = vps.Err()
		out = append(out, v)
	}
	base.Err = ps.Err()
	return out
}

// variant reads a row's price, inventory and stock status onto r.
func (s *shopify) variant(r *Row, rec []string, ps *commerce.Problems) {
	if price := s.get(rec, "Variant Price"); price != "" {
		if !decimal.MatchString(price) {
			ps.Add("Variant Price", "must be an amount with a dot before the decimals, as 12.50 (got %q)", price)
		} else {
			r.CurrencyPrices = map[string]*string{s.currency: ptr(price)}
		}
	}
	tracked := strings.EqualFold(s.get(rec, "Variant Inventory Tracker"), "shopify")
	if tracked && !strings.EqualFold(s.get(rec, "Variant Inventory Policy"), "continue") {
		r.Fields.StockStatus = ptr(catalog.StockNormal)
	} else {
		r.Fields.StockStatus = ptr(catalog.StockUnlimited)
	}
	if q := s.get(rec, "Variant Inventory Qty"); q != "" {
		n, err := strconv.ParseInt(q, 10, 64)
		if err != nil || n < 0 {
			ps.Add("Variant Inventory Qty", "must be a whole number of units, 0 or more (got %q)", q)
		} else {
			r.Stock = map[string]int64{ShopifyWarehouse: n}
		}
	}
}
