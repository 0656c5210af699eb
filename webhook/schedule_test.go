package webhook_test

import (
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/webhook"
)

// TestWebhookDefaultSchedule follows a delivery that always gets a 500
// through the contract's schedule, on the service's clock: after the
// first attempt it is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
// later (nextAttemptAt says when, and it is not attempted before), then
// it is FAILED after 8 attempts.
func TestWebhookDefaultSchedule(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		var mu sync.Mutex
		now := time.Now().UTC().Truncate(time.Millisecond)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		set := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
		s, _ := start(t, db, func(o *app.Options) {
			o.WebhookKey = testKey
			o.WebhookAllowPrivate = true
			o.WebhookTimeout = 2 * time.Second
			o.WebhookLease = 3 * time.Second
			o.Now = clock
		})
		r := newReceiver(t, 500, 500, 500, 500, 500, 500, 500, 500, 500)
		r.setClock(clock) // the service signs with its clock
		id := createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS"})
		appendEvent(t, db, "PRODUCTS", "CREATE")
		attempt := func(n int) webhook.Delivery {
			t.Helper()
			var d webhook.Delivery
			waitFor(t, 20*time.Second, "attempt", func() bool {
				if ds := deliveries(t, s, id); len(ds) == 1 {
					d = ds[0]
				}
				return d.Attempts == n
			})
			return d
		}
		last := clock()
		for i, wait := range []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
			2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour} {
			d := attempt(i + 1)
			if d.Status != webhook.Pending || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(last.Add(wait)) ||
				d.LastStatusCode == nil || *d.LastStatusCode != 500 {
				t.Fatalf("after attempt %d: %s, want PENDING with nextAttemptAt %s", i+1, mustJSON(d), last.Add(wait))
			}
			// Not attempted before it is due.
			set(d.NextAttemptAt.Add(-time.Second))
			time.Sleep(400 * time.Millisecond)
			if got := deliveries(t, s, id)[0]; got.Attempts != i+1 {
				t.Fatalf("attempted %d times a second before it was due, want %d", got.Attempts, i+1)
			}
			last = *d.NextAttemptAt
			set(last)
		}
		d := attempt(8)
		if d.Status != webhook.Failed || d.NextAttemptAt != nil || d.DeliveredAt != nil {
			t.Fatalf("after 8 attempts: %s, want FAILED", mustJSON(d))
		}
		time.Sleep(300 * time.Millisecond)
		hits := r.snapshot()
		if len(hits) != 8 {
			t.Fatalf("%d requests, want 8", len(hits))
		}
		for i, h := range hits {
			if !h.valid {
				t.Errorf("attempt %d: signature or timestamp %s does not verify", i+1, h.ts)
			}
		}
	})
}
