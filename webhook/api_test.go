package webhook_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/webhook"
)

func TestWebhookOperations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s, _ := start(t, db, options("1h", 2*time.Second))
		r := newReceiver(t)
		res := s.Post(t, "/event/v1/webhook.create", s.Admin, map[string]any{
			"url": r.URL + "/hook", "channels": "PRODUCTS,CARTS", "description": "erp"}).Must(t)
		var w webhook.Webhook
		var secret string
		res.Decode(t, "webhook", &w)
		res.Decode(t, "secret", &secret)
		raw, err := base64Decode(strings.TrimPrefix(secret, "whsec_"))
		if !strings.HasPrefix(secret, "whsec_") || err != nil || len(raw) < 24 {
			t.Fatalf("secret %q: want whsec_ and base64 of 24 or more bytes", secret)
		}
		if w.ID == "" || !w.Active || mustJSON(w.Channels) != `["PRODUCTS","CARTS"]` || w.Types != nil || w.Description == nil || *w.Description != "erp" || w.CreatedAt.IsZero() {
			t.Fatalf("created %+v", w)
		}
		// The secret is shown only at create, and not stored as is.
		info := s.Post(t, "/event/v1/webhook.info", s.Admin, map[string]any{"id": w.ID}).Must(t)
		list := s.Get(t, "/event/v1/webhook.list", s.Admin).Must(t)
		for _, b := range [][]byte{info.Raw, list.Raw} {
			if strings.Contains(string(b), secret) || strings.Contains(string(b), "secret") {
				t.Fatalf("secret shown after create: %s", b)
			}
		}
		var stored string
		if err := db.QueryRow(context.Background(), `SELECT secret FROM webhooks WHERE id = ?`, w.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored == secret || strings.Contains(stored, strings.TrimPrefix(secret, "whsec_")) {
			t.Fatal("secret stored in clear")
		}
		var listed []webhook.Webhook
		list.Decode(t, "data", &listed)
		if len(listed) != 1 || listed[0].ID != w.ID {
			t.Fatalf("list: %s", list.Raw)
		}

		up := s.Post(t, "/event/v1/webhook.update", s.Admin, map[string]any{"id": w.ID, "types": "CREATE", "active": false}).Must(t)
		var w2 webhook.Webhook
		up.Decode(t, "webhook", &w2)
		if w2.Active || mustJSON(w2.Types) != `["CREATE"]` || w2.URL != w.URL {
			t.Fatalf("updated %s", up.Raw)
		}

		// Validation and unknown ids.
		for _, body := range []map[string]any{
			{"channels": "PRODUCTS"},
			{"url": "ftp://example.com/x", "channels": "PRODUCTS"},
			{"url": "not a url", "channels": "PRODUCTS"},
			{"url": r.URL},
			{"url": r.URL, "channels": []string{}},
			{"url": r.URL, "channels": "PRODUCTS", "secret": "x"},
		} {
			s.Post(t, "/event/v1/webhook.create", s.Admin, body).Expect(t, 400, "validation_error")
		}
		// A channel nothing emits on (COUPONS: coupons are PROMOTIONS) would
		// never get a delivery: refused, at create and at update, naming it.
		res = s.Post(t, "/event/v1/webhook.create", s.Admin, map[string]any{"url": r.URL, "channels": []string{"PRODUCTS", "COUPONS"}}).Expect(t, 400, "validation_error")
		if !strings.Contains(string(res.Data), `channels[1]: must be one of PRODUCTS`) {
			t.Errorf("unknown channel: data %s, want channels[1] named", res.Data)
		}
		s.Post(t, "/event/v1/webhook.update", s.Admin, map[string]any{"id": w.ID, "channels": []string{"products"}}).Expect(t, 400, "validation_error")
		for _, r := range []struct {
			op   string
			body map[string]any
			code string
		}{
			{"webhook.info", map[string]any{"id": "nope"}, "webhook_not_found"},
			{"webhook.update", map[string]any{"id": "nope", "active": true}, "webhook_not_found"},
			{"webhook.remove", map[string]any{"id": "nope"}, "webhook_not_found"},
			{"webhook.deliveries", map[string]any{"webhookId": "nope"}, "webhook_not_found"},
			{"webhook.redeliver", map[string]any{"deliveryId": "nope"}, "delivery_not_found"},
		} {
			// Data: the id.
			if res := s.Post(t, "/event/v1/"+r.op, s.Admin, r.body).Expect(t, 404, r.code); string(res.Data) != `"nope"` {
				t.Errorf("%s: data %s, want the id", r.op, res.Data)
			}
		}
		s.Post(t, "/event/v1/webhook.deliveries", s.Admin, map[string]any{"status": "DONE"}).Expect(t, 400, "validation_error")

		// Admin only: an api token changes nothing.
		for _, op := range []string{"create", "info", "list", "update", "remove", "deliveries", "redeliver"} {
			s.Post(t, "/event/v1/webhook."+op, s.API, map[string]any{"id": w.ID}).Expect(t, 403, "forbidden")
		}
		s.Get(t, "/event/v1/webhook.deliveries", s.Admin).Must(t)
		s.Get(t, "/event/v1/webhook.update", s.Admin).Expect(t, 405, "method_not_allowed")
		s.Post(t, "/cart/v1/webhook.list", s.Admin, nil).Expect(t, 404, "operation_not_found")

		rm := s.Post(t, "/event/v1/webhook.remove", s.Admin, map[string]any{"id": w.ID}).Must(t)
		var w3 webhook.Webhook
		rm.Decode(t, "webhook", &w3)
		if w3.ID != w.ID {
			t.Fatalf("removed %s", rm.Raw)
		}
		s.Post(t, "/event/v1/webhook.info", s.Admin, map[string]any{"id": w.ID}).Expect(t, 404, "webhook_not_found")

		// Each change is an event of the WEBHOOKS channel, without the secret.
		evs, err := db.List(context.Background(), event.Filter{Channel: event.Webhooks, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 3 || evs[0].Type != "CREATE" || evs[1].Type != "UPDATE" || evs[2].Type != "REMOVE" {
			t.Fatalf("webhook events: %+v", evs)
		}
		for _, e := range evs {
			if strings.Contains(string(e.Payload), strings.TrimPrefix(secret, "whsec_")) {
				t.Fatal("secret in an event")
			}
		}
	})
}

