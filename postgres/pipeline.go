package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/commercekit/commerce/sqldb"
)

var _ sqldb.Pipeliner = Dialect{}

// errCommitRolledBack is a COMMIT of a failed transaction, which
// PostgreSQL answers "ROLLBACK" rather than with an error.
var errCommitRolledBack = errors.New("postgres: the transaction was rolled back at COMMIT")

// Pipeline implements sqldb.Pipeliner with a pgx batch: the statements
// go out together, with one Sync, and their answers come back together
// (one round trip once pgx has them prepared on the connection, which it
// caches).
func (Dialect) Pipeline(ctx context.Context, conn *sql.Conn, stmts []sqldb.Statement) ([]int64, error) {
	n := make([]int64, 0, len(stmts))
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: a %T is not a pgx connection", dc)
		}
		var b pgx.Batch
		for _, s := range stmts {
			b.Queue(s.SQL, s.Args...)
		}
		br := c.Conn().SendBatch(ctx, &b)
		for _, s := range stmts {
			tag, err := br.Exec()
			if err == nil && s.SQL == "COMMIT" && tag.String() == "ROLLBACK" {
				err = errCommitRolledBack
			}
			if err != nil {
				_ = br.Close() // reads what is left; err says what failed
				return err
			}
			n = append(n, tag.RowsAffected())
		}
		return br.Close()
	})
	return n, err
}
