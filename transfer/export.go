package transfer

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
)

// exportPage is how many records an export reads at a time: the memory
// an export holds, whatever the size of the catalog.
const exportPage = 500

// Export formats.
const (
	ExportCSV   = "csv"
	ExportJSONL = "jsonl"
)

// ProductExport is a checked product.export: Write streams it.
type ProductExport struct {
	s      *Service
	format string
	filter catalog.ProductFilter
}

// Format returns csv or jsonl.
func (e *ProductExport) Format() string { return e.format }

// PrepareProductExport checks the arguments of product.export before
// anything is sent. Without status, every product is exported (ONLINE
// and DRAFT), unlike product.list. Error: validation_error.
func (s *Service) PrepareProductExport(in ExportInput) (*ProductExport, error) {
	format := in.Format
	if format == "" {
		format = ExportCSV
	}
	var ps commerce.Problems
	if format != ExportCSV && format != ExportJSONL {
		ps.Add("format", "must be csv or jsonl")
	}
	in.ListProductsInput.PageArgs = commerce.PageArgs{}
	f, _, err := in.ListProductsInput.Filter()
	if err != nil {
		return nil, err
	}
	if err := ps.Err(); err != nil {
		return nil, err
	}
	if len(f.Statuses) == 0 {
		f.Statuses = []string{catalog.StatusOnline, catalog.StatusDraft}
	}
	return &ProductExport{s: s, format: format, filter: f}, nil
}

// Write streams the products, a page at a time, to w.
func (e *ProductExport) Write(ctx context.Context, w io.Writer) error {
	s := e.s
	cats, err := s.store.Categories(ctx)
	if err != nil {
		return err
	}
	idx := newCategoryIndex(cats)
	var cw *csv.Writer
	var currencies, warehouses []string
	// The store's other locales: their translations' columns.
	locales := s.locales().All()[1:]
	if e.format == ExportCSV {
		if currencies, err = s.store.Currencies(ctx); err != nil {
			return err
		}
		if warehouses, err = s.store.Warehouses(ctx); err != nil {
			return err
		}
		cw = csv.NewWriter(w)
		head := []string{"sku", "status", "title", "description", "brand", "categories"}
		for _, c := range currencies {
			head = append(head, "price."+c)
		}
		head = append(head, "isNetPrice", "stockStatus", "taxCode", "images")
		for _, wh := range warehouses {
			head = append(head, "stock."+wh)
		}
		head = append(head, "base", "variations", "modifiers", "classifications")
		for _, l := range locales {
			for _, f := range translationFields {
				head = append(head, "translations."+l+"."+f)
			}
		}
		if err := cw.Write(head); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if e.format == ExportJSONL {
		for _, c := range cats {
			if c.ID == catalog.RootID && len(c.Classifications) == 0 && c.Description == nil {
				continue
			}
			if err := enc.Encode(Product{Category: categoryLine(c, pathText(idx.path(c.ID)))}); err != nil {
				return err
			}
		}
	}
	f := e.filter
	f.Limit = exportPage
	for f.Skip = 0; ; f.Skip += exportPage {
		page, err := s.catalog.ListProducts(ctx, f)
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(page))
		var bases []string
		for _, p := range page {
			ids = append(ids, p.ID)
			if p.Base != "" {
				bases = append(bases, p.Base)
			}
		}
		stocks, err := s.store.Stocks(ctx, ids)
		if err != nil {
			return err
		}
		baseSKUs, err := s.store.ProductSKUs(ctx, bases)
		if err != nil {
			return err
		}
		for _, p := range page {
			var paths []string
			for _, c := range p.Categories {
				paths = append(paths, pathText(idx.path(c)))
			}
			if cw != nil {
				if err := cw.Write(csvRow(p, paths, currencies, warehouses, locales, stocks[p.ID], baseSKUs[p.Base])); err != nil {
					return err
				}
				continue
			}
			if err := enc.Encode(jsonProduct(p, paths, stocks[p.ID], baseSKUs[p.Base])); err != nil {
				return err
			}
		}
		if cw != nil {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
		}
		if fl, ok := w.(interface{ Flush() }); ok {
			fl.Flush()
		}
		if len(page) < exportPage {
			return nil
		}
	}
}

func pathText(titles []string) string {
	out := make([]string, len(titles))
	for i, t := range titles {
		out[i] = escape(t)
	}
	return strings.Join(out, " > ")
}

func literalText(l catalog.Literal) string { return l.Text() }

func csvRow(p *catalog.Product, paths, currencies, warehouses, locales []string, st map[string]int64, baseSKU string) []string {
	rec := []string{p.SKU, p.Status, p.Title, p.Description, p.Brand, strings.Join(paths, " | ")}
	for _, c := range currencies {
		v := ""
		for _, pr := range p.Prices {
			if pr.Currency == c && unrestricted(pr) {
				prec, _ := money.Precision(c)
				v = string(money.Major(pr.Amount, prec))
				break
			}
		}
		rec = append(rec, v)
	}
	var images []string
	for _, m := range p.Medias {
		images = append(images, escape(m.URL))
	}
	rec = append(rec, boolText(p.IsNetPrice), itoa(p.StockStatus), p.TaxCode, strings.Join(images, "|"))
	for _, wh := range warehouses {
		v := ""
		if q, ok := st[wh]; ok {
			v = itoa64(q)
		}
		rec = append(rec, v)
	}
	var vars, cls []string
	for _, v := range p.Variations {
		vars = append(vars, escape(v.ID)+"="+escape(v.Value))
	}
	for _, c := range p.Classifications {
		cls = append(cls, escape(c.ID)+"="+escape(literalText(c.Value)))
	}
	mods := make([]string, len(p.Modifiers))
	for i, m := range p.Modifiers {
		mods[i] = escape(m)
	}
	rec = append(rec, baseSKU, strings.Join(vars, "|"), strings.Join(mods, "|"), strings.Join(cls, "|"))
	for _, l := range locales {
		tr := p.Translations[l]
		rec = append(rec, tr.Title, tr.Description, tr.Slug)
	}
	return rec
}

