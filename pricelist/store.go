package pricelist

import (
	"context"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
)

// Store keeps the price lists (implemented by package sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted, moving the lists' version; fn's error rolls
	// everything back and is returned. fn may run more than once.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// PriceList returns a list with its prices. Errors:
	// price_list_not_found (data: id).
	PriceList(ctx context.Context, id string) (*PriceList, error)
	// PriceLists returns a page of lists, with their prices, in creation
	// order.
	PriceLists(ctx context.Context, f Filter) ([]PriceList, error)
	// Active returns every ACTIVE list with its prices, and the version
	// read before them.
	Active(ctx context.Context) (int64, []PriceList, error)
	// Version returns the lists' version, which every Update moves.
	Version(ctx context.Context) (int64, error)
}

// Tx is a write transaction of the price lists.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)
	// Lock returns a list with its prices, its row locked until the
	// transaction ends. Errors: price_list_not_found (data: id).
	Lock(ctx context.Context, id string) (*PriceList, error)
	// CodeOwner returns the id of the list with the code, "" when none.
	CodeOwner(ctx context.Context, code string) (string, error)
	// Insert stores a new list with its prices (Seq set). Errors:
	// duplicate_key.
	Insert(ctx context.Context, l *PriceList) error
	// Save stores a list over the one with its id, its prices replacing
	// the stored ones.
	Save(ctx context.Context, l *PriceList) error
	// Delete deletes a list with its prices.
	Delete(ctx context.Context, id string) error
}

// Filter selects lists for Store.PriceLists; empty lists do not filter.
type Filter struct {
	Codes      []string
	Statuses   []string
	ProductIDs []string
	Groups     []string // the lists naming any of them (not those for everyone)
	Limit      int
	Skip       int
}

// Products returns, in one batch, the products with the given ids that
// exist, by id (catalog.Service.Products).
type Products func(ctx context.Context, ids []string) (map[string]*catalog.Product, error)
