package sqldb_test

import (
	"context"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestExecAtCommit: on both stores a statement of ExecAtCommit commits
// with its transaction (with the COMMIT on PostgreSQL, see
// TestExecAtCommitFailures; at once on SQLite), and its failure fails the
// transaction with its error, which then commits nothing.
func TestExecAtCommit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if err := db.Update(ctx, func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, `CREATE TABLE later (id TEXT PRIMARY KEY)`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		insert := func(id string) sqldb.Statement {
			return sqldb.Statement{SQL: `INSERT INTO later (id) VALUES (?)`, Args: []any{id}}
		}
		if err := db.Update(ctx, func(tx *sqldb.Tx) error { return tx.ExecAtCommit(ctx, insert("a")) }); err != nil {
			t.Fatal(err)
		}
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			if err := tx.ExecAtCommit(ctx, insert("b")); err != nil {
				return err
			}
			return tx.ExecAtCommit(ctx, insert("a"))
		})
		if commerce.ErrorCode(err) != commerce.EDuplicateKey {
			t.Errorf("a duplicate key: %v, want %s", err, commerce.EDuplicateKey)
		}
		var all, a int
		if err := db.QueryRow(ctx, `SELECT COUNT(*), COUNT(CASE WHEN id = 'a' THEN 1 END) FROM later`).Scan(&all, &a); err != nil {
			t.Fatal(err)
		}
		if all != 1 || a != 1 {
			t.Errorf("committed: %d rows (a: %d), want a alone", all, a)
		}
	})
}
