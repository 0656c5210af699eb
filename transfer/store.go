package transfer

import (
	"context"
	"time"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/stock"
)

// Store is the storage the import and the exports need (implemented by
// package sqldb). Besides the codes each method names, any method may
// fail with unavailable or an internal error.
type Store interface {
	// Update runs fn in one write transaction of the catalog (its version
	// moves, as for every catalog change) and commits it with the events
	// fn emitted; fn's error rolls everything back and is returned. fn may
	// run more than once (a transient conflict).
	Update(ctx context.Context, fn func(tx Tx) error) error

	// CreateJob stores a new job; SaveJob writes its counters, status and
	// errors. Each is a transaction of its own, outside Update: a job's
	// progress is bookkeeping that must be seen while its rows are being
	// written, and it emits no event (CONVENTIONS.md).
	// SaveJob writes a RUNNING job only: ErrJobEnded when it no longer
	// is (another process ended it).
	CreateJob(ctx context.Context, j *Job) error
	SaveJob(ctx context.Context, j *Job) error
	// Job returns a job. job_not_found (data: the id).
	Job(ctx context.Context, id string) (*Job, error)
	// Beat records that the process running the job is alive (Job.Beat)
	// and reports whether the job is still RUNNING (false: another
	// process ended it as interrupted, or it is no more).
	Beat(ctx context.Context, id string, at time.Time) (bool, error)
	// StaleJobs returns the RUNNING jobs whose beat is before the time,
	// in creation order.
	StaleJobs(ctx context.Context, before time.Time) ([]*Job, error)
	// EndStale writes j's status, errors and end if the job is still
	// RUNNING with a beat before the time, and reports whether it did
	// (false: its process beat meanwhile, or another process ended it).
	EndStale(ctx context.Context, j *Job, before time.Time) (bool, error)

	// Categories returns every category, ROOT included, by level then
	// creation order.
	Categories(ctx context.Context) ([]*catalog.Category, error)
	// ProductSKUs returns the skus of the products with the given ids, by
	// id (unknown ids are left out).
	ProductSKUs(ctx context.Context, ids []string) (map[string]string, error)
	// Stocks returns the quantity on hand of the given products, by
	// product id, then warehouse id.
	Stocks(ctx context.Context, productIDs []string) (map[string]map[string]int64, error)
	// Warehouses returns the warehouse ids that hold stock records, sorted.
	Warehouses(ctx context.Context) ([]string, error)
	// Currencies returns the currencies of the products' prices, sorted.
	Currencies(ctx context.Context) ([]string, error)
	// Orders returns a page of orders matching f, in creation order.
	Orders(ctx context.Context, f order.Filter) ([]*order.Order, error)
}

// Tx is a write transaction of the import: the catalog's and the stock's
// views of one transaction.
type Tx interface {
	Emit(e event.Event)
	Catalog() catalog.Tx
	Stock() stock.Tx
	// SaveJob writes a job's progress in this transaction (with the rows
	// it counts); ErrJobEnded when the job is no longer RUNNING.
	SaveJob(ctx context.Context, j *Job) error
	// LockProducts returns the products with the given ids that exist,
	// with their versions and Variants filled in, holding their rows
	// until the transaction ends.
	LockProducts(ctx context.Context, ids []string) (map[string]Locked, error)
	// LockStocks returns the stock records of the given products, by
	// product id then warehouse id, holding their rows.
	LockStocks(ctx context.Context, productIDs []string) (map[string]map[string]stock.Stock, error)
	// CreateStocks inserts new stock records, nothing reserved.
	// duplicate_key when one exists.
	CreateStocks(ctx context.Context, sts []stock.Stock) error
	// ProductIDs returns the ids of the products with the given skus
	// (normalised as commerce.Key does), by sku; unknown skus are left out.
	ProductIDs(ctx context.Context, skus []string) (map[string]string, error)
}

// Locked is a product read under lock, with its version.
type Locked struct {
	Product *catalog.Product
	Version int64
}