// TestWebhookRetries: a receiver that answers 500, times out, answers 503
// then 200 gets four attempts of the same signed message; the delivery is
// DELIVERED with attempts 4. One that always fails is FAILED after the
// schedule, and redeliver gives it one more attempt on the same record.
func TestWebhookRetries(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s, _ := start(t, db, options("50ms,50ms,50ms", 300*time.Millisecond))
		r := newReceiver(t, 500, 0, 503)
		id := createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS"})
		e := appendEvent(t, db, "PRODUCTS", "CREATE")
		var d webhook.Delivery
		waitFor(t, 20*time.Second, "delivered", func() bool {
			ds := deliveries(t, s, id)
			if len(ds) == 1 {
				d = ds[0]
			}
			return d.Status == webhook.Delivered
		})
		if d.Attempts != 4 || d.EventID != e.ID || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.DeliveredAt == nil {
			t.Fatalf("delivery %s", mustJSON(d))
		}
		want, _ := json.Marshal(e)
		hits := r.snapshot()
		if len(hits) != 4 {
			t.Fatalf("%d attempts, want 4", len(hits))
		}
		for i, h := range hits {
			if h.id != e.ID || !h.valid || string(h.body) != string(want) {
				t.Fatalf("attempt %d: id %s valid %v body %s, want %s signed, body %s", i, h.id, h.valid, h.body, e.ID, want)
			}
		}

		// Always failing: 1 + 3 retries, then FAILED.
		bad := newReceiver(t, 500, 500, 500, 500, 500, 200)
		badID := createWebhook(t, s, bad, map[string]any{"channels": "CARTS", "types": "CHECKOUT"})
		appendEvent(t, db, "CARTS", "UPDATE") // another type: no delivery
		appendEvent(t, db, "CARTS", "CHECKOUT")
		waitFor(t, 20*time.Second, "failed", func() bool {
			ds := deliveries(t, s, badID)
			if len(ds) == 1 {
				d = ds[0]
			}
			return d.Status == webhook.Failed
		})
		if d.Attempts != 4 || *d.LastStatusCode != 500 || d.LastError == nil || d.NextAttemptAt != nil || d.DeliveredAt != nil {
			t.Fatalf("failed delivery %s", mustJSON(d))
		}
		res := s.Post(t, "/event/v1/webhook.deliveries", s.Admin, map[string]any{"status": "FAILED"}).Must(t)
		var failed []webhook.Delivery
		res.Decode(t, "data", &failed)
		if len(failed) != 1 || failed[0].ID != d.ID {
			t.Fatalf("FAILED deliveries: %s", res.Raw)
		}
		// Redeliver: one more attempt (the 5th answer is 500 again).
		res = s.Post(t, "/event/v1/webhook.redeliver", s.Admin, map[string]any{"deliveryId": d.ID}).Must(t)
		var rd webhook.Delivery
		res.Decode(t, "delivery", &rd)
		if rd.ID != d.ID || rd.Status != webhook.Pending || rd.Attempts != 4 {
			t.Fatalf("redeliver: %s", res.Raw)
		}
		waitFor(t, 20*time.Second, "failed again", func() bool {
			d = deliveries(t, s, badID)[0]
			return d.Attempts == 5 && d.Status == webhook.Failed
		})
		// Once more: the receiver now answers 200.
		s.Post(t, "/event/v1/webhook.redeliver", s.Admin, map[string]any{"deliveryId": d.ID}).Must(t)
		waitFor(t, 20*time.Second, "delivered on redelivery", func() bool {
			d = deliveries(t, s, badID)[0]
			return d.Status == webhook.Delivered
		})
		if d.Attempts != 6 || len(bad.snapshot()) != 6 {
			t.Fatalf("after redeliveries: %s, %d requests", mustJSON(d), len(bad.snapshot()))
		}
		// A delivered delivery may be redelivered too.
		s.Post(t, "/event/v1/webhook.redeliver", s.Admin, map[string]any{"deliveryId": d.ID}).Must(t)
		waitFor(t, 20*time.Second, "delivered again", func() bool {
			d = deliveries(t, s, badID)[0]
			return d.Attempts == 7 && d.Status == webhook.Delivered
		})
	})
}

