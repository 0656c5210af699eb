package admin_test

import (
	"regexp"
	"strings"
	"testing"
)

// storeFixture creates through the API what an anonymous checkout needs: a
// category, a product priced 250 USD with 100 units in the warehouse W1,
// and the shipping method Standard. It returns the product's id.
func (e *env) storeFixture(t *testing.T, sku string) string {
	t.Helper()
	var cat, prod struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Cat " + sku, "slug": "cat-" + strings.ToLower(sku), "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": sku, "title": "Product " + sku, "status": "ONLINE",
		"stockStatus": 0, "categories": []string{cat.ID}, "prices": []any{map[string]any{"amount": 250, "currency": "USD"}}}).
		Must(t).Decode(t, "product", &prod)
	e.Post(t, "/stock/v1/stock.create", e.Admin, map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": 100}).Must(t)
	if res := e.Get(t, "/cart/v1/shipping.list?title=Standard", e.Admin).Must(t); !strings.Contains(string(res.Raw), `"Standard"`) {
		e.Post(t, "/cart/v1/shipping.create", e.Admin, map[string]any{"title": "Standard", "active": true,
			"rates": []any{map[string]any{"locations": []any{map[string]any{"country": "US"}}, "rates": []any{map[string]any{"currency": "USD", "amount": 5}}}}}).Must(t)
	}
	return prod.ID
}

// paidOrder places an anonymous order of one unit of the product and
// captures its payment through the API: an order that can be refunded.
func (e *env) paidOrder(t *testing.T, productID string) string {
	t.Helper()
	id := e.anonymousOrder(t, productID)
	e.Post(t, "/order/v1/order.capture", e.Admin, map[string]any{"id": id}).Must(t)
	return id
}

var onceRE = regexp.MustCompile(`name="once" value="([^"]+)"`)

// formOf returns the hidden fields of the page's form posting to action:
// the anti-forgery and one-time tokens.
func formOf(t *testing.T, body, action string) map[string]string {
	t.Helper()
	i := strings.Index(body, formTag(t, body, action))
	form := body[i:]
	form = form[:strings.Index(form, "</form>")]
	out := map[string]string{}
	if m := csrfRE.FindStringSubmatch(form); m != nil {
		out["csrf"] = m[1]
	}
	if m := onceRE.FindStringSubmatch(form); m != nil {
		out["once"] = m[1]
	}
	return out
}
