package admin_test

import (
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestNamesWhereIdsWere: the dashboard's low stock names its products
// (title and SKU), an order's shipments name their items, and category
// choices start with the category's own title, then where it is, so that
// the choices of one branch do not all start alike.
func TestNamesWhereIdsWere(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		var kitchen, fridges, combi, low struct{ ID string }
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Kitchen", "slug": "kitchen", "parent": "ROOT"}).Must(t).Decode(t, "category", &kitchen)
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": kitchen.ID}).Must(t).Decode(t, "category", &fridges)
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Combi", "slug": "combi", "parent": fridges.ID}).Must(t).Decode(t, "category", &combi)
		e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "LOW-1", "title": "Little fridge", "status": "ONLINE", "stockStatus": 0,
			"categories": []string{combi.ID}}).Must(t).Decode(t, "product", &low)
		e.Post(t, "/stock/v1/stock.create", e.Admin, map[string]any{"productId": low.ID, "warehouseId": "W1", "quantity": 3}).Must(t)

		dash := b.get("/admin/").Body
		if !strings.Contains(dash, `<a href="/admin/products/`+low.ID+`">Little fridge (LOW-1)</a>`) {
			t.Errorf("the low stock does not name the product\n%s", dash)
		}
		for _, p := range []string{"/admin/products/new", "/admin/products", "/admin/categories"} {
			if body := b.get(p).Body; !strings.Contains(body, `title="Kitchen / Fridges / Combi">Combi — in Kitchen / Fridges</option>`) {
				t.Errorf("%s: the category choice does not start with its own title\n%s", p, body)
			}
		}

		productID := e.storeFixture(t, "SHIP-1")
		orderID := e.paidOrder(t, productID)
		e.Post(t, "/order/v1/order.fulfill", e.Admin, map[string]any{"id": orderID}).Must(t)
		page := b.get("/admin/orders/" + orderID).Body
		if !strings.Contains(page, "<li>1 × SHIP-1 - Product SHIP-1</li>") || !strings.Contains(page, `<dd id="order-customer">Guest`) {
			t.Errorf("the order's page does not name its shipment's item and its guest customer\n%s", page)
		}
	})
}
