package search

import (
	"slices"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// SearchInput is the argument of product.search.
type SearchInput struct {
	// Q are the words to find, each in the title, brand, sku or
	// description (case and accents ignored; the last word also as a
	// prefix).
	Q *string `json:"q"`
	// Categories matches the products in any of these categories or their
	// descendants.
	Categories commerce.StringList `json:"categories"`
	// Brand matches the products of any of these brands, exactly (as the
	// brand facet gives them).
	Brand commerce.StringList `json:"brand"`
	// PriceFrom matches the products whose lowest price in the currency is
	// at least this, in major units.
	PriceFrom *money.Number `json:"priceFrom"`
	// PriceTo matches the products whose lowest price in the currency is
	// at most this, in major units.
	PriceTo *money.Number `json:"priceTo"`
	// Currency is the ISO 4217 currency of the prices filtered, sorted and
	// counted (default USD).
	Currency *string `json:"currency" openapi:"pattern=currency"`
	// Facets are the counts to add: brand, categories, price.
	Facets commerce.StringList `json:"facets"`
	// Sort orders the products: relevance (the default with q), price,
	// -price, newest; else creation order.
	Sort *string `json:"sort"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
	// Locale is the language to search and answer in (one of --locales;
	// else the Accept-Language header's, else the default): q's words
	// are found in that locale's text or the default's.
	Locale *string `json:"locale"`
	commerce.PageArgs
}

// Query returns the store query and the page the input asks for.
// validation_error, naming each field at fault: the page; q longer than
// MaxQueryBytes or with more than MaxWords words; a currency that is not
// ISO 4217; a price bound that is not a number, is negative or has more
// decimals than the currency; priceFrom above priceTo; a facet or sort
// that does not exist.
func (in SearchInput) Query() (Query, commerce.Page, error) {
	page, err := in.Page()
	var p commerce.Problems
	if err != nil {
		for _, m := range commerce.ProblemsOf(err) {
			p = append(p, m)
		}
	}
	q := Query{Categories: in.Categories, Brands: in.Brand, Currency: DefaultCurrency, Limit: page.Limit, Skip: page.Skip}
	if in.Q != nil {
		// Invalid UTF-8 (a GET parameter may hold any bytes) as U+FFFD,
		// which separates words: a database would refuse the text.
		text := strings.ToValidUTF8(*in.Q, "\uFFFD")
		if len(*in.Q) > MaxQueryBytes {
			p.Add("q", "at most %d bytes", MaxQueryBytes)
		} else if words := Words(text); len(words) > MaxWords {
			p.Add("q", "at most %d words", MaxWords)
		} else {
			q.Text, q.Words = text, words
		}
	}
	precision := 2
	if in.Currency != nil {
		q.Currency = *in.Currency
		prec, err := money.Precision(q.Currency)
		if err != nil || !money.ValidCurrency(q.Currency) {
			p.Add("currency", "must be an ISO 4217 currency code")
		} else {
			precision = prec
		}
	}
	bound := func(field string, n *money.Number) *int64 {
		if n == nil {
			return nil
		}
		d, problem := n.NonNegative()
		if problem != "" {
			p.Add(field, "%s", problem)
			return nil
		}
		v, err := d.Minor(precision)
		if err != nil {
			p.Add(field, "%s", err.Error())
			return nil
		}
		return &v
	}
	q.PriceFrom, q.PriceTo = bound("priceFrom", in.PriceFrom), bound("priceTo", in.PriceTo)
	if q.PriceFrom != nil && q.PriceTo != nil && *q.PriceFrom > *q.PriceTo {
		p.Add("priceTo", "must not be below priceFrom")
	}
	for i, f := range in.Facets {
		switch f {
		case FacetBrand:
			q.BrandFacet = true
		case FacetCategories:
			q.CategoryFacet = true
		case FacetPrice:
			q.PriceFacet = true
			q.PriceBounds = PriceBuckets(precision)
		default:
			p.Add(commerce.Index("facets", i), "must be one of brand, categories, price")
		}
	}
	q.Sort = SortCreation
	if len(q.Words) > 0 {
		q.Sort = SortRelevance
	}
	if in.Sort != nil {
		switch s := *in.Sort; {
		case s == SortRelevance:
			if len(q.Words) == 0 {
				s = SortCreation // nothing to rank: creation order
			}
			q.Sort = s
		case slices.Contains([]string{SortPrice, SortPriceDesc, SortNewest}, s):
			q.Sort = s
		default:
			p.Add("sort", "must be one of relevance, price, -price, newest")
		}
	}
	return q, page, p.Err()
}