func jsonProduct(p *catalog.Product, paths []string, st map[string]int64, baseSKU string) Product {
	prices := make([]*catalog.PriceInput, len(p.Prices))
	for i, pr := range p.Prices {
		prices[i] = priceInput(pr)
	}
	out := Product{SKU: &p.SKU, Status: &p.Status, Title: &p.Title, Description: &p.Description, Brand: &p.Brand,
		Categories: &paths, Prices: &prices, IsNetPrice: &p.IsNetPrice, StockStatus: &p.StockStatus, TaxCode: &p.TaxCode,
		Medias: &p.Medias, Classifications: &p.Classifications, Stock: st}
	if paths == nil {
		out.Categories = &[]string{}
	}
	if baseSKU != "" {
		out.Base = &baseSKU
		out.Variations = &p.Variations
	}
	if p.Modifiers != nil {
		out.Modifiers = &p.Modifiers
	}
	if len(p.Translations) > 0 {
		out.Translations = catalog.TranslationsInput{}
		for l, tr := range p.Translations {
			in := &catalog.TranslationInput{}
			if tr.Title != "" {
				in.Title = ptr(tr.Title)
			}
			if tr.Description != "" {
				in.Description = ptr(tr.Description)
			}
			if tr.Slug != "" {
				in.Slug = ptr(tr.Slug)
			}
			out.Translations[l] = in
		}
	}
	return out
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func itoa(n int) string { return itoa64(int64(n)) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// OrderColumns are the columns of order.export.
var OrderColumns = []string{"number", "date", "customerEmail", "sku", "quantity", "unitPrice", "discount", "tax", "total",
	"currency", "paymentStatus", "fulfillmentStatus"}

// OrderExport is a checked order.export: Write streams it.
type OrderExport struct {
	s      *Service
	filter order.Filter
}

// PrepareOrderExport checks the arguments of order.export before anything
// is sent. Error: validation_error.
func (s *Service) PrepareOrderExport(in OrderExportInput) (*OrderExport, error) {
	var ps commerce.Problems
	f := order.Filter{Statuses: in.Status}
	parse := func(name string, v *string) *time.Time {
		if v == nil || *v == "" {
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, *v)
		if err != nil {
			ps.Add(name, "must be an RFC 3339 date-time (2026-01-31T00:00:00Z)")
			return nil
		}
		return &t
	}
	f.CreatedFrom = parse("createdFrom", in.CreatedFrom)
	f.CreatedTo = parse("createdTo", in.CreatedTo)
	for i, st := range in.Status {
		if !slices.Contains(order.Statuses, st) {
			ps.Add(commerce.Index("status", i), "must be one of %s", strings.Join(order.Statuses, ", "))
		}
	}
	if err := ps.Err(); err != nil {
		return nil, err
	}
	return &OrderExport{s: s, filter: f}, nil
}

// Write streams the orders' items as CSV, a page of orders at a time.
func (e *OrderExport) Write(ctx context.Context, w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(OrderColumns); err != nil {
		return err
	}
	f := e.filter
	f.Limit = exportPage
	for f.Skip = 0; ; f.Skip += exportPage {
		page, err := e.s.store.Orders(ctx, f)
		if err != nil {
			return err
		}
		for _, o := range page {
			for _, it := range o.Items {
				m := func(v money.Money) string { return money.FormatMinor(v.Amount, v.Precision) }
				if err := cw.Write([]string{o.Number, o.CreatedAt.UTC().Format(time.RFC3339), o.Email, it.SKU, itoa64(it.Quantity),
					m(it.UnitPrice), m(it.Discount), m(it.Tax), m(it.Total), o.Currency, o.PaymentStatus, o.FulfillmentStatus}); err != nil {
					return err
				}
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		if fl, ok := w.(interface{ Flush() }); ok {
			fl.Flush()
		}
		if len(page) < exportPage {
			return nil
		}
	}
}

// categoryLine is a category as the JSON Lines format writes it.
func categoryLine(c *catalog.Category, path string) *Category {
	defs := make([]catalog.ClassificationDefInput, len(c.Classifications))
	for i, d := range c.Classifications {
		defs[i] = catalog.ClassificationDefInput{ID: ptr(d.ID), Description: ptr(d.Description), Type: ptr(d.Type), Mandatory: ptr(d.Mandatory)}
	}
	out := &Category{Path: path, Description: c.Description, Classifications: &defs}
	if c.ID != catalog.RootID {
		out.Slug = ptr(c.Slug)
	}
	return out
}
