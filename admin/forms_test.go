package admin_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// twoItemOrder checks out one unit of each product from an anonymous
// cart and captures it: a refundable order of two items. It returns the
// order's id and its item ids by product.
func (e *env) twoItemOrder(t *testing.T, a, b string) (string, map[string]string) {
	t.Helper()
	var c struct{ ID string }
	e.Post(t, "/cart/v1/cart.create", e.API, map[string]any{"currency": "USD", "country": "US"}).Must(t).Decode(t, "cart", &c)
	e.Post(t, "/cart/v1/cart.addToCart", e.API, map[string]any{"cartId": c.ID, "items": []any{
		map[string]any{"productId": a, "quantity": 1, "warehouseId": "W1"}, map[string]any{"productId": b, "quantity": 1, "warehouseId": "W1"}}}).Must(t)
	e.Post(t, "/cart/v1/cart.setShippingAddress", e.API, map[string]any{"cartId": c.ID, "shippingAddress": map[string]any{
		"firstName": "Charles", "lastName": "Babbage", "address_1": "2 Main St", "postCode": "96815", "city": "Honolulu", "state": "HI", "country": "US"}}).Must(t)
	id := e.checkout(t, e.API, c.ID)
	e.Post(t, "/order/v1/order.capture", e.Admin, map[string]any{"id": id}).Must(t)
	var o struct {
		Items []struct{ ID, ProductID string }
	}
	e.Get(t, "/order/v1/order.info?id="+id, e.Admin).Must(t).Decode(t, "order", &o)
	items := map[string]string{}
	for _, it := range o.Items {
		items[it.ProductID] = it.ID
	}
	return id, items
}

// errorBox returns the page's error box and the form it is in ("" when
// it is in none).
func errorBox(t *testing.T, body string) (box, form string) {
	t.Helper()
	i := strings.Index(body, `<div class="error" role="alert" id="error" tabindex="-1" autofocus`)
	if i < 0 {
		t.Fatalf("no error box (role=alert, focused on load) in the page\n%s", body)
	}
	box = body[i:]
	box = box[:strings.Index(box, "</div>")]
	before := body[:i]
	if open := strings.LastIndex(before, "<form "); open >= 0 && !strings.Contains(before[open:], "</form>") {
		if m := regexp.MustCompile(`id="([^"]+)"`).FindStringSubmatch(before[open:]); m != nil {
			form = m[1]
		}
	}
	return box, form
}

// visible is an HTML fragment's text without its tags and attributes.
func visible(fragment string) string {
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(fragment, ""))
}

