package catalog

import (
	"context"

	"github.com/commercekit/commerce/event"
)

// Store is the storage of the catalog. Reads outside a transaction see
// committed data; changes go through Update.
type Store interface {
	// Update runs fn in a write transaction and commits it with the events
	// fn emitted. fn may run more than once (a transient conflict of the
	// database), so it must have no effect outside the transaction. It
	// returns fn's error.
	Update(ctx context.Context, fn func(tx Tx) error) error

	// Product returns a product, with Variants filled in for a Base
	// product. product_not_found (data: the id) when there is none.
	Product(ctx context.Context, id string) (*Product, error)
	// Products returns the products with the given ids that exist, by id,
	// Variants filled in; unknown ids are left out. It never fails for an
	// unknown id.
	Products(ctx context.Context, ids []string) (map[string]*Product, error)
	// ListProducts returns a page of the products matching f, in creation
	// order, Variants filled in. f is valid (regular expressions compile,
	// Statuses set, lists within commerce.MaxListValues); validation_error naming
	// the field for a regular expression the database cannot match as RE2
	// does.
	ListProducts(ctx context.Context, f ProductFilter) ([]*Product, error)
	// ProductCategoryPaths returns, for each product id that exists, the
	// paths of its categories; a product without categories of its own gets
	// those of its base product. Unknown ids are left out.
	ProductCategoryPaths(ctx context.Context, ids []string) (map[string][]string, error)

	// Category returns a category. category_not_found (data: the id).
	Category(ctx context.Context, id string) (*Category, error)
	// Descendants returns every category below c (not c itself), ordered by
	// level, then creation order.
	Descendants(ctx context.Context, c *Category) ([]*Category, error)
	// Children returns the direct children of category id, in creation
	// order (an empty list for a leaf or an unknown id).
	Children(ctx context.Context, id string) ([]*Category, error)
	// ListCategories returns a page of the categories matching f, in
	// creation order. f is valid; validation_error as ListProducts.
	ListCategories(ctx context.Context, f CategoryFilter) ([]*Category, error)
}

// Tx is a write transaction of the catalog.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)

	// LockTree serialises changes of the category tree (create, move,
	// remove) across processes until the transaction ends.
	LockTree(ctx context.Context) error
	// Categories returns the categories with the given ids that exist, by id.
	Categories(ctx context.Context, ids []string) (map[string]*Category, error)
	// CategoryUse reports whether a category has child categories and
	// whether products belong to it.
	CategoryUse(ctx context.Context, id string) (children, products bool, err error)
	// CreateCategory inserts a category. duplicate_key (data: {index:
	// "parent_slug", parent, slug}) when its parent has a child with the
	// slug; parent_category_not_found when the parent is gone.
	CreateCategory(ctx context.Context, c *Category) error
	// UpdateCategory stores c over old (same id); when the path changed, the
	// level and path of the whole subtree follow. duplicate_key as
	// CreateCategory.
	UpdateCategory(ctx context.Context, old, c *Category) error
	// RemoveCategory deletes a category. category_not_empty (data: the id)
	// when it still has children or products.
	RemoveCategory(ctx context.Context, id string) error

	// Product returns a product and its version, with Variants filled in
	// for a Base product; lock holds the product's row until the end of
	// the transaction. product_not_found (data: the id).
	Product(ctx context.Context, id string, lock bool) (*Product, int64, error)
	// ProductBases returns, for each given id that exists, the product's
	// base ("" for a product that is not a Variant).
	ProductBases(ctx context.Context, ids []string) (map[string]string, error)
	// HasVariants reports whether a Variant product names id as its base.
	HasVariants(ctx context.Context, id string) (bool, error)
	// CreateProducts inserts products (Variants are not stored: they are
	// computed). duplicate_key (data: {index: "sku", sku}) for a sku in
	// use; category_not_found when a category is gone.
	CreateProducts(ctx context.Context, ps []*Product) error
	// UpdateProduct stores p if its version is still version.
	// product_not_saved when it is not; duplicate_key as CreateProducts.
	UpdateProduct(ctx context.Context, p *Product, version int64) error
	// RemoveProduct deletes a product. product_not_found (data: the id).
	RemoveProduct(ctx context.Context, id string) error
}
