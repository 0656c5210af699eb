package postgres_test

import (
	"context"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestLZ4Documents: on a server built with lz4, the documents written on
// every cart change and checkout are compressed with it (migration 0019).
func TestLZ4Documents(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE fixture_lz4 (x TEXT COMPRESSION lz4) ON COMMIT DROP`)
		return err
	})
	if err != nil {
		t.Skipf("this server has no lz4 (%v): the migration keeps pglz", err)
	}
	for _, col := range [][2]string{{"carts", "data"}, {"events", "payload"}, {"orders", "data"}} {
		var method string
		if err := db.QueryRow(ctx, `SELECT attcompression::text FROM pg_attribute WHERE attrelid = ?::regclass AND attname = ?`, col[0], col[1]).Scan(&method); err != nil {
			t.Fatal(err)
		}
		if method != "l" {
			t.Errorf("%s.%s: compression %q, want l (lz4)", col[0], col[1], method)
		}
	}
}
