package admin_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

// pricedProduct creates an ONLINE product priced 100.00 USD and a
// customer account; it returns their ids.
func (e *env) pricedProduct(t *testing.T) (productID, customerID string) {
	t.Helper()
	var cat, prod, cust struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "FR-7", "status": "ONLINE", "title": "Wine fridge", "stockStatus": 1,
		"categories": []string{cat.ID},
		"prices":     []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}}).Must(t).Decode(t, "product", &prod)
	e.Post(t, "/customer/v1/customer.register", e.API, map[string]any{"email": "grace@example.com", "password": "compiler pioneer 1952",
		"firstName": "Grace", "lastName": "Hopper"}).Must(t).Decode(t, "customer", &cust)
	return prod.ID, cust.ID
}

// TestAdminPriceLists runs issue 32's admin pages in a real browser: a
// customer group created and renamed, a customer added to it, a price
// list for it with a price and a tier for a product (found with the
// picker), the price the group gets on the product's page (and the base
// price without a group) as the customer's own token gets it, a tier
// removed, the lists filtered by the group.
func TestAdminPriceLists(t *testing.T) {
	chromium(t)
	e := newEnv(t, testdb.SQLite(t))
	productID, customerID := e.pricedProduct(t)
	u := newUI(t, e.URL)
	u.open("/admin/")
	u.fill("#email", staffEmail, "#password", staffPassword)
	u.submit(`form button[type=submit]`)
	u.run(chromedp.WaitVisible(css("#active-carts")))

	// A group, then its new title.
	u.open("/admin/groups")
	u.fill("#code", "trade", "#title", "Trade")
	u.submit("#create-group")
	u.expect("#groups", "TRADE")
	u.fill("#gt0", "Trade buyers")
	u.submit(`button[aria-label="Rename TRADE"]`)
	u.expect(".notice", "Saved")
	if v := u.value("#gt0"); v != "Trade buyers" {
		t.Errorf("the group's title after renaming: %q", v)
	}
	u.screenshot("groups")

	// The customer joins it.
	u.open("/admin/customers/" + customerID)
	u.expect("#customer-groups", "In no group")
	u.run(chromedp.SetValue(css("#add-group"), "TRADE"))
	u.submit("#add-to-group")
	u.expect("#customer-groups", "TRADE")
	u.screenshot("customer-groups")
	var c struct{ Groups []string }
	e.Get(t, "/customer/v1/customer.info?id="+customerID, e.Admin).Must(t).Decode(t, "customer", &c)
	if len(c.Groups) != 1 || c.Groups[0] != "TRADE" {
		t.Fatalf("the customer's groups through the API: %v", c.Groups)
	}

	// A price list for the group, then the product's price and a tier.
	u.open("/admin/pricelists/new")
	u.fill("#code", "TRADE-USD", "#title", "Trade prices", "#priority", "5")
	u.run(chromedp.Click(css(`#groups input[value="TRADE"]`)))
	u.screenshot("pricelist-new")
	u.submit("#save-pricelist")
	u.expect(".notice", "Saved")
	u.fill("#pl_q", "wine")
	u.run(chromedp.Poll[chromedp.Void](`!!document.querySelector('#pl_product option[value="` + productID + `"]')`))
	u.run(chromedp.SetValue(css("#pl_product"), productID))
	u.fill("#ta0", "80", "#tq1", "10", "#ta1", "70.5")
	u.submit("#set-prices")
	u.expect(".notice", "Saved")
	u.expect("#price-table", "Wine fridge (FR-7)")
	u.expect("#price-table", "80.00 USD")
	u.expect("#price-table", "70.50 USD")
	u.screenshot("pricelist")
	listPath := get(u, chromedp.Location())

	// A tier with a bad amount: the error is shown in the form, by its row.
	u.run(chromedp.Click(css(`#price-table a[aria-label^="Edit"]`)), chromedp.WaitVisible(css("#ta1")))
	if v := u.value("#ta1"); v != "70.5" {
		t.Errorf("the edit link's second tier: %q, want 70.5", v)
	}
	u.fill("#ta2", "-3", "#tq2", "20")
	u.submit("#set-prices")
	u.expectErrorShown("#prices-form", "pricelist-error")
	u.expect("#prices-form", "Tier 3")

	// The price for the group on the product's page, as the API selects it.
	u.open("/admin/products/" + productID)
	u.expect("#price-base", "100.00 USD")
	u.run(chromedp.SetValue(css("#eg"), "TRADE"))
	u.submit("#show-price")
	u.expect("#price-group", "80.00 USD")
	u.expect("#price-group", "TRADE-USD")
	u.expect("#price-base", "100.00 USD")
	u.expect("#price-base", "own price")
	u.fill("#eq", "12")
	u.submit("#show-price")
	u.expect("#price-group", "70.50 USD")
	u.screenshot("product-price-for")
	tok := e.login(t, "grace@example.com", "compiler pioneer 1952")
	var p struct {
		Price struct {
			Amount      json.Number `json:"amount"`
			PriceListID string      `json:"priceListId"`
		} `json:"price"`
	}
	e.Get(t, "/catalog/v1/product.info?quantity=12&currency=USD&id="+productID, tok).Must(t).Decode(t, "product", &p)
	if p.Price.Amount != "70.5" || p.Price.PriceListID == "" {
		t.Errorf("the customer's own price for 12: %+v, want 70.5 from the list", p.Price)
	}

	// The tier removed; the lists filtered by the group.
	u.open(strings.TrimPrefix(listPath, e.URL))
	u.submit(`button[aria-label="Remove the price of Wine fridge (FR-7) from 10"]`)
	u.expect(".notice", "Saved")
	if txt := u.text("#price-table"); strings.Contains(txt, "70.50") || !strings.Contains(txt, "80.00 USD") {
		t.Errorf("the prices after removing the tier of 10: %q", txt)
	}
	u.open("/admin/pricelists?group=TRADE")
	u.expect("#pricelists", "TRADE-USD")
	u.screenshot("pricelists")
	u.open("/admin/pricelists?group=NOBODY")
	u.expect("main", "No price lists match")
}

