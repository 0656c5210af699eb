package search

import (
	"context"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
)

// Products reads products by id (catalog.Service.Products): unknown ids
// are left out.
type Products func(ctx context.Context, ids []string) (map[string]*catalog.Product, error)

// Service runs product searches.
type Service struct {
	store    Store
	products Products
	// Locales are the store's languages, the default first (--locales;
	// the zero value is en alone).
	Locales commerce.Locales
}

// NewService returns the search service over store; products reads the
// page's products when the store returns ids alone.
func NewService(store Store, products Products) *Service {
	return &Service{store: store, products: products}
}

// Answer is the answer of product.search.
type Answer struct {
	Page  commerce.Page `json:"page"`
	Total int           `json:"total"`
	Data  []any         `json:"data"`
	// Facets holds the facets asked for, by name: brand []BrandCount,
	// categories []CategoryCount, price []PriceBucket.
	Facets map[string]any `json:"facets"`
	// Locale is the language of the search and of the products' text.
	Locale string `json:"locale"`
}

// Search runs product.search: validation_error for a bad input (see
// SearchInput.Query), nothing else of its own.
func (s *Service) Search(ctx context.Context, in SearchInput) (*Answer, error) {
	locale, lerr := s.Locales.Resolve(ctx, in.Locale)
	q, page, err := in.Query()
	if err != nil || lerr != nil {
		return nil, joinProblems(err, lerr)
	}
	q.Locale = locale
	if locale != s.Locales.Default() {
		q.Marker = LocaleMarker(locale)
	}
	res, err := s.store.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	ps := res.Products
	if ps == nil && len(res.IDs) > 0 {
		byID, err := s.products(ctx, res.IDs)
		if err != nil {
			return nil, err
		}
		for _, id := range res.IDs {
			if p := byID[id]; p != nil { // removed since the index answered
				ps = append(ps, p)
			}
		}
	}
	data, err := commerce.ProjectAll(catalog.LocalizeProducts(ps, locale), in.Fields)
	if err != nil {
		return nil, err
	}
	out := &Answer{Page: page, Total: res.Total, Data: data, Facets: map[string]any{}, Locale: locale}
	if q.BrandFacet {
		out.Facets[FacetBrand] = nonNil(res.Brands)
	}
	if q.CategoryFacet {
		out.Facets[FacetCategories] = nonNil(res.Categories)
	}
	if q.PriceFacet {
		precision, err := money.Precision(q.Currency)
		if err != nil {
			return nil, fmt.Errorf("price facet: %w", err)
		}
		buckets := []PriceBucket{}
		for i, n := range res.Prices {
			if n == 0 || i >= len(q.PriceBounds) {
				continue
			}
			b := PriceBucket{From: money.Major(q.PriceBounds[i], precision), Count: n}
			if i+1 < len(q.PriceBounds) {
				to := money.Major(q.PriceBounds[i+1], precision)
				b.To = &to
			}
			buckets = append(buckets, b)
		}
		out.Facets[FacetPrice] = buckets
	}
	return out, nil
}

// Reindex rebuilds the search index (`commerce search reindex`) and returns
// how many products it holds.
func (s *Service) Reindex(ctx context.Context) (int, error) {
	return s.store.Reindex(ctx)
}

// joinProblems returns the problems of a and b in one validation_error
// (either may be nil).
func joinProblems(a, b error) error {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	var p commerce.Problems
	for _, m := range commerce.ProblemsOf(a) {
		p = append(p, m)
	}
	for _, m := range commerce.ProblemsOf(b) {
		p = append(p, m)
	}
	return p.Err()
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
