package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/webhook"
)

// Webhook is the suite of the webhook store: the follower creates
// deliveries only for webhooks active at that point of the log, claims
// lease deliveries to one dispatcher at a time, and a result is recorded
// only under the lease that took it.
func Webhook(t *testing.T, open Opener) {
	t.Run("follow the log", func(t *testing.T) { webhookFollow(t, open(t)) })
	t.Run("no active webhook: the log is skipped, not read", func(t *testing.T) { webhookSkipIdle(t, open(t)) })
	t.Run("claim, lease, record", func(t *testing.T) { webhookClaim(t, open(t)) })
	t.Run("concurrent claims are disjoint", func(t *testing.T) { webhookClaimConcurrent(t, open(t)) })
	t.Run("a redelivery during an attempt wins over its record", func(t *testing.T) { webhookRedeliverInFlight(t, open(t)) })
	t.Run("a claimed delivery carries its event's actor", func(t *testing.T) { webhookClaimActor(t, open(t)) })
}

// webhookSetup creates a webhook subscribed to PRODUCTS, with its CREATE
// event, as webhook.create does.
func webhookSetup(t *testing.T, st *sqldb.WebhookStore, active bool) webhook.Webhook {
	t.Helper()
	ctx := context.Background()
	w := webhook.Webhook{ID: commerce.NewID(), URL: "http://example.com/h", Channels: []string{"PRODUCTS"}, Active: active, CreatedAt: time.Now().UTC()}
	err := st.Update(ctx, func(tx webhook.Tx) error {
		if err := tx.CreateWebhook(ctx, webhook.Stored{Webhook: w, Secret: "sealed"}); err != nil {
			return err
		}
		return event.Emit(tx, event.Webhooks, event.Create, time.Now(), map[string]any{"new": w})
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func appendEvents(t *testing.T, db *sqldb.DB, n int, channel string) {
	t.Helper()
	var evs []event.Event
	for range n {
		e, _ := event.New(channel, event.Create, time.Now(), map[string]int{"n": 1})
		evs = append(evs, e)
	}
	if err := db.Append(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
}

func webhookFollow(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewWebhookStore(db)
	appendEvents(t, db, 2, "PRODUCTS") // before any webhook
	on := webhookSetup(t, st, true)
	off := webhookSetup(t, st, false)
	appendEvents(t, db, 3, "PRODUCTS")
	appendEvents(t, db, 1, "STOCK")
	for {
		n, err := st.Follow(ctx, time.Now(), 4)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	ds, err := st.Deliveries(ctx, on.ID, "", 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 {
		t.Fatalf("active webhook: %d deliveries, want 3", len(ds))
	}
	for _, d := range ds {
		if d.Status != webhook.Pending || d.Attempts != 0 || d.NextAttemptAt == nil {
			t.Fatalf("new delivery %+v", d)
		}
	}
	if ds, _ := st.Deliveries(ctx, off.ID, "", 100, 0); len(ds) != 0 {
		t.Fatalf("inactive webhook: %d deliveries", len(ds))
	}
	// Followed to the end: nothing more, even when asked again.
	if n, err := st.Follow(ctx, time.Now(), 100); n != 0 || err != nil {
		t.Fatalf("again: %d %v", n, err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM webhook_deliveries`); n != 3 {
		t.Fatalf("%d deliveries in all, want 3", n)
	}
}

// webhookSkipIdle: with no active webhook the follower moves its cursor
// to the end of the log at once, whatever its length, and creates no
// delivery; a webhook created after is served from its creation on, even
// when events come between its creation and the follower's next round.
func webhookSkipIdle(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewWebhookStore(db)
	cursor := func() sqldb.Position {
		t.Helper()
		p, err := db.Cursor(ctx, "webhook")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	appendEvents(t, db, 250, "PRODUCTS")
	webhookSetup(t, st, false) // an inactive one does not count
	appendEvents(t, db, 250, "PRODUCTS")
	all, err := db.EventsAfter(ctx, sqldb.Position{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// The inactive webhook's CREATE is after the cursor: the first round
	// reads (a webhook changes), up to 100 events.
	for range 10 {
		if _, err := st.Follow(ctx, time.Now(), 100); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := cursor(), all[len(all)-1].Pos; got != want {
		t.Fatalf("cursor at %+v after the rounds, want the last event %+v", got, want)
	}
	// Now nothing changes a webhook: one round skips 5,000 events.
	appendEvents(t, db, 5000, "PRODUCTS")
	if n, err := st.Follow(ctx, time.Now(), 100); n != 0 || err != nil {
		t.Fatalf("round over an idle log: %d, %v", n, err)
	}
	all, err = db.EventsAfter(ctx, cursor(), 10)
	if err != nil || len(all) != 0 {
		t.Fatalf("%d events after the cursor, %v; want none (skipped to the end)", len(all), err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM webhook_deliveries`); n != 0 {
		t.Fatalf("%d deliveries without an active webhook", n)
	}
	on := webhookSetup(t, st, true)
	appendEvents(t, db, 3, "PRODUCTS")
	for {
		n, err := st.Follow(ctx, time.Now(), 100)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if ds, _ := st.Deliveries(ctx, on.ID, "", 100, 0); len(ds) != 3 {
		t.Fatalf("the webhook created after the skip: %d deliveries, want 3", len(ds))
	}
}

func webhookClaim(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewWebhookStore(db)
	w := webhookSetup(t, st, true)
	appendEvents(t, db, 3, "PRODUCTS")
	now := time.Now()
	if _, err := st.Follow(ctx, now, 100); err != nil {
		t.Fatal(err)
	}
	a, err := st.Claim(ctx, "A", now, time.Minute, 2)
	if err != nil || len(a) != 2 {
		t.Fatalf("claim A: %d %v", len(a), err)
	}
	if a[0].URL != w.URL || a[0].Secret != "sealed" || a[0].Event.ID != a[0].EventID || a[0].Event.Channel != "PRODUCTS" {
		t.Fatalf("claimed %+v", a[0])
	}
	b, err := st.Claim(ctx, "B", now, time.Minute, 10)
	if err != nil || len(b) != 1 || b[0].ID == a[0].ID || b[0].ID == a[1].ID {
		t.Fatalf("claim B: %+v %v", b, err)
	}
	if c, _ := st.Claim(ctx, "C", now, time.Minute, 10); len(c) != 0 {
		t.Fatalf("claimed leased deliveries: %d", len(c))
	}
	// A's lease ends: C takes the delivery over; A can no longer record it.
	c, err := st.Claim(ctx, "C", now.Add(2*time.Minute), time.Minute, 1)
	if err != nil || len(c) != 1 {
		t.Fatalf("claim after the lease: %d %v", len(c), err)
	}
	taken := c[0].ID
	if ok, err := st.Record(ctx, "A", webhook.Result{DeliveryID: taken, Status: webhook.Delivered, DeliveredAt: &now}); ok || err != nil {
		t.Fatalf("record under a lost lease: %v %v", ok, err)
	}
	code := 200
	if ok, err := st.Record(ctx, "C", webhook.Result{DeliveryID: taken, Status: webhook.Delivered, StatusCode: &code, DeliveredAt: &now}); !ok || err != nil {
		t.Fatalf("record: %v %v", ok, err)
	}
	next := now.Add(time.Hour)
	msg := "HTTP 500"
	code500 := 500
	if ok, _ := st.Record(ctx, "B", webhook.Result{DeliveryID: b[0].ID, Status: webhook.Pending, StatusCode: &code500, Error: &msg, NextAttempt: &next}); !ok {
		t.Fatal("record B")
	}
	ds, _ := st.Deliveries(ctx, w.ID, "", 10, 0)
	byID := map[string]webhook.Delivery{}
	for _, d := range ds {
		byID[d.ID] = d
	}
	if d := byID[taken]; d.Status != webhook.Delivered || d.Attempts != 1 || d.DeliveredAt == nil || *d.LastStatusCode != 200 {
		t.Fatalf("delivered %+v", d)
	}
	if d := byID[b[0].ID]; d.Status != webhook.Pending || d.Attempts != 1 || *d.LastError != msg || !d.NextAttemptAt.Equal(next.Truncate(time.Millisecond)) {
		t.Fatalf("retrying %+v", d)
	}
	// Not due before its next attempt.
	if c, _ := st.Claim(ctx, "D", now.Add(30*time.Minute), time.Minute, 10); len(c) != 1 || c[0].ID == b[0].ID {
		t.Fatalf("claim before the next attempt: %+v", c)
	}
	// Redeliver a delivered one: pending, due now, its last try.
	err = st.Update(ctx, func(tx webhook.Tx) error {
		d, err := tx.Redeliver(ctx, taken, now)
		if err == nil && (d.Status != webhook.Pending || d.Attempts != 1) {
			t.Errorf("redelivered %+v", d)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := st.Claim(ctx, "E", now, time.Minute, 10); len(c) != 1 || c[0].ID != taken || !c[0].LastTry {
		t.Fatalf("claim the redelivery: %+v", c)
	}
	err = st.Update(ctx, func(tx webhook.Tx) error { _, err := tx.Redeliver(ctx, "nope", now); return err })
	if commerce.ErrorCode(err) != commerce.EDeliveryNotFound {
		t.Fatalf("unknown delivery: %v", err)
	}
}

func webhookClaimConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewWebhookStore(db)
	webhookSetup(t, st, true)
	appendEvents(t, db, 200, "PRODUCTS")
	now := time.Now()
	if _, err := st.Follow(ctx, now, 1000); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			claim := string(rune('A' + i))
			for {
				c, err := st.Claim(ctx, claim, now, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(c) == 0 {
					return
				}
				mu.Lock()
				for _, d := range c {
					if other, dup := seen[d.ID]; dup {
						t.Errorf("delivery %s claimed by %s and %s", d.ID, other, claim)
					}
					seen[d.ID] = claim
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 200 {
		t.Fatalf("%d deliveries claimed, want 200", len(seen))
	}
}

// webhookRedeliverInFlight: webhook.redeliver on a delivery being
// attempted (claimed) is not undone by that attempt's record: the attempt
// is counted and its outcome kept, but the delivery stays PENDING, due
// when the redelivery said, for one more attempt. While the attempt's
// lease holds, no one else claims the delivery.
func webhookRedeliverInFlight(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewWebhookStore(db)
	w := webhookSetup(t, st, true)
	appendEvents(t, db, 2, "PRODUCTS")
	now := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := st.Follow(ctx, now, 100); err != nil {
		t.Fatal(err)
	}
	redeliver := func(id string, at time.Time) {
		t.Helper()
		if err := st.Update(ctx, func(tx webhook.Tx) error { _, err := tx.Redeliver(ctx, id, at); return err }); err != nil {
			t.Fatal(err)
		}
	}
	delivery := func(id string) webhook.Delivery {
		t.Helper()
		ds, err := st.Deliveries(ctx, w.ID, "", 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.ID == id {
				return d
			}
		}
		t.Fatalf("no delivery %s", id)
		return webhook.Delivery{}
	}
	claimed, err := st.Claim(ctx, "A", now, time.Minute, 2)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claim: %d %v", len(claimed), err)
	}
	failing, delivered := claimed[0].ID, claimed[1].ID

	// An attempt in its schedule that fails: its record would set the
	// next attempt an hour later; the redelivery made it due at once.
	at := now.Add(time.Second)
	redeliver(failing, at)
	redeliver(failing, at) // twice: still one redelivery
	if c, _ := st.Claim(ctx, "B", at, time.Minute, 10); len(c) != 0 {
		t.Fatalf("claimed during the attempt's lease: %+v", c)
	}
	code, msg, later := 500, "HTTP 500", now.Add(time.Hour)
	ok, err := st.Record(ctx, "A", webhook.Result{DeliveryID: failing, Status: webhook.Pending, StatusCode: &code, Error: &msg, NextAttempt: &later})
	if !ok || err != nil {
		t.Fatalf("record of the attempt: %v %v, want it counted", ok, err)
	}
	if d := delivery(failing); d.Status != webhook.Pending || d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 500 ||
		d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(at) {
		t.Fatalf("after the record: %+v, want PENDING, 1 attempt, due at the redelivery %s", d, at)
	}

	// An attempt that succeeds: the redelivery still gives one more
	// attempt, the last (as for a redelivered DELIVERED delivery).
	redeliver(delivered, at)
	code200 := 200
	ok, err = st.Record(ctx, "A", webhook.Result{DeliveryID: delivered, Status: webhook.Delivered, StatusCode: &code200, DeliveredAt: &at})
	if !ok || err != nil {
		t.Fatalf("record of the delivered attempt: %v %v", ok, err)
	}
	if d := delivery(delivered); d.Status != webhook.Pending || d.Attempts != 1 || d.DeliveredAt == nil || !d.NextAttemptAt.Equal(at) {
		t.Fatalf("after the delivered record: %+v, want PENDING, due at %s, deliveredAt kept", d, at)
	}
	c, err := st.Claim(ctx, "C", at, time.Minute, 10)
	if err != nil || len(c) != 2 {
		t.Fatalf("claim the redeliveries: %+v %v", c, err)
	}
	for _, d := range c {
		if want := d.ID == delivered; d.LastTry != want {
			t.Errorf("delivery %s: last try %v, want %v", d.ID, d.LastTry, want)
		}
	}
	// A stale record, under a lease that was taken over, changes nothing.
	if ok, _ := st.Record(ctx, "A", webhook.Result{DeliveryID: failing, Status: webhook.Failed, StatusCode: &code}); ok {
		t.Fatal("record under a lost lease")
	}
}

// webhookClaimActor: the event of a claimed delivery is the event as the
// log holds it, actor included (event.list shows it: a webhook body is the
// same JSON).
func webhookClaimActor(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewWebhookStore(db)
	webhookSetup(t, st, true)
	e, err := event.New("PRODUCTS", event.Update, time.Now(), map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	e.Actor = "staff:s1"
	if err := db.Append(ctx, []event.Event{e}); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, db, 1, "PRODUCTS") // no actor (an API call)
	now := time.Now()
	if _, err := st.Follow(ctx, now, 100); err != nil {
		t.Fatal(err)
	}
	c, err := st.Claim(ctx, "A", now, time.Minute, 10)
	if err != nil || len(c) != 2 {
		t.Fatalf("claim: %d %v", len(c), err)
	}
	listed, err := db.List(ctx, event.Filter{Channel: "PRODUCTS", Limit: 10})
	if err != nil || len(listed) != 2 {
		t.Fatalf("list: %d %v", len(listed), err)
	}
	for i, l := range listed {
		if c[i].Event.ID != l.ID || c[i].Event.Actor != l.Actor {
			t.Errorf("claimed event %+v, want %+v", c[i].Event, l)
		}
	}
	if c[0].Event.Actor != "staff:s1" || c[1].Event.Actor != "" {
		t.Fatalf("actors %q %q, want staff:s1 and none", c[0].Event.Actor, c[1].Event.Actor)
	}
}
