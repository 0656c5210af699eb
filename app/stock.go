package app

import (
	"context"
	"errors"

	"github.com/commercekit/commerce/stock"
)

// stockCatalog tells stock.create whether a product exists, from the
// catalog. It reads a.Catalog at call time, so the order in which the
// areas register does not matter.
func stockCatalog(a *App) stock.Catalog {
	return stock.CatalogFunc(func(ctx context.Context, id string) (bool, error) {
		if a.Catalog == nil {
			return false, errors.New("stock: the catalog area is not assembled")
		}
		products, err := a.Catalog.Products(ctx, []string{id})
		if err != nil {
			return false, err
		}
		_, ok := products[id]
		return ok, nil
	})
}
