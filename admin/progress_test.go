package admin_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

var formTagRE = regexp.MustCompile(`<form [^>]*>`)

// formTag returns the opening tag of the page's form posting to action.
func formTag(t *testing.T, body, action string) string {
	t.Helper()
	for _, tag := range formTagRE.FindAllString(body, -1) {
		if strings.Contains(tag, ` method="post"`) && strings.Contains(tag, ` action="`+action+`"`) {
			return tag
		}
	}
	t.Fatalf("no form posting to %s in the page", action)
	return ""
}

// checkBusy fails unless the page's form posting to action shows progress:
// htmx posts it to the same action, with the progress region as its
// indicator and its button disabled while it runs, and the page has the
// progress region, a live region whose text appears during a request.
func checkBusy(t *testing.T, body, action string) {
	t.Helper()
	tag := formTag(t, body, action)
	for _, want := range []string{` hx-post="` + action + `"`, ` hx-indicator="#progress"`, ` hx-disabled-elt="find button"`} {
		if !strings.Contains(tag, want) {
			t.Errorf("the form to %s lacks%s: %s", action, want, tag)
		}
	}
	if !strings.Contains(body, `<div id="progress" class="progress" role="status" aria-live="polite"><span class="busy">Working`) {
		t.Errorf("the page of the form to %s has no progress live region", action)
	}
}

// TestLongActionsShowProgress: every form whose action calls the payment
// provider or may take long (capture, fulfil, refund, cancel, deliver,
// redeliver, the webhooks' forms, the product's and its stock's) shows
// progress and cannot be sent twice from the page while it runs.
func TestLongActionsShowProgress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		productID := e.storeFixture(t, "PR-1")
		hook := e.Post(t, "/event/v1/webhook.create", e.Admin, map[string]any{"url": "http://127.0.0.1:9/hook", "channels": []string{"ORDERS"}}).Must(t)
		var wh struct{ ID string }
		hook.Decode(t, "webhook", &wh)

		placed := e.anonymousOrder(t, productID)
		page := b.get("/admin/orders/" + placed)
		for _, a := range []string{"capture", "fulfill", "cancel"} {
			checkBusy(t, page.Body, "/admin/orders/"+placed+"/"+a)
		}
		paid := e.paidOrder(t, productID)
		e.Post(t, "/order/v1/order.fulfill", e.Admin, map[string]any{"id": paid}).Must(t)
		page = b.get("/admin/orders/" + paid)
		for _, a := range []string{"refund", "deliver"} {
			checkBusy(t, page.Body, "/admin/orders/"+paid+"/"+a)
		}
		checkBusy(t, b.get("/admin/products/new").Body, "/admin/products/new")
		page = b.get("/admin/products/" + productID)
		checkBusy(t, page.Body, "/admin/products/"+productID)
		checkBusy(t, page.Body, "/admin/products/"+productID+"/stock")
		checkBusy(t, b.get("/admin/webhooks").Body, "/admin/webhooks")
		// The orders' events are delivered (and fail: nothing listens):
		// each delivery has its redeliver form.
		deadline := time.Now().Add(15 * time.Second)
		for page = b.get("/admin/webhooks/" + wh.ID); !strings.Contains(page.Body, `class="redeliver"`); page = b.get("/admin/webhooks/" + wh.ID) {
			if time.Now().After(deadline) {
				t.Fatal("no delivery on the webhook's page")
			}
			time.Sleep(100 * time.Millisecond)
		}
		for _, a := range []string{"", "/remove", "/redeliver"} {
			checkBusy(t, page.Body, "/admin/webhooks/"+wh.ID+a)
		}
		// The try-it of a promotion shows it too, in its own answer box.
		res := e.Post(t, "/promotion/v1/promotion.create", e.Admin, map[string]any{"title": "P", "class": "default", "active": true, "priority": 0,
			"if":   map[string]any{"product": map[string]any{"id": productID, "quantity": 1}},
			"then": map[string]any{"product": map[string]any{"id": productID, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}}}).Must(t)
		var pr struct{ ID string }
		res.Decode(t, "promotion", &pr)
		tag := formTag(t, b.get("/admin/promotions/"+pr.ID).Body, "/admin/promotions/"+pr.ID+"/try")
		if !strings.Contains(tag, `hx-indicator="#progress"`) || !strings.Contains(tag, `hx-disabled-elt="find button"`) {
			t.Errorf("the try-it form shows no progress: %s", tag)
		}
	})
}
