package shipping

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/table"
)

// Store keeps the shipping methods (implemented by package sqldb). Reads
// outside a transaction see committed data; changes go through Update.
type Store interface {
	// Update runs fn in one write transaction (see table.Store).
	table.Store[Tx]

	// Method returns the method with the id. Errors: shipping_not_found
	// (see NotFound).
	Method(ctx context.Context, id string) (Method, error)
	// Methods returns the methods matching f in creation order, f.Skip of
	// them skipped and at most f.Limit. Errors: validation_error naming
	// the field ("title: ...") for a pattern the database cannot match as
	// RE2 does, or one that took longer than the store's time limit.
	Methods(ctx context.Context, f Filter) ([]Method, error)
	// ActiveMethods returns, in one query and in creation order, the active
	// methods that have a location in the country (the candidates for an
	// address there). No error codes of its own.
	ActiveMethods(ctx context.Context, country string) ([]Method, error)
	// Version returns the methods' version, which every Update moves in
	// its transaction: a process keeping the methods in memory compares it
	// to tell whether its copy is out of date (see cache.go).
	Version(ctx context.Context) (int64, error)
}

// Tx is a write transaction of the shipping area. Methods are never
// changed, only created and removed.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)

	// CreateMethod inserts m (its ID and rate group IDs set). Errors:
	// duplicate_key on an id clash (ids are random, so practically never).
	CreateMethod(ctx context.Context, m Method) error
	// RemoveMethod deletes the method with the id and returns it. Errors:
	// shipping_not_found (see NotFound).
	RemoveMethod(ctx context.Context, id string) (Method, error)
}

// Filter selects methods for Store.Methods. Empty lists and nil fields do
// not filter.
type Filter struct {
	IDs []string
	// Countries keeps the methods with a location in any of them.
	Countries []string
	TaxCodes  []string
	Active    *bool
	// Title matches anywhere in the title, case-insensitively. It is a
	// valid pattern (commerce.Pattern.Check: the caller checks it).
	Title       *commerce.Pattern
	Limit, Skip int
}
