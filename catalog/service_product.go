package catalog

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// CreateProduct creates a product and emits CREATE on PRODUCTS with {new,
// data}. Errors, in the order checked: validation_error (shape),
// max_categories_per_product_reached, inconsistent_base_variants_data,
// inconsistent_base_variations_data, category_not_found,
// base_product_not_found, variation_data_not_found, no_modifiers_found,
// variant_not_found, the classification codes, the price codes,
// duplicate_key (data: {index: "sku", sku}).
func (s *Service) CreateProduct(ctx context.Context, in CreateProductInput) (*Product, error) {
	if err := commerce.CheckArgs(in); err != nil { // the openapi tags: sku, status, title, categories, stockStatus
		return nil, err
	}
	var p *Product
	err := s.store.Update(ctx, func(tx Tx) error {
		p = &Product{ID: commerce.NewID(), TaxCode: DefaultTaxCode, Categories: []string{}}
		if err := s.prepare(ctx, tx, p, in.ProductFields, true); err != nil {
			return err
		}
		if err := tx.CreateProducts(ctx, []*Product{p}); err != nil {
			return err
		}
		return s.emit(tx, event.Products, event.Create, map[string]any{"new": p, "data": in})
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateProduct changes the fields in gives of product in.ID, validating the
// merged product as a whole as CreateProduct does, and emits UPDATE on
// PRODUCTS with {data, old, new}. Concurrent updates of one product never
// lose a write: the product is read, merged and written under its version,
// and re-done when the version moved; after UpdateAttempts tries it is
// product_not_saved. Errors: product_not_found, the codes of CreateProduct
// (inconsistent_base_variantions_data, sic, instead of
// inconsistent_base_variations_data), product_not_saved.
func (s *Service) UpdateProduct(ctx context.Context, in UpdateProductInput) (*Product, error) {
	id := in.ID
	if err := commerce.CheckArgs(in); err != nil {
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

// RemoveProduct removes a product and emits REMOVE on PRODUCTS with {id,
// old}. A Base product that still has Variants cannot be removed
// (validation_error): remove its Variants first. Removing a Variant takes
// it off its Base's variants. Its stock records go with it, and the
// carts' reservations of them (no event of their own: the REMOVE says
// it). Error: product_not_found.
func (s *Service) RemoveProduct(ctx context.Context, id string) error {
	if err := requireID(id); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx Tx) error {
		old, _, err := tx.Product(ctx, id, true)
		if err != nil {
			return err
		}
		has, err := tx.HasVariants(ctx, id)
		if err != nil {
			return err
		}
		if has {
			return commerce.Invalid("id: the product is the base of Variant products; remove them first")
		}
		if err := tx.RemoveProduct(ctx, id); err != nil {
			return err
		}
		return s.emit(tx, event.Products, event.Remove, map[string]any{"id": id, "old": old})
	})
}

// Product returns a product (any status). Error: product_not_found.
func (s *Service) Product(ctx context.Context, id string) (*Product, error) {
	if err := requireID(id); err != nil {
		return nil, err
	}
	return s.store.Product(ctx, id)
}

// ViewProduct returns a product as Product does and records a VIEWED event
// on PRODUCTS with {date, productId, userId} (userId: the caller's token
// subject), written in the background.
func (s *Service) ViewProduct(ctx context.Context, id string) (*Product, error) {
	p, err := s.Product(ctx, id)
	if err != nil {
		return nil, err
	}
	s.viewedEvent(ctx, p.ID)
	return p, nil
}

// ViewProductJSON is ViewProduct answering the product's JSON form
// (json.Marshal of the product), encoded once while the product is cached:
// what product.info without `fields` sends.
func (s *Service) ViewProductJSON(ctx context.Context, id string) ([]byte, error) {
	if err := requireID(id); err != nil {
		return nil, err
	}
	p, b, err := s.store.ProductJSON(ctx, id)
	if err != nil {
		return nil, err
	}
	s.viewedEvent(ctx, p.ID)
	return b, nil
}

// viewed is the payload of a VIEWED event.
type viewed struct {
	Date      time.Time `json:"date"`
	ProductID string    `json:"productId"`
	UserID    string    `json:"userId"`
}

// viewedEvent queues the VIEWED event of a product read. An event that
// cannot be built is logged, not the caller's failure (VIEWED events may
// be lost).
func (s *Service) viewedEvent(ctx context.Context, productID string) {
	if s.viewed == nil {
		return
	}
	claims, _ := commerce.ClaimsFrom(ctx) // no claims: an empty userId
	now := s.now().UTC()
	e, err := event.New(event.Products, event.Viewed, now, viewed{Date: now, ProductID: productID, UserID: claims.Subject})
	if err != nil {
		s.logger().ErrorContext(ctx, "catalog: VIEWED event not recorded", "product", productID, "err", err)
		return
	}
	s.viewed.Add(e)
}

// Products returns the products with the given ids, by id, whatever their
// status (callers such as the cart decide what DRAFT and DISCONTINUED
// mean); unknown ids are left out of the map. One query, whatever the
// number of ids.
func (s *Service) Products(ctx context.Context, ids []string) (map[string]*Product, error) {
	if len(ids) == 0 {
		return map[string]*Product{}, nil
	}
	return s.store.Products(ctx, dedupe(ids))
}

// CategoryAncestors returns, for each given product id that exists, the
// ids of its categories and of all their ancestors (ROOT included), each
// once: the categories the product counts for in promotions. A Variant
// product without categories of its own counts for its Base's. Unknown ids
// are left out.
func (s *Service) CategoryAncestors(ctx context.Context, productIDs []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(productIDs) == 0 {
		return out, nil
	}
	paths, err := s.store.ProductCategoryPaths(ctx, dedupe(productIDs))
	if err != nil {
		return nil, err
	}
	for id, ps := range paths {
		seen := map[string]bool{}
		list := []string{}
		for _, path := range ps {
			for c := range strings.SplitSeq(path, ".") {
				if !seen[c] {
					seen[c] = true
					list = append(list, c)
				}
			}
		}
		out[id] = list
	}
	return out, nil
}

// ListProducts returns a page of products matching f in creation order.
// DRAFT products are left out unless f.Statuses names DRAFT; skus and tax
// codes are compared as commerce.Key normalises them. Errors:
// validation_error (an invalid regular expression, one the database cannot
// match as RE2 does or one that runs beyond the store's time limit, naming
// the field; a String-List filter with more than commerce.MaxListValues
// values, named as the query names it; the aliases medias.customerType and
// medias.channel count with, and are reported as, prices.customerType and
// prices.channel).
func (s *Service) ListProducts(ctx context.Context, f ProductFilter) ([]*Product, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if len(f.Statuses) == 0 {
		f.Statuses = []string{StatusOnline}
	}
	f.SKUs, f.TaxCodes = commerce.Keys(f.SKUs), commerce.Keys(f.TaxCodes)
	return s.store.ListProducts(ctx, f)
}

// cloneProduct copies a product deeply enough for merging into the copy.
func cloneProduct(p *Product) *Product {
	c := *p
	c.Categories = slices.Clone(p.Categories)
	c.Prices = slices.Clone(p.Prices)
	c.Medias = slices.Clone(p.Medias)
	c.Classifications = slices.Clone(p.Classifications)
	c.Variations = slices.Clone(p.Variations)
	c.Modifiers = slices.Clone(p.Modifiers)
	c.Variants = slices.Clone(p.Variants)
	return &c
}
