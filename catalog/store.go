package catalog

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// ProductFilter selects products for ListProducts. Every field is optional;
// lists match any of their values; Title, Description and Brand are
// case-insensitive RE2 regular expressions matching anywhere. The price
// filters apply to one and the same price of the product (a product matches
// when one of its prices satisfies all of them). SKUs and TaxCodes are
// compared as commerce.Key normalises them (the service does).
type ProductFilter struct {
	IDs           []string
	SKUs          []string
	Title         *commerce.Pattern
	Description   *commerce.Pattern
	Statuses      []string // the service defaults it to ONLINE only
	Brand         *commerce.Pattern
	TaxCodes      []string
	StockStatuses []int
	IsNetPrice    *bool
	Bases         []string
	// Categories matches products that list one of the categories itself
	// (the field's values; descendants are not expanded).
	Categories         []string
	PriceIDs           []string
	PriceCurrencies    []string
	PriceCountries     []string
	PriceCustomerTypes []string
	PriceChannels      []string
	MediaIDs           []string
	Limit, Skip        int
}

// CategoryFilter selects categories for ListCategories. Title and
// Description are case-insensitive RE2 regular expressions matching
// anywhere; Path is one that must match at the start of the path. Slugs are
// compared as commerce.Key normalises them (the service does).
type CategoryFilter struct {
	IDs         []string
	Title       *commerce.Pattern
	Description *commerce.Pattern
	Slugs       []string
	Parents     []string
	Path        *commerce.Pattern
	Limit, Skip int
}

// Store is the storage of the catalog. Reads outside a transaction see
// committed data; changes go through Update. Besides the codes each method
// names, any method may fail with unavailable (the storage cannot be
// reached) or an internal error.
type Store interface {
	// Update runs fn in a write transaction and commits it with the events
	// fn emitted; fn's error rolls everything back (events included) and
	// is returned. fn may run more than once (a transient conflict of the
	// database), so it must have no effect outside the transaction;
	// concurrent_modification when the conflicts do not stop.
	Update(ctx context.Context, fn func(tx Tx) error) error

	// Product returns a product, with Variants filled in for a Base
	// product. product_not_found (data: the id) when there is none.
	Product(ctx context.Context, id string) (*Product, error)
	// Products returns the products with the given ids that exist, by id,
	// Variants filled in; unknown ids are left out. It never fails for an
	// unknown id.
	Products(ctx context.Context, ids []string) (map[string]*Product, error)
	// ListProducts returns a page of the products matching f, in creation
	// order, Variants filled in. f is valid (patterns checked, Statuses
	// set, lists within commerce.MaxListValues). validation_error naming
	// the regex fields of f ("title: ...") for a pattern the database
	// cannot match as RE2 does, or refuses as too complex, and for a read
	// stopped at the store's regex time limit ("<field>: pattern took too
	// long to match", for each regex field given: the store cannot tell
	// which one is to blame).
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
	// creation order. f is valid; validation_error as ListProducts (a
	// Path pattern is reported as "path").
	ListCategories(ctx context.Context, f CategoryFilter) ([]*Category, error)

	// Version returns the catalog's version: a number that changes in
	// the transaction of every Update, so that each process sharing the
	// storage can tell with one cheap read whether its cache of products
	// is out of date.
	Version(ctx context.Context) (int64, error)
}

// Tx is a write transaction of the catalog.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)

	// LockTree serialises changes of the category tree (create, move,
	// remove) across processes until the transaction ends.
	// category_not_found (data: ROOT) when the root is missing.
	LockTree(ctx context.Context) error
	// Categories returns the categories with the given ids that exist, by
	// id; unknown ids are left out.
	Categories(ctx context.Context, ids []string) (map[string]*Category, error)
	// CategoryUse reports whether a category has child categories and
	// whether products belong to it.
	CategoryUse(ctx context.Context, id string) (children, products bool, err error)
	// CreateCategory inserts a category. duplicate_key (data: {index:
	// "parent_slug", parent, slug}) when its parent has a child with the
	// slug; parent_category_not_found when the parent is gone.
	CreateCategory(ctx context.Context, c *Category) error
	// UpdateCategory stores c over old (same id); when the path changed, the
	// level and path of the whole subtree follow. duplicate_key and
	// parent_category_not_found as CreateCategory.
	UpdateCategory(ctx context.Context, old, c *Category) error
	// RemoveCategory deletes a category. category_not_empty (data: the id)
	// when it still has children or products; category_not_found (data:
	// the id) when there is none.
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
	// use or given twice; category_not_found (data: a category id) when a
	// category is gone.
	CreateProducts(ctx context.Context, ps []*Product) error
	// UpdateProduct stores p if its version is still version (the
	// version becomes version+1). product_not_saved when it is not (or the
	// product is gone); duplicate_key and category_not_found as
	// CreateProducts.
	UpdateProduct(ctx context.Context, p *Product, version int64) error
	// RemoveProduct deletes a product, with its stock records and their
	// reservations (stock of a product that does not exist is an orphan).
	// product_not_found (data: the id).
	RemoveProduct(ctx context.Context, id string) error
}
