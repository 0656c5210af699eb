package app

import (
	"context"
	"errors"

	"github.com/commercekit/commerce/tax"
)

// taxProducts gives tax.cartTaxes the taxCode and isNetPrice of products
// from the catalog, in one batch get. It reads a.Catalog at call time, so
// the order in which the areas register does not matter.
func taxProducts(a *App) tax.Products {
	return tax.ProductsFunc(func(ctx context.Context, ids []string) (map[string]tax.ProductTax, error) {
		if a.Catalog == nil {
			return nil, errors.New("tax: the catalog area is not assembled")
		}
		products, err := a.Catalog.Products(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make(map[string]tax.ProductTax, len(products))
		for id, p := range products {
			out[id] = tax.ProductTax{TaxCode: p.TaxCode, IsNetPrice: p.IsNetPrice}
		}
		return out, nil
	})
}
