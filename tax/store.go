package tax

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/table"
	"github.com/commercekit/commerce/money"
)

// Store keeps the taxes (implemented by package sqldb). Reads outside a
// transaction see committed data; changes go through Update.
type Store interface {
	// Update runs fn in one write transaction (see table.Store).
	table.Store[Tx]

	// Tax returns the tax with the id. Errors: tax_not_found (see
	// NotFound).
	Tax(ctx context.Context, id string) (Tax, error)
	// Taxes returns the taxes matching f in creation order, f.Skip of them
	// skipped and at most f.Limit. Errors: validation_error naming the
	// field ("title: ...") for a pattern the database cannot match as RE2
	// does, or one that took longer than the store's time limit.
	Taxes(ctx context.Context, f Filter) ([]Tax, error)
	// TaxesByCode returns, in one query, every tax whose code is one of
	// codes, in creation order. No error codes of its own.
	TaxesByCode(ctx context.Context, codes []string) ([]Tax, error)
	// Version returns the taxes' version, which every Update moves in its
	// transaction: a process keeping the taxes in memory compares it to
	// tell whether its copy is out of date (see cache.go).
	Version(ctx context.Context) (int64, error)
}

// Tx is a write transaction of the tax area.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)

	// Tax returns the tax with the id, its row locked against concurrent
	// changes until the transaction ends. Errors: tax_not_found (see
	// NotFound).
	Tax(ctx context.Context, id string) (Tax, error)
	// CreateTax inserts t (its ID set). Errors: duplicate_key on an id
	// clash (ids are random, so practically never).
	CreateTax(ctx context.Context, t Tax) error
	// UpdateTax stores t over the tax with t.ID. Errors: tax_not_found
	// (see NotFound).
	UpdateTax(ctx context.Context, t Tax) error
	// RemoveTax deletes the tax with the id and returns it. Errors:
	// tax_not_found (see NotFound).
	RemoveTax(ctx context.Context, id string) (Tax, error)
}

// Filter selects taxes for Store.Taxes. Empty lists and nil fields do not
// filter.
type Filter struct {
	IDs     []string
	Codes   []string
	Classes []string
	// Title and Description match anywhere in the field,
	// case-insensitively. They are valid patterns
	// (commerce.Pattern.Check: the caller checks them).
	Title, Description *commerce.Pattern
	Rate               *money.Decimal // equal value, in normal form (see Service)
	IsPercentage       *bool
	Limit, Skip        int
}

// ProductTax is what the tax computation needs to know about a product.
type ProductTax struct {
	// TaxCode selects the taxes; empty means DefaultCode.
	TaxCode    string
	IsNetPrice bool
}

// Products gives the tax data of products (the catalog, wired in by the
// app).
type Products interface {
	// ProductTaxes returns, in one batch, the tax data of each product of
	// ids that exists; ids not found are absent from the map.
	ProductTaxes(ctx context.Context, ids []string) (map[string]ProductTax, error)
}

// ProductsFunc adapts a function to Products.
type ProductsFunc func(ctx context.Context, ids []string) (map[string]ProductTax, error)

// ProductTaxes calls f(ctx, ids).
func (f ProductsFunc) ProductTaxes(ctx context.Context, ids []string) (map[string]ProductTax, error) {
	return f(ctx, ids)
}
