package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// A write transaction on a dialect that pipelines (Dialect.Pipelines): BEGIN goes
// out with the transaction's first statement when that is an Exec with
// arguments, and the events go out with the COMMIT. A transaction of an
// Exec, a second Exec and its event is then three round trips instead of
// five. The statements of Tx.ExecAtCommit go out with the COMMIT too: an
// add to cart, whose cart update and reservations check themselves, is one
// round trip.

// commitLimit bounds the wait for a COMMIT (or ROLLBACK) once sent: the
// caller's going away does not interrupt it (an interrupted COMMIT leaves
// its outcome unknown), but a database that never answers does not hold
// the connection and the write turn for ever. The statements sent with the
// COMMIT (Tx.ExecAtCommit, which may wait for row locks) are interrupted
// when the caller goes away, or interruptMargin before commitLimit, by
// the database (Dialect.Pipeline's interrupt), so that the outcome is
// still read.
const (
	commitLimit     = 30 * time.Second
	interruptMargin = 5 * time.Second
)

// updatePiped is update on a dialect that pipelines: fn runs on one
// connection of the write pool, whose transaction pipedTx begins and this
// function ends.
func (db *DB) updatePiped(ctx context.Context, fn func(tx *Tx) error) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return db.translate(fmt.Errorf("begin: %w", err))
	}
	defer conn.Close()
	q := &pipedTx{conn: conn, pipe: db.dialect}
	// The statements run under contexts that end with the transaction
	// (as a *sql.Tx's do): rows fn left open are closed before the
	// transaction ends, or its connection could not be closed.
	q.end, q.endStatements = context.WithCancel(context.Background())
	defer q.endStatements()
	tx := &Tx{tx: q, db: db}
	err = q.run(fn, tx)
	if err != nil {
		q.rollback(ctx)
		if q.err != nil {
			return db.translate(q.err) // the connection failed: fn's error follows from it
		}
		return db.translate(err)
	}
	if q.err != nil {
		return db.translate(q.err)
	}
	events := db.eventStatements(ctx, tx.events)
	st, scope, audited := db.auditStatement(ctx, tx)
	if audited {
		events = append(events, st)
	}
	if !q.begun && len(q.atCommit) == 0 && len(events) == 0 {
		return nil // nothing ran, nothing to commit
	}
	// A caller gone before the commit has its transaction rolled back.
	if err := ctx.Err(); err != nil {
		q.rollback(ctx)
		return db.translate(err)
	}
	stmts := make([]Statement, 0, 2+len(q.atCommit)+len(events))
	first := 0 // the index of the first of q.atCommit in stmts
	if !q.begun {
		q.begun = true
		stmts = append(stmts, Statement{SQL: "BEGIN"})
		first = 1
	}
	stmts = append(stmts, q.atCommit...)
	for _, st := range events {
		stmts = append(stmts, Statement{SQL: db.Rebind(st.SQL), Args: st.Args})
	}
	stmts = append(stmts, Statement{SQL: "COMMIT"})
	// The statements sent with the COMMIT may wait for row locks: the
	// caller's going away (or commitLimit nearing) interrupts them, but
	// the answer is still read, so that the outcome is known.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitLimit)
	ictx, icancel := context.WithTimeout(ctx, commitLimit-interruptMargin)
	n, err := db.dialect.Pipeline(cctx, ictx, conn, stmts)
	icancel()
	cancel()
	if err != nil {
		q.rollback(ctx)
		// The statement that failed is the first without an answer.
		if k := len(n) - first; k >= 0 && k < len(q.atCommit) {
			if u := db.unmet(err, q.atCommit[k]); u != nil {
				return u
			}
		}
		return db.translate(fmt.Errorf("commit: %w", err))
	}
	db.transactions.Add(1)
	db.commits.Add(1)
	if audited {
		scope.Committed()
	}
	if len(tx.events) > 0 {
		db.notify()
	}
	return nil
}

// run runs fn, then ends its statements. When fn panics, the connection
// is closed, which ends the transaction: it must not outlive the panic,
// holding its locks, in the pool.
func (q *pipedTx) run(fn func(*Tx) error, tx *Tx) error {
	returned := false
	defer func() {
		q.endStatements()
		if !returned && q.begun && q.err == nil {
			q.fail(errors.New("the transaction's function panicked"))
		}
	}()
	err := fn(tx)
	returned = true
	return err
}

