// Package transfer is the catalog's import and export (docs/api.md
// section 25): product.import reads a file in the `commerce` CSV, the
// `commerce` JSON Lines or Shopify's product CSV format and creates or
// updates each product by sku in a background job that job.info follows;
// product.export streams the catalog in the `commerce` formats and
// order.export the orders as CSV, one row per order item.
//
// Layout (CONVENTIONS.md): transfer.go the records (Job, RowError) and
// errors, input.go the arguments, store.go the storage it needs, row.go the
// format-independent row every reader produces, commerce.go, jsonl.go and
// shopify.go the readers, service.go the jobs, apply.go the writing of a
// batch of rows, export.go the exports.
package transfer

import (
	"time"

	"github.com/commercekit/commerce"
)

// Job statuses.
const (
	JobRunning = "RUNNING"
	JobDone    = "DONE"
	JobFailed  = "FAILED"
)

// Import formats.
const (
	FormatCommerce = "commerce"
	FormatShopify  = "shopify"
)

// EInterrupted is the error of a job whose process stopped without ending
// it (killed, crashed, the machine lost): the job is FAILED with it, line 0,
// its data saying so. It is a job's error only, never an operation's.
const EInterrupted = "interrupted"

// ErrJobEnded is what saving a job's progress returns when the job is no
// longer RUNNING: another process ended it as interrupted (its process
// seemed gone). The batch that would have saved it is rolled back and the
// job stops, writing nothing more.
var ErrJobEnded = &commerce.Error{Code: commerce.EConcurrentMod, Message: "the import job was ended by another process"}

// MaxErrors is how many row errors a job keeps (the first ones).
const MaxErrors = 1000

// Job is an import: its counters move on as its rows are written. Rows is
// the number of products the file holds (0 until the file has been read
// through); Processed counts the rows done, each of them created, updated,
// unchanged or rejected.
type Job struct {
	// ID identifies the job (job.info).
	ID string `json:"id"`
	// Status is RUNNING, then DONE, or FAILED when the file as a whole
	// was refused (its error is in Errors) or the job stopped.
	Status string `json:"status"`
	// Format is the format the file was read in: commerce or shopify.
	Format string `json:"format"`
	// DryRun: every row was checked as for a real import and nothing was
	// written.
	DryRun bool `json:"dryRun"`
	// Rows is the number of products in the file.
	Rows int `json:"rows"`
	// Processed is the number of rows done.
	Processed int `json:"processed"`
	// Created is the number of products created.
	Created int `json:"created"`
	// Updated is the number of products changed.
	Updated int `json:"updated"`
	// Unchanged is the number of rows that were already as the store has
	// them (nothing written).
	Unchanged int `json:"unchanged"`
	// Rejected is the number of rows refused (their errors are in Errors).
	Rejected int `json:"rejected"`
	// Errors are the first 1,000 row errors, in line order.
	Errors []RowError `json:"errors"`
	// StartedAt is when the file was received.
	StartedAt time.Time `json:"startedAt"`
	// FinishedAt is when the job ended (absent while RUNNING).
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// Beat is when the process running the job last said it is alive
	// (kept by the store, not in answers): a RUNNING job whose beat is
	// older than StaleAfter was interrupted (service_stale.go).
	Beat time.Time `json:"-"`
}

// RowError is why a row was refused, or the file (line 0 when the
// problem is the file's as a whole, such as an unclosed quote: its line
// then says where).
type RowError struct {
	// Line is the line of the file the row starts on (the header is line 1).
	Line int `json:"line"`
	// SKU is the row's sku, as given ("" when it has none).
	SKU string `json:"sku"`
	// Error is the error code, as an operation would answer it.
	Error string `json:"error"`
	// Data is the error's data, as an operation would answer it.
	Data any `json:"data,omitempty"`
}

// JobNotFound is job_not_found, data the id.
func JobNotFound(id string) *commerce.Error {
	return commerce.NewError(commerce.EJobNotFound, id)
}

// rowError returns the RowError of err for a row.
func rowError(line int, sku string, err error) RowError {
	return RowError{Line: line, SKU: sku, Error: commerce.ErrorCode(err), Data: commerce.ErrorData(err)}
}
