package admin_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestAuditLogNamesTargets: the audit log page names each target as
// people know it, linked to its page: a product by its title and SKU (and
// a stock record by its product and warehouse), a customer by email, an
// order by number, a staff member by email; a removed record by its id.
func TestAuditLogNamesTargets(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		productID := e.storeFixture(t, "AUD-N1") // product.create, stock.create
		orderID := e.anonymousOrder(t, productID)
		var o struct {
			Number string `json:"number"`
		}
		e.Get(t, "/order/v1/order.info?id="+orderID, e.Admin).Must(t).Decode(t, "order", &o)
		e.Post(t, "/order/v1/order.cancel", e.Admin, map[string]any{"id": orderID}).Must(t)
		var c struct{ ID string }
		e.Post(t, "/customer/v1/customer.register", e.API, map[string]any{"email": "named@example.com", "password": "correct horse battery",
			"firstName": "Named"}).Must(t).Decode(t, "customer", &c)
		e.Post(t, "/customer/v1/customer.update", e.Admin, map[string]any{"id": c.ID, "firstName": "Renamed"}).Must(t)
		var prod struct{ Categories []string }
		e.Get(t, "/catalog/v1/product.info?id="+productID, e.Admin).Must(t).Decode(t, "product", &prod)
		var draft, gone struct{ ID string }
		e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "DRAFT-1", "title": "Draft one", "status": "DRAFT", "stockStatus": 0,
			"categories": prod.Categories}).Must(t).Decode(t, "product", &draft)
		e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "GONE-1", "title": "Gone", "status": "DRAFT", "stockStatus": 0,
			"categories": prod.Categories}).
			Must(t).Decode(t, "product", &gone)
		e.Post(t, "/catalog/v1/product.remove", e.Admin, map[string]any{"id": gone.ID}).Must(t)
		e.member(t, "clerk-audit@example.com", staff.RoleOrders)
		owner := e.browser(t)
		owner.mustSignIn()
		csrf := owner.csrf("/admin/staff")
		st, err := e.App.Staff.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var clerk staff.Staff
		for _, s := range st {
			if s.Email == "clerk-audit@example.com" {
				clerk = s
			}
		}
		if p := owner.post("/admin/staff/"+clerk.ID+"/role", map[string][]string{"csrf": {csrf}, "role": {"support"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("role change: %d\n%s", p.Status, p.Body)
		}

		p := owner.get("/admin/audit?limit=100")
		body := html.UnescapeString(p.Body)
		if p.Status != http.StatusOK {
			t.Fatalf("audit page: %d", p.Status)
		}
		for _, want := range []string{
			`<a href="/admin/products/` + productID + `">Product AUD-N1 (AUD-N1)</a>`,
			`Product AUD-N1 (AUD-N1) in W1`,
			`<a href="/admin/orders/` + orderID + `">` + o.Number + `</a>`,
			`<a href="/admin/customers/` + c.ID + `">named@example.com</a>`,
			`clerk-audit@example.com <small>`,
			`<a href="/admin/products/` + draft.ID + `">Draft one (DRAFT-1)</a>`,
			`product ` + gone.ID + `</span></td>`, // removed: its id
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the audit page has no %s\n%s", want, body)
			}
		}
	})
}
