package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestWALStaysBounded: under writes that never pause and reads that
// always overlap (so that some reader always holds a snapshot in the
// log), the write-ahead log does not grow with what was written: the
// checkpointer restarts it once it passes its limit. Without that, a
// passive checkpoint copies the log but never restarts it, and it grew
// to 852 MB in a 40-second load run.
func TestWALStaysBounded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "commerce.db")
	db := testdb.SQLiteAt(t, path)
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `CREATE TABLE fixture_blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const rowBytes, rows = 512 << 10, 500 // 250 MiB written in all
	body := strings.Repeat("x", rowBytes)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	var reads atomic.Int64
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var n int
				if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_blobs`).Scan(&n); err != nil {
					t.Error(err)
					return
				}
				reads.Add(1)
			}
		})
	}
	var peak int64
	for i := range rows {
		if err := db.Update(ctx, func(tx *sqldb.Tx) error {
			// Each row replaces the last: the database stays small,
			// only the log could grow.
			_, err := tx.Exec(ctx, `INSERT OR REPLACE INTO fixture_blobs (id, body) VALUES (?, ?)`, i%4, body)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path + "-wal"); err == nil {
			peak = max(peak, st.Size())
		}
	}
	close(stop)
	readers.Wait()
	t.Logf("%d MiB written, %d reads meanwhile, the log's peak %d MiB", rows*rowBytes>>20, reads.Load(), peak>>20)
	if limit := int64(2 * 64 << 20); peak > limit {
		t.Errorf("the log reached %d MiB, want at most %d MiB (about twice its 64 MiB limit)", peak>>20, limit>>20)
	}
}