// pipedTx is the querier of a write transaction on a dialect that
// pipelines: it sends BEGIN with the first statement.
type pipedTx struct {
	conn *sql.Conn
	pipe Dialect
	end  context.Context // ends with the transaction
	// endStatements ends end (the transaction's statements).
	endStatements context.CancelFunc
	begun         bool  // BEGIN was sent
	err           error // the connection failed and is closed: nothing more runs
	// atCommit are the statements that go out with the COMMIT
	// (Tx.ExecAtCommit), rebound.
	atCommit []Statement
}

// stmtCtx returns the context of a statement given ctx: ctx, ending with
// the transaction too.
func (q *pipedTx) stmtCtx(ctx context.Context) context.Context {
	c, cancel := context.WithCancel(ctx)
	context.AfterFunc(q.end, cancel)
	return c
}

// ExecContext runs a statement; the first one, when it has arguments, in
// one round trip with BEGIN. (One without arguments may hold several
// statements, which a prepared statement cannot: it goes the plain way.)
func (q *pipedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = q.stmtCtx(ctx)
	if q.begun || len(args) == 0 {
		if err := q.begin(ctx); err != nil {
			return nil, err
		}
		return q.conn.ExecContext(ctx, query, args...)
	}
	n, err := q.execBatch(ctx, []Statement{{SQL: query, Args: args}})
	if err != nil {
		return nil, err
	}
	return rowsAffected(n[0]), nil
}

// execBatch sends stmts in one round trip, with BEGIN when they are the
// transaction's first; it returns the rows each affected, up to the
// first that failed, and that failure. ctx is a statement's (stmtCtx).
func (q *pipedTx) execBatch(ctx context.Context, stmts []Statement) ([]int64, error) {
	if q.err != nil {
		return nil, q.err
	}
	if q.begun {
		return q.pipe.Pipeline(ctx, nil, q.conn, stmts)
	}
	q.begun = true
	n, err := q.pipe.Pipeline(ctx, nil, q.conn, append([]Statement{{SQL: "BEGIN"}}, stmts...))
	if len(n) == 0 {
		// Either BEGIN failed, or the batch was refused before anything
		// ran (a statement that does not prepare; an argument that does
		// not encode, after which pgx closes the connection). A ROLLBACK
		// tells: the connection is then left as it was, outside a
		// transaction, or is closed, and nothing more runs on it.
		if err == nil {
			err = errors.New("begin: no answer")
		}
		q.begun = false
		if q.rollbackNow(ctx) != nil {
			q.fail(err)
		}
		return nil, err
	}
	return n[1:], err
}

// QueryContext runs a query, after BEGIN on its own when it is the first.
func (q *pipedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = q.stmtCtx(ctx)
	if err := q.begin(ctx); err != nil {
		return nil, err
	}
	return q.conn.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query, after BEGIN on its own when it is the
// first. When BEGIN fails the connection is closed, so the query does not
// run (its Scan gives sql.ErrConnDone) and updatePiped returns q.err.
func (q *pipedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = q.stmtCtx(ctx)
	_ = q.begin(ctx) // see above
	return q.conn.QueryRowContext(ctx, query, args...)
}

// begin sends BEGIN on its own when it has not been sent.
func (q *pipedTx) begin(ctx context.Context) error {
	if q.begun || q.err != nil {
		return q.err
	}
	q.begun = true
	if _, err := q.conn.ExecContext(ctx, "BEGIN"); err != nil {
		q.fail(fmt.Errorf("begin: %w", err))
	}
	return q.err
}

// rollbackNow sends ROLLBACK, not ended by the caller's going away,
// bounded by commitLimit.
func (q *pipedTx) rollbackNow(ctx context.Context) error {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitLimit)
	defer cancel()
	_, err := q.conn.ExecContext(c, "ROLLBACK")
	return err
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
	if err := q.rollbackNow(ctx); err != nil {
		q.fail(err)
	}
}

// rowsAffected is the sql.Result of a pipelined statement.
type rowsAffected int64

func (n rowsAffected) RowsAffected() (int64, error) { return int64(n), nil }
func (rowsAffected) LastInsertId() (int64, error) {
	return 0, errors.New("sqldb: LastInsertId is not supported")
}
