package sqldb

import (
	"context"
	"database/sql"
	"strings"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
)

// CatalogStore is the catalog's storage (catalog.Store). Products keep
// their filterable scalars in columns and the whole record in the store's
// own versioned form (doc, catalog_doc.go); side tables hold category
// membership, prices and medias for the list filters. Categories keep
// their fields in columns (level and path of a whole subtree change in one
// statement on a move) and their classification definitions as JSON.
//
// Products are in catalog_product.go, categories in catalog_category.go,
// the list queries (and their regex limits) in catalog_list.go.
type CatalogStore struct {
	db *DB
}

// NewCatalogStore returns the catalog's storage over db.
func NewCatalogStore(db *DB) *CatalogStore {
	return &CatalogStore{db: db}
}

var _ catalog.Store = (*CatalogStore)(nil)

// CatalogTx returns the catalog's view of a transaction, for a use case of
// another area that must change or read the catalog atomically with its own
// change.
func CatalogTx(tx *Tx) catalog.Tx { return catalogTx{tx} }

// catalogBatch is how many products one multi-row INSERT writes.
const catalogBatch = 200

// catalogInChunk is how many values one IN list carries at most.
const catalogInChunk = 500

// catalogQuerier is what reads need: a DB or a Tx.
type catalogQuerier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// Update runs fn in a write transaction (catalog.Store).
// Every update moves the catalog's version (see versions.go).
func (s *CatalogStore) Update(ctx context.Context, fn func(tx catalog.Tx) error) error {
	return s.db.updateVersioned(ctx, versionCatalog, func(tx *Tx) error { return fn(catalogTx{tx}) })
}

// Version returns the catalog's version (catalog.Store).
func (s *CatalogStore) Version(ctx context.Context) (int64, error) {
	return s.db.areaVersion(ctx, versionCatalog)
}

// catalogArgs turns strings into query arguments.
func catalogArgs[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// catalogChunks splits ids into chunks of at most catalogInChunk.
func catalogChunks(ids []string) [][]string {
	var out [][]string
	for len(ids) > catalogInChunk {
		out = append(out, ids[:catalogInChunk])
		ids = ids[catalogInChunk:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}

func catalogNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// catalogTx is catalog.Tx over a Tx.
type catalogTx struct{ tx *Tx }

// Emit queues an event (catalog.Tx).
func (t catalogTx) Emit(e event.Event) { t.tx.Emit(e) }

// insertRows runs head with the rows as multi-row VALUES, a few hundred
// rows per statement.
func (t catalogTx) insertRows(ctx context.Context, head string, cols int, rows [][]any) error {
	tuple := "(" + Placeholders(cols) + ")"
	per := max(1, 2000/cols)
	for len(rows) > 0 {
		n := min(len(rows), per)
		var b strings.Builder
		b.WriteString(head)
		args := make([]any, 0, n*cols)
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple)
			args = append(args, r...)
		}
		if _, err := t.tx.Exec(ctx, b.String(), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