// TestWebhookActivity: events written before a webhook exists, or while
// it is inactive, get no delivery; the others, one each.
func TestWebhookActivity(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s, _ := start(t, db, options("1h", 2*time.Second))
		r := newReceiver(t)
		appendEvent(t, db, "PRODUCTS", "CREATE") // before the webhook
		id := createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS", "active": false})
		appendEvent(t, db, "PRODUCTS", "CREATE") // inactive
		s.Post(t, "/event/v1/webhook.update", s.Admin, map[string]any{"id": id, "active": true}).Must(t)
		e1 := appendEvent(t, db, "PRODUCTS", "UPDATE")
		appendEvent(t, db, "STOCK", "UPDATE") // another channel
		s.Post(t, "/event/v1/webhook.update", s.Admin, map[string]any{"id": id, "active": false}).Must(t)
		appendEvent(t, db, "PRODUCTS", "REMOVE") // inactive again
		s.Post(t, "/event/v1/webhook.update", s.Admin, map[string]any{"id": id, "active": true}).Must(t)
		e2 := appendEvent(t, db, "PRODUCTS", "CREATE")
		waitFor(t, 20*time.Second, "two deliveries delivered", func() bool {
			ds := deliveries(t, s, id)
			return len(ds) == 2 && ds[0].Status == webhook.Delivered && ds[1].Status == webhook.Delivered
		})
		time.Sleep(300 * time.Millisecond) // let a wrong extra delivery show
		ds := deliveries(t, s, id)
		if len(ds) != 2 || ds[0].EventID != e1.ID || ds[1].EventID != e2.ID {
			t.Fatalf("deliveries %s, want events %s and %s", mustJSON(ds), e1.ID, e2.ID)
		}
		if n := len(r.snapshot()); n != 2 {
			t.Fatalf("%d requests, want 2", n)
		}
	})
}

// TestWebhookRestart: a delivery that failed its first attempt, and an
// event written while the service is down, are delivered after a restart.
func TestWebhookRestart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s, stop := start(t, db, options("1s", 2*time.Second))
		r := newReceiver(t, 500)
		id := createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS"})
		e1 := appendEvent(t, db, "PRODUCTS", "CREATE")
		waitFor(t, 20*time.Second, "first attempt", func() bool {
			ds := deliveries(t, s, id)
			return len(ds) == 1 && ds[0].Attempts == 1
		})
		stop()
		e2 := appendEvent(t, db, "PRODUCTS", "UPDATE")
		s, _ = start(t, db, options("1s", 2*time.Second))
		var ds []webhook.Delivery
		waitFor(t, 20*time.Second, "both delivered", func() bool {
			ds = deliveries(t, s, id)
			return len(ds) == 2 && ds[0].Status == webhook.Delivered && ds[1].Status == webhook.Delivered
		})
		if ds[0].EventID != e1.ID || ds[0].Attempts != 2 || ds[1].EventID != e2.ID || ds[1].Attempts != 1 {
			t.Fatalf("deliveries %s", mustJSON(ds))
		}
		for _, h := range r.snapshot() {
			if !h.valid {
				t.Fatalf("bad signature on %s", h.id)
			}
		}
	})
}

func TestWebhookUnknownRoute(t *testing.T) {
	s, _ := start(t, testdb.SQLite(t), options("1h", time.Second))
	s.Do(t, http.MethodDelete, "/event/v1/webhook.create", s.Admin, nil).Expect(t, 405, "method_not_allowed")
}

// TestWebhookBodyIsTheEventJSON: the body of an attempt is the event's
// JSON exactly as event.list shows it, actor included for a change made
// through the admin app.
func TestWebhookBodyIsTheEventJSON(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s, _ := start(t, db, options("1h", 2*time.Second))
		r := newReceiver(t)
		createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS"})
		e, err := event.New("PRODUCTS", event.Update, time.Now(), map[string]any{"id": "p1"})
		if err != nil {
			t.Fatal(err)
		}
		e.Actor = "staff:s1"
		if err := db.Append(context.Background(), []event.Event{e}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 20*time.Second, "the attempt", func() bool { return len(r.snapshot()) == 1 })
		var listed []json.RawMessage
		s.Post(t, "/event/v1/event.list", s.Admin, map[string]any{"channel": "PRODUCTS"}).Must(t).Decode(t, "data", &listed)
		if len(listed) != 1 || !strings.Contains(string(listed[0]), `"actor":"staff:s1"`) {
			t.Fatalf("event.list: %s", listed)
		}
		if h := r.snapshot()[0]; string(h.body) != string(listed[0]) || !h.valid {
			t.Fatalf("body %s (valid %v), want the event as event.list shows it: %s", h.body, h.valid, listed[0])
		}
	})
}