// TestFormErrorsAtTheirForm: a form that fails shows its error inside it
// (not at the top of the page), announced and focused on load, in words:
// money in major units with its currency, no code, no JSON; each field
// problem next to its field, items[k] of a refund on the right item's
// row (the form's fields are sent in another order than shown) and a
// product's prices[k] on the right row of the price table (blank rows are
// not sent); a regular expression's parser error as a sentence.
func TestFormErrorsAtTheirForm(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		pa, pb := e.storeFixture(t, "ERR-A"), e.storeFixture(t, "ERR-B")
		orderID, items := e.twoItemOrder(t, pa, pb)
		path := "/admin/orders/" + orderID
		hidden := formOf(t, b.get(path).Body, path+"/refund")

		// More than captured: 250 + 250 + 5 shipping.
		got := b.post(path+"/refund", url.Values{"csrf": {hidden["csrf"]}, "once": {hidden["once"]}, "amount": {"100000"}})
		box, form := errorBox(t, got.Body)
		if got.Status != http.StatusBadRequest || form != "refund-form" || !strings.Contains(box, `data-code="refund_exceeds_captured"`) ||
			strings.TrimSpace(visible(box+"</div>")) != "You can refund at most 505.00 USD." {
			t.Errorf("over-refund: %d, box in form %q: %s", got.Status, form, box)
		}
		if strings.Count(got.Body, `role="alert" id="error"`) != 1 {
			t.Error("the error is shown more than once")
		}

		// Too many units of the second item: its row says so, by name.
		hidden = formOf(t, b.get(path).Body, path+"/refund")
		got = b.post(path+"/refund", url.Values{"csrf": {hidden["csrf"]}, "once": {hidden["once"]}, "amount": {"1"},
			"refund_" + items[pa]: {"1"}, "refund_" + items[pb]: {"5"}})
		box, form = errorBox(t, got.Body)
		if got.Status != http.StatusBadRequest || form != "refund-form" {
			t.Fatalf("refund of too many units: %d, box in %q\n%s", got.Status, form, got.Body)
		}
		m := regexp.MustCompile(`<p class="field-error" id="refund_` + items[pb] + `-error">([^<]*)</p>`).FindStringSubmatch(got.Body)
		if m == nil || !strings.Contains(m[1], "ERR-B") || strings.Contains(m[1], items[pb]) {
			t.Errorf("the second item's row has no problem naming it (want ERR-B, not its id): %v\n%s", m, got.Body)
		}
		if strings.Contains(got.Body, `id="refund_`+items[pa]+`-error"`) {
			t.Error("the first item's row has a problem")
		}
		if !strings.Contains(got.Body, `id="refund_`+items[pb]+`" name="refund_`+items[pb]+`" inputmode="numeric" value="5" aria-invalid="true" aria-describedby="refund_`+items[pb]+`-error"`) {
			t.Error("the second item's field is not marked invalid and described by its problem")
		}
		if !strings.Contains(box, `<a href="#refund_`+items[pb]+`">Quantity returned of ERR-B - Product ERR-B</a>`) || strings.Contains(visible(box), "items[") {
			t.Errorf("the box does not link the problem to its field in words: %s", box)
		}

		// A product's third row (the second is blank but for a country, so
		// not sent): prices[1] is that row.
		form2 := url.Values{"csrf": {b.csrf("/admin/products/new")}, "sku": {"ERR-C"}, "title": {"C"}, "status": {"ONLINE"}, "stockStatus": {"0"},
			"price_id": {"", "", ""}, "price_amount": {"10", "", "ten"}, "price_currency": {"USD", "", "EUR"}, "price_country": {"", "ES", ""},
			"price_customerType": {"", "", ""}, "price_channel": {"", "", ""},
			"categories": {e.categoryID(t, "cat-err-a")}}
		got = b.post("/admin/products/new", form2)
		if _, form := errorBox(t, got.Body); got.Status != http.StatusBadRequest || form != "product-form" ||
			!strings.Contains(got.Body, `<p class="field-error" id="pa2-error">`) || strings.Contains(got.Body, `id="pa1-error"`) {
			t.Errorf("a bad amount in the third row: %d, want its problem at pa2\n%s", got.Status, got.Body)
		}

		// A filter's regular expression that does not parse.
		got = b.get("/admin/products?title=" + url.QueryEscape("(fridge"))
		if _, form := errorBox(t, got.Body); got.Status != http.StatusBadRequest || form != "filters" ||
			!strings.Contains(got.Body, `<p class="field-error" id="f-title-error">Is not a valid pattern: an opening bracket “(” is never closed (at “(fridge”)</p>`) ||
			strings.Contains(got.Body, "error parsing regexp") || strings.Contains(got.Body, "(?i)") {
			t.Errorf("a pattern that does not parse: %d\n%s", got.Status, got.Body)
		}
	})
}

