package admin_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The parts of the end-to-end test about returns and draft orders.

// returns asks, from the order's page, for the return of one unit with an
// exchange for another unit of the product, receives it, sees the amount
// computed and refunds it: the exchange becomes an order.
func (u *ui) returns(t *testing.T, e *env, orderID, productID string) {
	t.Helper()
	var o struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	e.Get(t, "/order/v1/order.info?id="+orderID, e.Admin).Must(t).Decode(t, "order", &o)
	u.open("/admin/orders/" + orderID)
	u.run(chromedp.Click(css("#new-return")), chromedp.WaitVisible(css("#request-return")))
	u.fill("#qty_"+o.Items[0].ID, "1", "#note_"+o.Items[0].ID, "door dented", "#exchangeProduct", productID, "#exchangeWarehouse", "W1")
	u.run(chromedp.SetValue(css("#reason_"+o.Items[0].ID), "DAMAGED"))
	u.screenshot("return-new")
	u.submit("#request-return")
	u.expect("#return-status", "REQUESTED")
	u.expect("#rex-h ~ ul", productID)
	u.screenshot("return-requested")
	u.submit("#receive")
	u.expect("#return-status", "RECEIVED")
	u.expect("#refund-quote", "To refund")
	u.screenshot("return-received")
	u.submit("#refund-return")
	u.expect("#return-status", "REFUNDED")
	u.expect("#exchange-order", "")
	exchange := u.text("#exchange-order")
	u.screenshot("return-refunded")
	u.open("/admin/orders/" + orderID)
	u.expect("#returns", "R1001")
	u.expect("#returns", "REFUNDED")
	res := e.Get(t, "/order/v1/order.info?id="+exchange, e.Admin).Must(t)
	if !strings.Contains(string(res.Raw), `"exchangeOf":"`+orderID+`"`) {
		t.Errorf("the exchange's order through the API: %s", res.Raw)
	}
}

// draft finds the customer, drafts an order of one unit of FR-1 for them,
// ships it to Hawaii and completes it.
func (u *ui) draft(t *testing.T, e *env) {
	t.Helper()
	u.open("/admin/drafts/new")
	u.fill("#q", "ada")
	u.submit("#find-customer")
	u.expect("#found-customers", "ada@example.com")
	u.screenshot("draft-new")
	u.submit("#found-customers button.pick-customer")
	u.expect("#draft-status", "DRAFT")
	u.fill("#product", "FR-1", "#quantity", "1", "#warehouseId", "W1")
	u.submit("#add-product")
	u.expect("#draft-items", "FR-1")
	u.fill("#firstName", "Ada", "#lastName", "Lovelace", "#address_1", "1 Main St", "#postCode", "96815", "#city", "Honolulu", "#state", "HI")
	u.submit("#set-address")
	u.expect("#draft-method", "Standard")
	u.screenshot("draft")
	u.submit("#complete-draft")
	u.expect("#order-status", "PLACED")
	u.screenshot("draft-order")
	id := strings.TrimPrefix(get(u, chromedp.Location()), e.URL+"/admin/orders/")
	id = strings.SplitN(id, "?", 2)[0]
	res := e.Get(t, "/order/v1/order.info?id="+id, e.Admin).Must(t)
	if !strings.Contains(string(res.Raw), `"source":"DRAFT"`) || !strings.Contains(string(res.Raw), `"email":"ada@example.com"`) {
		t.Errorf("the draft's order through the API: %s", res.Raw)
	}
}
