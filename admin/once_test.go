package admin_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// orderRecord is what the double-submit tests read of an order.
type orderRecord struct {
	Status        string            `json:"status"`
	PaymentStatus string            `json:"paymentStatus"`
	Refunds       []json.RawMessage `json:"refunds"`
	Fulfillments  []json.RawMessage `json:"fulfillments"`
}

func (e *env) order(t *testing.T, id string) orderRecord {
	t.Helper()
	var o orderRecord
	e.Get(t, "/order/v1/order.info?id="+id, e.Admin).Must(t).Decode(t, "order", &o)
	return o
}

// sendTwice posts the form twice, as a double click does, and checks that
// both answers are the same redirect to the order.
func sendTwice(t *testing.T, b *browser, path string, form url.Values, orderID, action string) {
	t.Helper()
	for i := range 2 {
		got := b.post(path, form)
		if got.Status != http.StatusSeeOther || got.Location != "/admin/orders/"+orderID+"?done="+action {
			t.Fatalf("%s sent %d times: %d %q\n%s", action, i+1, got.Status, got.Location, got.Body)
		}
	}
}

// TestFormSentTwiceRunsOnce: each action form carries a one-time token, a
// fresh one in each rendering; the same form sent twice (a double click,
// a resend) runs its operation once, and the second sending gets the
// first's answer, even when both run at the same time.
func TestFormSentTwiceRunsOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		productID := e.storeFixture(t, "ONCE-1")

		// A refund sent twice: refunded once.
		paid := e.paidOrder(t, productID)
		path := "/admin/orders/" + paid
		body := b.get(path).Body
		hidden := formOf(t, body, path+"/refund")
		if hidden["once"] == "" {
			t.Fatal("the refund form has no one-time token")
		}
		if again := formOf(t, b.get(path).Body, path+"/refund"); again["once"] == hidden["once"] {
			t.Error("two renderings of the refund form have the same token")
		}
		form := url.Values{"csrf": {hidden["csrf"]}, "once": {hidden["once"]}, "amount": {"10"}, "refundReason": {"dented"}}
		sendTwice(t, b, path+"/refund", form, paid, "refund")
		if o := e.order(t, paid); len(o.Refunds) != 1 || o.PaymentStatus != "PARTIALLY_REFUNDED" {
			t.Fatalf("refund sent twice: %d refunds, %s; want 1, PARTIALLY_REFUNDED", len(o.Refunds), o.PaymentStatus)
		}
		// The form of the next rendering refunds again: another token.
		next := formOf(t, b.get(path).Body, path+"/refund")
		form.Set("once", next["once"])
		if got := b.post(path+"/refund", form); got.Status != http.StatusSeeOther {
			t.Fatalf("a second refund from a new form: %d\n%s", got.Status, got.Body)
		}
		if o := e.order(t, paid); len(o.Refunds) != 2 {
			t.Fatalf("a new form's refund: %d refunds, want 2", len(o.Refunds))
		}

		// Capture, fulfil and cancel sent twice: the second sending is no
		// invalid_order_state (nothing left to do) but the first's answer.
		placed := e.anonymousOrder(t, productID)
		path = "/admin/orders/" + placed
		capture := formOf(t, b.get(path).Body, path+"/capture")
		sendTwice(t, b, path+"/capture", url.Values{"csrf": {capture["csrf"]}, "once": {capture["once"]}}, placed, "capture")
		fulfil := formOf(t, b.get(path).Body, path+"/fulfill")
		sendTwice(t, b, path+"/fulfill", url.Values{"csrf": {fulfil["csrf"]}, "once": {fulfil["once"]}, "carrier": {"UPS"}}, placed, "fulfill")
		if o := e.order(t, placed); o.PaymentStatus != "PAID" || len(o.Fulfillments) != 1 {
			t.Fatalf("capture and fulfil sent twice: %s, %d fulfilments", o.PaymentStatus, len(o.Fulfillments))
		}
		other := e.anonymousOrder(t, productID)
		path = "/admin/orders/" + other
		cancel := formOf(t, b.get(path).Body, path+"/cancel")
		sendTwice(t, b, path+"/cancel", url.Values{"csrf": {cancel["csrf"]}, "once": {cancel["once"]}, "reason": {"changed"}, "confirmed": {"yes"}}, other, "cancel")
		if o := e.order(t, other); o.Status != "CANCELLED" {
			t.Fatalf("cancel sent twice: %s", o.Status)
		}
		var evs []struct {
			Type string `json:"type"`
		}
		e.Get(t, "/event/v1/event.list?channel=ORDERS&limit=1000", e.Admin).Must(t).Decode(t, "data", &evs)
		n := map[string]int{}
		for _, ev := range evs {
			n[ev.Type]++
		}
		if n["CAPTURE"] != 2 || n["FULFILL"] != 1 || n["CANCEL"] != 1 || n["REFUND"] != 2 {
			t.Errorf("ORDERS events %v: want 2 CAPTURE (the paid order's and this one's), 1 FULFILL, 1 CANCEL, 2 REFUND", n)
		}

		// Sent many times at once: all answer the redirect, one refund.
		paid = e.paidOrder(t, productID)
		path = "/admin/orders/" + paid
		hidden = formOf(t, b.get(path).Body, path+"/refund")
		form = url.Values{"csrf": {hidden["csrf"]}, "once": {hidden["once"]}, "amount": {"5"}}
		var wg sync.WaitGroup
		answers := make([]page, 6)
		for i := range answers {
			wg.Go(func() { answers[i] = b.post(path+"/refund", form) })
		}
		wg.Wait()
		for i, got := range answers {
			if got.Status != http.StatusSeeOther || !strings.HasSuffix(got.Location, "?done=refund") {
				t.Errorf("parallel sending %d: %d %q\n%s", i, got.Status, got.Location, got.Body)
			}
		}
		if o := e.order(t, paid); len(o.Refunds) != 1 {
			t.Fatalf("refund sent 6 times at once: %d refunds, want 1", len(o.Refunds))
		}
	})
}

// TestCreateFormSentTwiceCreatesOnce: a create form sent twice makes one
// record (shipping methods have no unique key that would stop the second).
func TestCreateFormSentTwiceCreatesOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		hidden := formOf(t, b.get("/admin/shipping").Body, "/admin/shipping")
		form := url.Values{"csrf": {hidden["csrf"]}, "once": {hidden["once"]}, "title": {"Courier"}, "active": {"on"},
			"rates": {`[{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}]}]`}}
		for i := range 2 {
			if got := b.post("/admin/shipping", form); got.Status != http.StatusSeeOther {
				t.Fatalf("sending %d: %d\n%s", i+1, got.Status, got.Body)
			}
		}
		var methods []json.RawMessage
		e.Get(t, "/cart/v1/shipping.list?title=Courier", e.Admin).Must(t).Decode(t, "data", &methods)
		if len(methods) != 1 {
			t.Fatalf("the form sent twice made %d shipping methods, want 1", len(methods))
		}
	})
}