// login signs a customer in through the API and returns the access token.
func (e *env) login(t *testing.T, email, pw string) string {
	t.Helper()
	var login struct {
		AccessToken string `json:"accessToken"`
	}
	res := e.Post(t, "/auth/v1/auth.login", e.API, map[string]any{"email": email, "password": pw}).Must(t)
	if err := json.Unmarshal(res.Raw, &login); err != nil || login.AccessToken == "" {
		t.Fatalf("auth.login: %v %s", err, res.Raw)
	}
	return login.AccessToken
}

// TestPriceListPagesByRole: the permission table decides. Price lists are
// catalog data: the catalog role creates one, the orders and support
// roles (read only) are refused its forms with 403. Groups are customer
// data: the orders role creates one and sets a customer's, the catalog
// role may neither open the groups' page nor post its forms.
func TestPriceListPagesByRole(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		productID, customerID := e.pricedProduct(t)
		catalogB, _ := e.member(t, "cat@example.com", staff.RoleCatalog)
		ordersB, _ := e.member(t, "ord@example.com", staff.RoleOrders)
		supportB, _ := e.member(t, "sup@example.com", staff.RoleSupport)

		cs := catalogB.csrf("/admin/pricelists/new")
		if p := catalogB.post("/admin/pricelists/new", url.Values{"csrf": {cs}, "code": {"C1"}, "currency": {"USD"}, "groups": {"trade"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("catalog role creates a price list: %d\n%s", p.Status, p.Body)
		} else if !strings.HasPrefix(p.Location, "/admin/pricelists/") {
			t.Fatalf("after creating: %s", p.Location)
		}
		var lists []struct {
			ID     string
			Groups []string
		}
		e.Get(t, "/catalog/v1/priceList.list?code=C1", e.Admin).Must(t).Decode(t, "data", &lists)
		if len(lists) != 1 || len(lists[0].Groups) != 1 || lists[0].Groups[0] != "TRADE" {
			t.Fatalf("the list the catalog role created: %+v", lists)
		}
		listPath := "/admin/pricelists/" + lists[0].ID
		for name, b := range map[string]*browser{"orders": ordersB, "support": supportB} {
			if p := b.get(listPath); p.Status != http.StatusOK || strings.Contains(p.Body, `id="set-prices"`) {
				t.Errorf("%s opens the list: %d, the prices' form shown %v", name, p.Status, strings.Contains(p.Body, `id="set-prices"`))
			}
			csrf := b.csrf("/admin/")
			for path, form := range map[string]url.Values{
				"/admin/pricelists/new":     {"code": {"X"}, "currency": {"USD"}},
				listPath:                    {"title": {"changed"}},
				listPath + "/prices":        {"pl_product": {productID}, "ta": {"1"}},
				listPath + "/prices/remove": {"productId": {productID}},
				listPath + "/remove":        {"confirmed": {"yes"}},
			} {
				form.Set("csrf", csrf)
				if p := b.post(path, form); p.Status != http.StatusForbidden {
					t.Errorf("%s POST %s: %d, want 403", name, path, p.Status)
				}
			}
		}
		if res := e.Get(t, "/catalog/v1/priceList.info?id="+lists[0].ID, e.Admin).Must(t); !strings.Contains(string(res.Raw), `"title":"C1"`) {
			t.Errorf("a refused form changed the list: %s", res.Raw)
		}

		// Groups: the orders role's, not the catalog role's.
		oc := ordersB.csrf("/admin/groups")
		if p := ordersB.post("/admin/groups", url.Values{"csrf": {oc}, "code": {"TRADE"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("orders role creates a group: %d\n%s", p.Status, p.Body)
		}
		if p := ordersB.post("/admin/customers/"+customerID+"/groups", url.Values{"csrf": {oc}, "add": {"trade"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("orders role adds a customer to a group: %d\n%s", p.Status, p.Body)
		}
		if p := ordersB.post("/admin/customers/"+customerID+"/groups", url.Values{"csrf": {oc}, "add": {"NOPE"}}); p.Status != http.StatusNotFound || !strings.Contains(p.Body, `data-code="group_not_found"`) {
			t.Errorf("an unknown group: %d, want 404 group_not_found in the page", p.Status)
		}
		if p := catalogB.get("/admin/groups"); p.Status != http.StatusForbidden {
			t.Errorf("catalog role opens the groups: %d, want 403", p.Status)
		}
		if p := catalogB.post("/admin/groups", url.Values{"csrf": {cs}, "code": {"OTHER"}}); p.Status != http.StatusForbidden {
			t.Errorf("catalog role creates a group: %d, want 403", p.Status)
		}
		if p := catalogB.post("/admin/customers/"+customerID+"/groups", url.Values{"csrf": {cs}, "remove": {"TRADE"}}); p.Status != http.StatusForbidden {
			t.Errorf("catalog role changes a customer's groups: %d, want 403", p.Status)
		}
		if p := supportB.get("/admin/customers/" + customerID); p.Status != http.StatusOK || !strings.Contains(p.Body, "TRADE") || strings.Contains(p.Body, `id="add-to-group"`) {
			t.Errorf("support sees the customer's groups without the form: %d", p.Status)
		}
		// The catalog role's list page types group codes (it may not read
		// the groups) and the menu shows what each may open.
		if p := catalogB.get(listPath); !strings.Contains(p.Body, `name="groups" autocapitalize`) {
			t.Errorf("catalog role: the list's groups are not a text field")
		}
		if dash := catalogB.get("/admin/").Body; !strings.Contains(dash, `href="/admin/pricelists"`) || strings.Contains(dash, `href="/admin/groups"`) {
			t.Errorf("catalog role's menu: price lists and not groups expected")
		}
		if dash := ordersB.get("/admin/").Body; !strings.Contains(dash, `href="/admin/pricelists"`) || !strings.Contains(dash, `href="/admin/groups"`) {
			t.Errorf("orders role's menu: price lists and groups expected")
		}
	})
}
