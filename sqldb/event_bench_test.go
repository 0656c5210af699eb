package sqldb_test

import (
	"context"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// BenchmarkEventsAfter measures what a follower of the log (the webhook
// follower, the NATS relay) pays for each poll near the end of a log of
// 100,000 events: it must not grow with the log.
//
//	go test ./sqldb -run '^$' -bench BenchmarkEventsAfter
func BenchmarkEventsAfter(b *testing.B) {
	for _, store := range testdb.Stores {
		b.Run(store.Name, func(b *testing.B) {
			db := store.Open(b)
			ctx := context.Background()
			const total, batch = 100000, 1000
			for i := 0; i < total; i += batch {
				err := db.Update(ctx, func(tx *sqldb.Tx) error {
					for range batch {
						e, err := event.New(event.Products, event.Viewed, time.Now(), map[string]any{"productId": "p"})
						if err != nil {
							return err
						}
						tx.Emit(e)
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			all, err := db.EventsAfter(ctx, sqldb.Position{}, total)
			if err != nil || len(all) != total {
				b.Fatalf("got %d events, %v", len(all), err)
			}
			near := all[total-50].Pos
			b.ResetTimer()
			for b.Loop() {
				got, err := db.EventsAfter(ctx, near, 100)
				if err != nil || len(got) != 49 {
					b.Fatalf("got %d events, %v; want the last 49", len(got), err)
				}
			}
		})
	}
}

// BenchmarkAppendViewed measures writing one batch of 512 VIEWED events
// (what the VIEWED buffer flushes) to a log of 200,000 events, with the
// event ids of event.New (time-ordered) and with random ids: random ids
// change pages all over the id index, ordered ones only at its end.
//
//	go test ./sqldb -run '^$' -bench BenchmarkAppendViewed -benchtime 50x
func BenchmarkAppendViewed(b *testing.B) {
	for _, store := range testdb.Stores {
		for _, ids := range []struct {
			name string
			new  func() string
		}{{"ordered", commerce.NewOrderedID}, {"random", commerce.NewID}} {
			b.Run(store.Name+"/"+ids.name, func(b *testing.B) {
				db := store.Open(b)
				ctx := context.Background()
				batch := func(n int) []event.Event {
					out := make([]event.Event, n)
					for i := range out {
						e, err := event.New(event.Products, event.Viewed, time.Now(), map[string]any{"productId": "p", "userId": "u"})
						if err != nil {
							b.Fatal(err)
						}
						e.ID = ids.new()
						out[i] = e
					}
					return out
				}
				for range 200 {
					if err := db.Append(ctx, batch(1000)); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					events := batch(512)
					b.StartTimer()
					if err := db.Append(ctx, events); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
