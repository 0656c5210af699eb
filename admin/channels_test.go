package admin_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/admin"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestChannelsAreTheEmittedOnes: the channels the admin offers (the events
// filter, the webhooks' boxes) are exactly the channels of the events the
// service writes when every area changes something, and webhook.create
// takes each of them.
func TestChannelsAreTheEmittedOnes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db, mailOn(t))
		// A category, product, stock record and shipping method; a tax,
		// a promotion; a cart and its order, shipped, and a return; a customer
		// (and the welcome email sent to them); a webhook.
		productID := e.storeFixture(t, "CH-1")
		e.uploadImage(t, productID) // MEDIAS
		e.Post(t, "/tax/v1/tax.create", e.Admin, map[string]any{"code": "STD", "class": "default", "title": "Standard", "rate": 20, "isPercentage": true}).Must(t)
		e.Post(t, "/catalog/v1/priceList.create", e.Admin, map[string]any{"code": "ch", "currency": "USD"}).Must(t)
		e.Post(t, "/promotion/v1/promotion.create", e.Admin, map[string]any{"title": "P", "class": "default", "active": true, "priority": 0,
			"if":   map[string]any{"product": map[string]any{"id": productID, "quantity": 1}},
			"then": map[string]any{"product": map[string]any{"id": productID, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}}}).Must(t)
		orderID := e.anonymousOrder(t, productID)
		var o struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		e.Post(t, "/order/v1/order.fulfill", e.Admin, map[string]any{"id": orderID}).Must(t).Decode(t, "order", &o)
		e.Post(t, "/order/v1/return.request", e.Admin, map[string]any{"orderId": orderID,
			"items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}}).Must(t)
		e.Post(t, "/customer/v1/customer.register", e.API, map[string]any{"email": "ch@example.com", "password": "a long customer password",
			"firstName": "C", "lastName": "H"}).Must(t)
		b := e.browser(t)
		b.mustSignIn()
		form := url.Values{"csrf": {b.csrf("/admin/webhooks")}, "url": {"http://127.0.0.1:9/hook"}, "active": {"on"}, "channels": admin.Channels}
		if got := b.post("/admin/webhooks", form); got.Status != 200 || !strings.Contains(got.Body, "whsec_") {
			t.Fatalf("a webhook on every channel offered: %d\n%s", got.Status, got.Body)
		}

		var evs []struct {
			Channel string `json:"channel"`
		}
		for deadline := time.Now().Add(20 * time.Second); ; {
			e.Get(t, "/event/v1/event.list?channel=MAILS", e.Admin).Must(t).Decode(t, "data", &evs)
			if len(evs) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		e.Get(t, "/event/v1/event.list?limit=1000", e.Admin).Must(t).Decode(t, "data", &evs)
		emitted := map[string]bool{}
		for _, ev := range evs {
			emitted[ev.Channel] = true
		}
		for _, c := range admin.Channels {
			if !emitted[c] {
				t.Errorf("channel %s is offered, but no event was written on it", c)
			}
		}
		for c := range emitted {
			if !slices.Contains(admin.Channels, c) {
				t.Errorf("events are written on %s, which is not offered", c)
			}
		}
		var hooks []struct {
			Channels []string `json:"channels"`
		}
		e.Get(t, "/event/v1/webhook.list", e.Admin).Must(t).Decode(t, "data", &hooks)
		if len(hooks) != 1 || !slices.Equal(hooks[0].Channels, admin.Channels) {
			b, _ := json.Marshal(hooks)
			t.Errorf("the webhook's channels: %s, want %q", b, admin.Channels)
		}
		for _, p := range []string{"/admin/events", "/admin/webhooks"} {
			if got := b.get(p); strings.Contains(got.Body, "COUPONS") {
				t.Errorf("%s offers COUPONS, a channel nothing emits", p)
			}
		}
	})
}
