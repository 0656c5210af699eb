package catalog

import (
	"context"
	"slices"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// AddMedia appends an entry to a product's medias in one transaction (an
// uploaded image, docs/api.md section 23), as product.update with the
// medias so extended would, and emits UPDATE on PRODUCTS with data {id,
// medias}. Errors: product_not_found, product_not_saved, validation_error
// (an entry of that id is there already).
func (s *Service) AddMedia(ctx context.Context, id string, m Media) (*Product, error) {
	if err := requireID(id); err != nil {
		return nil, err
	}
	var p *Product
	var err error
	for range max(1, s.UpdateAttempts) {
		err = s.store.Update(ctx, func(tx Tx) error {
			old, version, err := tx.Product(ctx, id, true)
			if err != nil {
				return err
			}
			medias := append(slices.Clone(old.Medias), m)
			in := UpdateProductInput{ID: id, ProductFields: ProductFields{Medias: &medias}}
			p = cloneProduct(old)
			if err := s.prepare(ctx, tx, p, in.ProductFields, false); err != nil {
				return err
			}
			if err := tx.UpdateProduct(ctx, p, version); err != nil {
				return err
			}
			return s.emit(tx, event.Products, event.Update, map[string]any{"data": in, "old": old, "new": p})
		})
		if commerce.ErrorCode(err) != commerce.EProductNotSaved {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}