// TestDestructiveActionsAskFirst: cancelling an order, removing a shipping
// method and removing a webhook ask before they act: their forms carry
// the question for the browser's dialog, and a form sent unconfirmed
// (without JavaScript) changes nothing and gets a page asking, whose form
// sends the same fields again, confirmed.
func TestDestructiveActionsAskFirst(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		productID := e.storeFixture(t, "ASK-1")
		orderID := e.anonymousOrder(t, productID)
		path := "/admin/orders/" + orderID
		body := b.get(path).Body
		if tag := formTag(t, body, path+"/cancel"); !strings.Contains(tag, `data-confirm="Cancel order 1`) {
			t.Errorf("the cancel form asks nothing: %s", tag)
		}
		hidden := formOf(t, body, path+"/cancel")
		got := b.post(path+"/cancel", url.Values{"csrf": {hidden["csrf"]}, "once": {hidden["once"]}, "reason": {"changed"}, "confirmed": {""}})
		if got.Status != http.StatusOK || !strings.Contains(got.Body, "Cancel this order?") {
			t.Fatalf("unconfirmed cancel: %d, want the question\n%s", got.Status, got.Body)
		}
		if o := e.order(t, orderID); o.Status != "PLACED" {
			t.Fatalf("an unconfirmed cancel cancelled the order: %s", o.Status)
		}
		confirm := hiddenFields(got.Body, path+"/cancel")
		if confirm.Get("confirmed") != "yes" || confirm.Get("once") != hidden["once"] || confirm.Get("reason") != "changed" {
			t.Fatalf("the question's form does not send the fields again, confirmed: %v", confirm)
		}
		if got := b.post(path+"/cancel", confirm); got.Status != http.StatusSeeOther {
			t.Fatalf("confirmed cancel: %d\n%s", got.Status, got.Body)
		}
		if o := e.order(t, orderID); o.Status != "CANCELLED" {
			t.Fatalf("a confirmed cancel: %s", o.Status)
		}

		// A shipping method's Remove.
		var m struct{ ID string }
		e.Post(t, "/cart/v1/shipping.create", e.Admin, map[string]any{"title": "Courier", "active": true,
			"rates": []any{map[string]any{"locations": []any{map[string]any{"country": "US"}}, "rates": []any{map[string]any{"currency": "USD", "amount": 9}}}}}).
			Must(t).Decode(t, "shipping", &m)
		removePath := "/admin/shipping/" + m.ID + "/remove"
		if tag := formTag(t, b.get("/admin/shipping").Body, removePath); !strings.Contains(tag, `data-confirm="Remove the shipping method “Courier”?`) {
			t.Errorf("the shipping method's Remove asks nothing: %s", tag)
		}
		csrf := b.csrf("/admin/shipping")
		if got := b.post(removePath, url.Values{"csrf": {csrf}, "title": {"Courier"}}); got.Status != http.StatusOK || !strings.Contains(got.Body, "Remove the shipping method “Courier”?") {
			t.Fatalf("unconfirmed remove: %d\n%s", got.Status, got.Body)
		}
		e.Get(t, "/cart/v1/shipping.info?id="+m.ID, e.Admin).Must(t)
		if got := b.post(removePath, url.Values{"csrf": {csrf}, "confirmed": {"yes"}}); got.Status != http.StatusSeeOther {
			t.Fatalf("confirmed remove: %d\n%s", got.Status, got.Body)
		}
		e.Get(t, "/cart/v1/shipping.info?id="+m.ID, e.Admin).Expect(t, http.StatusNotFound, "shipping_not_found")

		// A webhook's Remove.
		var wh struct{ ID string }
		e.Post(t, "/event/v1/webhook.create", e.Admin, map[string]any{"url": "http://127.0.0.1:9/hook", "channels": []string{"ORDERS"}}).
			Must(t).Decode(t, "webhook", &wh)
		whPath := "/admin/webhooks/" + wh.ID
		if tag := formTag(t, b.get(whPath).Body, whPath+"/remove"); !strings.Contains(tag, `data-confirm="Remove this webhook?`) {
			t.Errorf("the webhook's Remove asks nothing: %s", tag)
		}
		if got := b.post(whPath+"/remove", url.Values{"csrf": {csrf}}); got.Status != http.StatusOK || !strings.Contains(got.Body, "Remove this webhook?") {
			t.Fatalf("unconfirmed webhook remove: %d\n%s", got.Status, got.Body)
		}
		e.Get(t, "/event/v1/webhook.info?id="+wh.ID, e.Admin).Must(t)
		if got := b.post(whPath+"/remove", url.Values{"csrf": {csrf}, "confirmed": {"yes"}}); got.Status != http.StatusSeeOther {
			t.Fatalf("confirmed webhook remove: %d\n%s", got.Status, got.Body)
		}
		e.Get(t, "/event/v1/webhook.info?id="+wh.ID, e.Admin).Expect(t, http.StatusNotFound, "webhook_not_found")
	})
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// hiddenFields are the hidden fields of the page's form posting to action.
func hiddenFields(body, action string) url.Values {
	i := strings.Index(body, `action="`+action+`"`)
	if i < 0 {
		return nil
	}
	form := body[i:]
	form = form[:strings.Index(form, "</form>")]
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(form, -1) {
		v.Add(m[1], html.UnescapeString(m[2]))
	}
	return v
}
