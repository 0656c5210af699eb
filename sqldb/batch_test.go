package sqldb_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/sqldb"
)

// TestExecBatch: a batch runs its statements in order on both stores
// (one round trip on PostgreSQL, see TestUpdateRoundTrips) and gives the
// rows each affected, 0 included (a statement runs whatever an earlier
// one affected); a failing statement stops it, with the rows of those
// before, and its error fails the transaction, which commits nothing.
func TestExecBatch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if err := db.Update(ctx, func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, `CREATE TABLE batch (id TEXT PRIMARY KEY, n BIGINT NOT NULL)`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var got []int64
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			var err error
			got, err = tx.ExecBatch(ctx, []sqldb.Statement{
				{SQL: `INSERT INTO batch (id, n) VALUES (?, ?), (?, ?)`, Args: []any{"a", 1, "b", 1}},
				{SQL: `UPDATE batch SET n = n + 1 WHERE id = ?`, Args: []any{"nobody"}},
				{SQL: `UPDATE batch SET n = n + 1 WHERE n = ?`, Args: []any{1}},
			})
			return err
		})
		if err != nil || !slices.Equal(got, []int64{2, 0, 2}) {
			t.Fatalf("a batch: %v, %v; want [2 0 2]", got, err)
		}
		boom := errors.New("not this")
		err = db.Update(ctx, func(tx *sqldb.Tx) error {
			n, err := tx.ExecBatch(ctx, []sqldb.Statement{
				{SQL: `UPDATE batch SET n = n + 10 WHERE id = ?`, Args: []any{"a"}},
				{SQL: `INSERT INTO batch (id, n) VALUES (?, ?)`, Args: []any{"b", 5}}, // taken
				{SQL: `UPDATE batch SET n = n + 10 WHERE id = ?`, Args: []any{"b"}},
			})
			if !slices.Equal(n, []int64{1}) {
				t.Errorf("rows before the failing statement: %v, want [1]", n)
			}
			if err == nil {
				return boom
			}
			return err
		})
		if commerce.ErrorCode(err) != commerce.EDuplicateKey {
			t.Errorf("a batch with a duplicate key: %v, want %s", err, commerce.EDuplicateKey)
		}
		var a, b int64
		if err := db.QueryRow(ctx, `SELECT (SELECT n FROM batch WHERE id = 'a'), (SELECT n FROM batch WHERE id = 'b')`).Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		if a != 2 || b != 2 {
			t.Errorf("after the failed batch: a = %d, b = %d, want 2 and 2 (nothing of it committed)", a, b)
		}
	})
}

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
		var ids []string
		rows, err := db.Query(ctx, `SELECT id FROM later ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, []string{"a"}) {
			t.Errorf("committed: %v, want [a]", ids)
		}
	})
}
