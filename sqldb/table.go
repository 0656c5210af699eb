package sqldb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/commercekit/commerce"
)

// recordTable is a table of one area's records, keyed by id and read by
// one scan: the reads and writes by id that the stores of taxes,
// shipping methods and promotions share.
type recordTable[T any] struct {
	// name is what a record is called in errors ("tax").
	name string
	// byID and deleteByID are the statements of one record (deleteByID
	// without its RETURNING, which the dialect spells), columns what they
	// read.
	byID, deleteByID, columns string
	scan                      func(rowScanner) (T, error)
	notFound                  func(id string) *commerce.Error
}

// newRecordTable returns the table named table whose columns scan reads.
func newRecordTable[T any](name, table, columns string, scan func(rowScanner) (T, error), notFound func(id string) *commerce.Error) recordTable[T] {
	return recordTable[T]{name: name, scan: scan, notFound: notFound, columns: columns,
		byID:       `SELECT ` + columns + ` FROM ` + table + ` WHERE id = ?`,
		deleteByID: `DELETE FROM ` + table + ` WHERE id = ?`}
}

// get reads the record id, outside a transaction. Errors: notFound.
func (r recordTable[T]) get(ctx context.Context, db *DB, id string) (T, error) {
	v, err := r.scan(db.QueryRow(ctx, r.byID, id))
	if err != nil {
		var zero T
		return zero, db.NotFound(err, r.notFound(id))
	}
	return v, nil
}

// lock reads the record id in tx: SELECT ... FOR UPDATE on PostgreSQL
// (SQLite serialises its writers), so that two concurrent changes of one
// record run one after the other. Errors: notFound.
func (r recordTable[T]) lock(ctx context.Context, tx *Tx, id string) (T, error) {
	v, err := r.scan(tx.QueryRow(ctx, r.byID+tx.ForUpdate(), id))
	if err != nil {
		var zero T
		return zero, tx.DB().NotFound(err, r.notFound(id))
	}
	return v, nil
}

// remove deletes the record id in tx and returns it. Errors: notFound.
func (r recordTable[T]) remove(ctx context.Context, tx *Tx, id string) (T, error) {
	v, err := r.scan(tx.QueryRow(ctx, tx.db.dialect.Returning(r.deleteByID, r.columns), id))
	if err != nil {
		var zero T
		return zero, tx.DB().NotFound(err, r.notFound(id))
	}
	return v, nil
}

// updated checks the result of the UPDATE of the record id (res, err):
// notFound when it changed no row.
func (r recordTable[T]) updated(tx *Tx, id string, res sql.Result, err error) error {
	if err != nil {
		return fmt.Errorf("update %s: %w", r.name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("update %s: %w", r.name, tx.Translate(err))
	} else if n == 0 {
		return r.notFound(id)
	}
	return nil
}

// scanAll reads every row of a query's answer (rows, err) with scan, out
// starting as out (nil or empty: what the caller answers for no rows).
// Errors are translated (DB.Translate) and wrapped with what.
func scanAll[T any](db *DB, what string, out []T, rows *sql.Rows, err error, scan func(rowScanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, db.translate(err))
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, db.translate(err))
	}
	return out, nil
}
