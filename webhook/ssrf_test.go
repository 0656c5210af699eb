package webhook_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/webhook"
)

func noPrivate(o *app.Options) { o.WebhookAllowPrivate = false }

// TestWebhookPrivateTargets: without --webhook-allow-private a private
// target is refused at create; and a webhook whose host resolves to a
// private address at delivery time (created while allowed, here
// "localhost", resolved when connecting) is not called.
func TestWebhookPrivateTargets(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s, stop := start(t, db, options("50ms", time.Second), noPrivate)
		for _, u := range []string{"http://127.0.0.1:9/x", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://10.1.2.3/",
			"http://192.168.0.10/", "http://169.254.169.254/", "http://0.0.0.0/", "http://[::]/", "http://localhost/"} {
			res := s.Post(t, "/event/v1/webhook.create", s.Admin, map[string]any{"url": u, "channels": "PRODUCTS"}).Expect(t, 400, "validation_error")
			if !strings.Contains(string(res.Data), "url") {
				t.Fatalf("%s: %s", u, res.Raw)
			}
		}
		var none []webhook.Webhook
		s.Get(t, "/event/v1/webhook.list", s.Admin).Must(t).Decode(t, "data", &none)
		if len(none) != 0 {
			t.Fatalf("refused webhooks were created: %+v", none)
		}
		stop()

		// Created while private targets are allowed...
		r := newReceiver(t)
		allowed, stop := start(t, db, options("50ms", time.Second))
		ru, _ := url.Parse(r.URL)
		id := createWebhook(t, allowed, r, map[string]any{"url": "http://localhost:" + ru.Port() + "/hook", "channels": "PRODUCTS"})
		stop()
		// ...delivered by a service that does not allow them: the
		// address connected to is checked, and refused.
		s, _ = start(t, db, options("50ms", time.Second), noPrivate)
		s.Post(t, "/event/v1/webhook.update", s.Admin, map[string]any{"id": id, "url": "http://10.0.0.1/hook"}).Expect(t, 400, "validation_error")
		var kept webhook.Webhook
		s.Post(t, "/event/v1/webhook.info", s.Admin, map[string]any{"id": id}).Must(t).Decode(t, "webhook", &kept)
		if !strings.HasPrefix(kept.URL, "http://localhost:") {
			t.Fatalf("a refused update changed the url: %s", kept.URL)
		}
		appendEvent(t, db, "PRODUCTS", "CREATE")
		var d webhook.Delivery
		waitFor(t, 20*time.Second, "failed", func() bool {
			ds := deliveries(t, s, id)
			if len(ds) == 1 {
				d = ds[0]
			}
			return d.Status == webhook.Failed
		})
		if d.Attempts != 2 || d.LastError == nil || !strings.Contains(*d.LastError, "refusing to connect") || d.LastStatusCode != nil {
			t.Fatalf("delivery %s", mustJSON(d))
		}
		if n := len(r.snapshot()); n != 0 {
			t.Fatalf("the private target was called %d times", n)
		}
	})
}
