package sqldb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// BenchmarkUpdate measures concurrent write transactions shaped like an
// add-to-cart: lock a row, read it, write it back, write an event, commit
// (durably), with 64 writers at once on 2 cores (-cpu 2), on each store.
//
//	go test ./sqldb -run '^$' -bench BenchmarkUpdate -cpu 2
func BenchmarkUpdate(b *testing.B) {
	for _, store := range testdb.Stores {
		b.Run(store.Name, func(b *testing.B) {
			db := store.Open(b)
			ctx := context.Background()
			const rows = 100
			err := db.Update(ctx, func(tx *sqldb.Tx) error {
				if _, err := tx.Exec(ctx, `CREATE TABLE bench_rows (id TEXT PRIMARY KEY, v INTEGER NOT NULL, data TEXT NOT NULL)`); err != nil {
					return err
				}
				for i := range rows {
					if _, err := tx.Exec(ctx, `INSERT INTO bench_rows (id, v, data) VALUES (?, 0, '')`, fmt.Sprint(i)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			data := fmt.Sprintf("%0500d", 0) // a cart document's worth
			var n atomic.Int64
			b.SetParallelism(32)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := fmt.Sprint(n.Add(1) % rows)
					err := db.Update(ctx, func(tx *sqldb.Tx) error {
						var v int
						if err := tx.QueryRow(ctx, `SELECT v FROM bench_rows WHERE id = ?`+tx.DB().Dialect().ForUpdate(), id).Scan(&v); err != nil {
							return err
						}
						if _, err := tx.Exec(ctx, `UPDATE bench_rows SET v = ?, data = ? WHERE id = ?`, v+1, data, id); err != nil {
							return err
						}
						e, err := event.New("BENCH", "UPDATE", time.Now(), map[string]any{"id": id, "v": v + 1})
						if err != nil {
							return err
						}
						tx.Emit(e)
						return nil
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tx/s")
		})
	}
}
