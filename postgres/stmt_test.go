package postgres_test

import (
	"context"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestStatementsPrepared: pgx prepares a statement once per connection
// and runs it again from its cache (database/sql with pgx's default
// exec mode), so the storage core needs no statement cache of its own on
// PostgreSQL.
func TestStatementsPrepared(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	const q = `SELECT COUNT(*) FROM events WHERE channel = ?`
	err := db.View(ctx, func(tx *sqldb.Tx) error { // one connection
		for _, ch := range []string{"A", "B", "C"} {
			var n int
			if err := tx.QueryRow(ctx, q, ch).Scan(&n); err != nil {
				return err
			}
		}
		var stmts, runs int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(generic_plans + custom_plans), 0) FROM pg_prepared_statements WHERE statement = ?`,
			db.Rebind(q)).Scan(&stmts, &runs); err != nil {
			return err
		}
		if stmts != 1 || runs != 3 {
			t.Errorf("%d prepared statements run %d times, want 1 run 3 times", stmts, runs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
