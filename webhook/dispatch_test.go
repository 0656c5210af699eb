package webhook_test

import (
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/webhook"
)

// TestTwoDispatchers: two service processes on one PostgreSQL database
// dispatch the same backlog: every delivery is delivered, each attempted
// once, and never two attempts of one delivery at the same time.
func TestTwoDispatchers(t *testing.T) {
	url := testdb.PostgresURL(t)
	db1, db2 := testdb.PostgresAt(t, url), testdb.PostgresAt(t, url)
	long := func(o *app.Options) { o.WebhookLease = time.Minute }
	r := newReceiver(t)
	r.delay = 3 * time.Millisecond
	s, stop := start(t, db1, options("100ms", 2*time.Second), long)
	id := createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS"})
	stop()
	const n = 300
	want := map[string]bool{}
	for range n {
		want[appendEvent(t, db1, "PRODUCTS", "CREATE").ID] = true
	}
	s1, _ := start(t, db1, options("100ms", 2*time.Second), long)
	start(t, db2, options("100ms", 2*time.Second), long)
	waitFor(t, 120*time.Second, "every delivery delivered", func() bool {
		res := s1.Post(t, "/event/v1/webhook.deliveries", s1.Admin, map[string]any{"webhookId": id, "status": "DELIVERED", "limit": 1000}).Must(t)
		var ds []webhook.Delivery
		res.Decode(t, "data", &ds)
		return len(ds) == n
	})
	hits := r.snapshot()
	seen := map[string]int{}
	for _, h := range hits {
		seen[h.id]++
		if !h.valid {
			t.Fatalf("bad signature on %s", h.id)
		}
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("event %s: %d attempts, want 1", id, seen[id])
		}
	}
	r.mu.Lock()
	overlap := r.overlap
	r.mu.Unlock()
	if overlap != 0 || len(hits) != n {
		t.Fatalf("%d concurrent duplicate attempts, %d requests for %d events", overlap, len(hits), n)
	}
	for _, d := range deliveries(t, s1, id) {
		if d.Attempts != 1 || d.Status != webhook.Delivered {
			t.Fatalf("delivery %s", mustJSON(d))
		}
	}
}
