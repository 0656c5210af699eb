package catalog

import (
	"context"

	"github.com/commercekit/commerce"
)

// PrepareImport is what the catalog import (package transfer) needs of
// product.create and product.update inside its own transaction: it merges
// in into a copy of old (a new product with a fresh id when old is nil),
// checks the result against every rule CreateProduct and UpdateProduct
// check, in their order, and returns the product as it is to be stored.
// Nothing is written: the caller writes it with tx.CreateProducts or
// tx.UpdateProduct and emits its event, and calls Changed after the commit.
// The required fields of create are the caller's to check.
func (s *Service) PrepareImport(ctx context.Context, tx Tx, old *Product, in ProductFields) (*Product, error) {
	if old == nil {
		p := &Product{ID: commerce.NewID(), TaxCode: DefaultTaxCode, Categories: []string{}}
		if err := s.prepare(ctx, tx, p, in, true); err != nil {
			return nil, err
		}
		return p, nil
	}
	p := cloneProduct(old)
	if err := s.prepare(ctx, tx, p, in, false); err != nil {
		return nil, err
	}
	return p, nil
}

// Changed empties the catalog's cache of this process after a change
// written outside the service's own use cases (an import's batch).
func (s *Service) Changed() { s.store.invalidate(-1) }

// ApplyCategoryImport sets the fields in gives (title, description, slug,
// classifications; not parent) on c and checks the result as
// category.update does (validation_error), for the import's category lines.
func ApplyCategoryImport(c *Category, in CategoryFields) error {
	in.Parent = nil
	return applyCategory(c, in, false)
}
