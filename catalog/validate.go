package catalog

import (
	"strings"

	"github.com/commercekit/commerce"
)

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// checkProduct checks the fields of a product about to be stored that need
// no other record: required fields, allowed values, empty and duplicate
// entries. It returns a validation_error listing every problem.
func checkProduct(p *Product) error {
	var ps commerce.Problems
	if blank(p.SKU) {
		ps.Add("sku", "required")
	}
	if p.Status != StatusOnline && p.Status != StatusDraft {
		ps.Add("status", "must be ONLINE or DRAFT")
	}
	if blank(p.Title) {
		ps.Add("title", "required")
	}
	ps.CheckLen("title", p.Title, commerce.MaxTitleLen)
	ps.CheckLen("brand", p.Brand, commerce.MaxTitleLen)
	ps.CheckLen("description", p.Description, commerce.MaxTextLen)
	if p.StockStatus < StockNormal || p.StockStatus > StockDiscontinued {
		ps.Add("stockStatus", "must be 0 (NORMAL), 1 (UNLIMITED) or 2 (DISCONTINUED)")
	}
	if blank(p.TaxCode) {
		ps.Add("taxCode", "must not be empty")
	}
	if p.Categories == nil {
		ps.Add("categories", "required")
	} else if len(p.Categories) == 0 && p.Base == "" && len(p.Variations) == 0 {
		ps.Add("categories", "must not be empty (only a Variant product may have no categories)")
	}
	uniqueStrings(&ps, "categories", p.Categories)
	uniqueIDs(&ps, "medias", "media id", p.Medias, func(m Media) string { return m.ID })
	for i, m := range p.Medias {
		if blank(m.URL) {
			ps.Add(commerce.Index("medias", i)+".url", "required")
		}
		if m.Width < 0 || m.Height < 0 {
			ps.Add(commerce.Index("medias", i), "width and height must not be negative")
		}
	}
	uniqueIDs(&ps, "classifications", "classification", p.Classifications, func(c ClassificationValue) string { return c.ID })
	uniqueStrings(&ps, "modifiers", p.Modifiers)
	uniqueIDs(&ps, "variations", "variation", p.Variations, func(v Variation) string { return v.ID })
	return ps.Err()
}

// uniqueStrings adds a problem for each blank or repeated element of list.
func uniqueStrings(ps *commerce.Problems, field string, list []string) {
	seen := make(map[string]bool, len(list))
	for i, s := range list {
		switch {
		case blank(s):
			ps.Add(commerce.Index(field, i), "must not be empty")
		case seen[s]:
			ps.Add(commerce.Index(field, i), "duplicate %q", s)
		}
		seen[s] = true
	}
}

// uniqueIDs adds a problem for each element of list whose id is blank
// ("medias[0].id: required") or repeated ("... duplicate media id "m"").
func uniqueIDs[T any](ps *commerce.Problems, field, what string, list []T, id func(T) string) {
	seen := make(map[string]bool, len(list))
	for i, e := range list {
		s := id(e)
		switch {
		case blank(s):
			ps.Add(commerce.Index(field, i)+".id", "required")
		case seen[s]:
			ps.Add(commerce.Index(field, i)+".id", "duplicate %s %q", what, s)
		}
		seen[s] = true
	}
}

// checkCategory checks a category about to be stored (the fields that need
// no other record) and returns a validation_error listing every problem.
func checkCategory(c *Category) error {
	var ps commerce.Problems
	if blank(c.Title) {
		ps.Add("title", "required")
	}
	ps.CheckLen("title", c.Title, commerce.MaxTitleLen)
	if c.Description != nil {
		ps.CheckLen("description", *c.Description, commerce.MaxTextLen)
	}
	for i, d := range c.Classifications {
		ps.CheckLen(commerce.Index("classifications", i)+".description", d.Description, commerce.MaxTextLen)
	}
	if c.ID != RootID {
		if blank(c.Slug) {
			ps.Add("slug", "required")
		} else if strings.ContainsAny(c.Slug, " \t\r\n/?#") {
			ps.Add("slug", "must not contain spaces, '/', '?' or '#'")
		}
	}
	return ps.Err()
}

// The filter checks repeat what the transport checks already, for
// in-process callers: the size of each list filter (commerce.MaxListValues,
// named as the query names it) and each regex pattern
// (commerce.Pattern.Check: a pattern the store cannot run must never reach
// it).

// check returns a validation_error listing the problems of the filter.
// The aliases medias.customerType and medias.channel count with, and are
// reported as, prices.customerType and prices.channel.
func (f ProductFilter) check() error {
	var ps commerce.Problems
	for _, l := range []struct {
		field string
		n     int
	}{
		{"id", len(f.IDs)}, {"sku", len(f.SKUs)}, {"status", len(f.Statuses)}, {"taxCode", len(f.TaxCodes)},
		{"stockStatus", len(f.StockStatuses)}, {"base", len(f.Bases)}, {"categories", len(f.Categories)},
		{"prices.id", len(f.PriceIDs)}, {"prices.currency", len(f.PriceCurrencies)}, {"prices.country", len(f.PriceCountries)},
		{"prices.customerType", len(f.PriceCustomerTypes)}, {"prices.channel", len(f.PriceChannels)}, {"medias.id", len(f.MediaIDs)},
	} {
		checkListSize(&ps, l.field, l.n)
	}
	checkPattern(&ps, "title", f.Title)
	checkPattern(&ps, "description", f.Description)
	checkPattern(&ps, "brand", f.Brand)
	return ps.Err()
}

// check returns a validation_error listing the problems of the filter.
func (f CategoryFilter) check() error {
	var ps commerce.Problems
	checkListSize(&ps, "id", len(f.IDs))
	checkListSize(&ps, "slug", len(f.Slugs))
	checkListSize(&ps, "parent", len(f.Parents))
	checkPattern(&ps, "title", f.Title)
	checkPattern(&ps, "description", f.Description)
	checkPattern(&ps, "path", f.Path)
	return ps.Err()
}

func checkListSize(ps *commerce.Problems, field string, n int) {
	if n > commerce.MaxListValues {
		ps.Add(field, "at most %d values", commerce.MaxListValues)
	}
}

func checkPattern(ps *commerce.Problems, field string, p *commerce.Pattern) {
	if p == nil {
		return
	}
	if msg := p.Check(); msg != "" {
		ps.Add(field, "%s", msg)
	}
}
