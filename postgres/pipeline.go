package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/commercekit/commerce/sqldb"
)

// errCommitRolledBack is a COMMIT of a failed transaction, which
// PostgreSQL answers "ROLLBACK" rather than with an error.
var errCommitRolledBack = errors.New("postgres: the transaction was rolled back at COMMIT")

// Pipelines implements sqldb.Dialect: true, Update pipelines (Pipeline).
func (Dialect) Pipelines() bool { return true }

// Pipeline implements sqldb.Dialect with a pgx batch: the statements
// go out together, with one Sync, and their answers come back together
// (one round trip once pgx has them prepared on the connection, which it
// caches).
//
// When interrupt ends before the answers are in, the server is asked to
// cancel the statement it runs (a wait for a row lock ends with
// query_canceled, and the statements after it, COMMIT included, do not
// run), and the answers are still read, under ctx, so that the outcome is
// known. The connection is then closed: a cancel request that arrives late
// must not interrupt the connection's next statement. A COMMIT that the
// server answered COMMIT is a success whatever comes after it.
func (Dialect) Pipeline(ctx, interrupt context.Context, conn *sql.Conn, stmts []sqldb.Statement) ([]int64, error) {
	n := make([]int64, 0, len(stmts))
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: a %T is not a pgx connection", dc)
		}
		pc := c.Conn().PgConn()
		if interrupt != nil {
			sent := make(chan struct{})
			stop := context.AfterFunc(interrupt, func() {
				defer close(sent)
				cctx, cancel := context.WithTimeout(context.Background(), cancelLimit)
				defer cancel()
				_ = pc.CancelRequest(cctx)
			})
			defer func() {
				if !stop() {
					<-sent
					closeConn(pc)
				}
			}()
		}
		var b pgx.Batch
		for _, s := range stmts {
			b.Queue(s.SQL, s.Args...)
		}
		br := c.Conn().SendBatch(ctx, &b)
		committed := false
		for _, s := range stmts {
			tag, err := br.Exec()
			if err == nil && s.SQL == "COMMIT" {
				if tag.String() == "ROLLBACK" {
					err = errCommitRolledBack
				} else {
					committed = true
				}
			}
			if err != nil {
				_ = br.Close() // reads what is left; err says what failed
				return err
			}
			n = append(n, tag.RowsAffected())
		}
		if err := br.Close(); err != nil {
			if committed {
				closeConn(pc) // the transaction is committed; the connection is in doubt
				return nil
			}
			return err
		}
		return nil
	})
	return n, err
}

// cancelLimit bounds the sending of a cancel request.
const cancelLimit = 5 * time.Second

// closeConn closes pc, which database/sql then discards.
func closeConn(pc *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = pc.Close(ctx)
}

// Expect implements sqldb.Dialect with commerce_expect (migration 0025),
// which fails with SQLSTATE ZC001 (unmetCode).
func (Dialect) Expect(cond string) (string, bool) { return "commerce_expect(" + cond + ")", true }
