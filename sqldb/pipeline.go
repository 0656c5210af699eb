package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

// A write transaction on a dialect that pipelines (Pipeliner): BEGIN goes
// out with the transaction's first statement when that is an Exec, and
// the events go out with the COMMIT. A transaction of an Exec, a second
// Exec and its event (an add to cart: the cart, the stock) is then three
// round trips instead of five.

// updatePiped is update on a Pipeliner: fn runs on one connection of the
// write pool, whose transaction pipedTx begins and this function ends.
func (db *DB) updatePiped(ctx context.Context, p Pipeliner, fn func(tx *Tx) error) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return db.translate(fmt.Errorf("begin: %w", err))
	}
	defer conn.Close()
	q := &pipedTx{conn: conn, pipe: p}
	tx := &Tx{tx: q, db: db}
	if err := fn(tx); err != nil {
		q.rollback(ctx)
		if q.err != nil {
			return db.translate(q.err) // BEGIN failed: fn's error follows from it
		}
		return db.translate(err)
	}
	if q.err != nil {
		return db.translate(q.err)
	}
	stmts := db.eventStatements(ctx, tx.events)
	if !q.begun && len(stmts) == 0 {
		return nil // nothing ran, nothing to commit
	}
	// As database/sql's Commit: a caller gone before the commit has its
	// transaction rolled back; once sent, the commit is not interrupted
	// (an interrupted COMMIT leaves its outcome unknown).
	if err := ctx.Err(); err != nil {
		q.rollback(ctx)
		return db.translate(err)
	}
	for i := range stmts {
		stmts[i].SQL = db.Rebind(stmts[i].SQL)
	}
	if !q.begun {
		stmts = append([]Statement{{SQL: "BEGIN"}}, stmts...)
	}
	stmts = append(stmts, Statement{SQL: "COMMIT"})
	if _, err := p.Pipeline(context.WithoutCancel(ctx), conn, stmts); err != nil {
		q.rollback(ctx)
		return db.translate(fmt.Errorf("commit: %w", err))
	}
	db.transactions.Add(1)
	db.commits.Add(1)
	if len(tx.events) > 0 {
		db.notify()
	}
	return nil
}

// pipedTx is the querier of a write transaction on a Pipeliner: it sends
// BEGIN with the first statement.
type pipedTx struct {
	conn  *sql.Conn
	pipe  Pipeliner
	begun bool  // BEGIN was sent
	err   error // BEGIN failed: the connection is discarded
}

// ExecContext runs a statement, the first one in one round trip with
// BEGIN.
func (q *pipedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if q.begun {
		return q.conn.ExecContext(ctx, query, args...)
	}
	q.begun = true
	n, err := q.pipe.Pipeline(ctx, q.conn, []Statement{{SQL: "BEGIN"}, {SQL: query, Args: args}})
	if len(n) == 0 {
		if err == nil {
			err = errors.New("begin: no answer")
		}
		q.fail(err)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return rowsAffected(n[1]), nil
}

// QueryContext runs a query, after BEGIN on its own when it is the first.
func (q *pipedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := q.begin(ctx); err != nil {
		return nil, err
	}
	return q.conn.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query, after BEGIN on its own when it is the
// first. When BEGIN fails the connection is closed, so the query does not
// run (its Scan gives sql.ErrConnDone) and updatePiped returns q.err.
func (q *pipedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	_ = q.begin(ctx) // see above
	return q.conn.QueryRowContext(ctx, query, args...)
}

func (q *pipedTx) begin(ctx context.Context) error {
	if q.begun {
		return q.err
	}
	q.begun = true
	if _, err := q.conn.ExecContext(ctx, "BEGIN"); err != nil {
		q.fail(fmt.Errorf("begin: %w", err))
	}
	return q.err
}

// fail records err and closes the connection (sql.Conn.Raw closes it on
// driver.ErrBadConn): nothing more runs on it, outside a transaction or
// in one left open.
func (q *pipedTx) fail(err error) {
	q.err = err
	_ = q.conn.Raw(func(any) error { return driver.ErrBadConn })
}

// rollback ends a transaction that will not commit; a connection on
// which ROLLBACK fails is closed rather than given back to the pool.
func (q *pipedTx) rollback(ctx context.Context) {
	if !q.begun || q.err != nil {
		return
	}
	if _, err := q.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		q.fail(err)
	}
}

// rowsAffected is the sql.Result of a pipelined statement.
type rowsAffected int64

func (n rowsAffected) RowsAffected() (int64, error) { return int64(n), nil }
func (rowsAffected) LastInsertId() (int64, error) {
	return 0, errors.New("sqldb: LastInsertId is not supported")
}
