package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
)

// searchResult is the answer of product.search, for /openapi.json: the
// products hold the fields asked for, facets only the facets asked for.
type searchResult struct {
	Page   commerce.Page     `json:"page"`
	Total  int               `json:"total"`
	Data   []catalog.Product `json:"data"`
	Facets searchFacets      `json:"facets"`
	Locale string            `json:"locale"`
}

type searchFacets struct {
	Brand      []search.BrandCount    `json:"brand,omitempty"`
	Categories []search.CategoryCount `json:"categories,omitempty"`
	Price      []search.PriceBucket   `json:"price,omitempty"`
}

// RegisterSearch registers product.search under /catalog/v1/ (a read: GET
// or POST, any valid token; docs/api.md section 21). It answers {ok, page,
// total, data, facets}.
func RegisterSearch(s *Server, svc *search.Service) {
	Handle(s, Op{Service: "catalog", Name: "product.search", Read: true, Result: Partial(searchResult{}),
		Doc: "ONLINE products matching the words of q (the last also as a prefix) and the filters, ranked, a page at a time, with the facets asked for counted over the whole match; the words are found in the text of the locale asked for and the default's (docs/api.md section 27)."},
		func(ctx context.Context, a *search.SearchInput) (any, error) {
			return svc.Search(ctx, *a)
		})
}
