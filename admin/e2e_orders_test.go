package admin_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The parts of the end-to-end test about orders, coupons, customers and
// webhooks.

// fillCoupon types the promotion's coupon code and its usage limit.
func (u *ui) fillCoupon(code string) {
	u.t.Helper()
	u.fill("#code", code, "#usageLimit", "10")
}

// applyCoupon applies a coupon to a cart through the API.
func applyCoupon(t *testing.T, e *env, token, cartID, code string) {
	t.Helper()
	res := e.Post(t, "/cart/v1/cart.applyCoupon", token, map[string]any{"cartId": cartID, "code": code}).Must(t)
	if !strings.Contains(strings.ToUpper(string(res.Raw)), strings.ToUpper(code)) {
		t.Errorf("applyCoupon: the cart does not hold %s: %s", code, res.Raw)
	}
}

// anonymousOrder checks out one unit of the product from an anonymous
// cart through the API and returns the order's id.
func (e *env) anonymousOrder(t *testing.T, productID string) string {
	t.Helper()
	var c struct {
		ID string `json:"id"`
	}
	e.Post(t, "/cart/v1/cart.create", e.API, map[string]any{"currency": "USD", "country": "US"}).Must(t).Decode(t, "cart", &c)
	e.Post(t, "/cart/v1/cart.addToCart", e.API, map[string]any{"cartId": c.ID,
		"items": []any{map[string]any{"productId": productID, "quantity": 1, "warehouseId": "W1"}}}).Must(t)
	e.Post(t, "/cart/v1/cart.setShippingAddress", e.API, map[string]any{"cartId": c.ID, "shippingAddress": map[string]any{
		"firstName": "Charles", "lastName": "Babbage", "address_1": "2 Main St", "postCode": "96815",
		"city": "Honolulu", "state": "HI", "country": "US"}}).Must(t)
	return e.checkout(t, e.API, c.ID)
}

// cancel cancels an order from its page, with a reason: the button asks
// first, and "No" leaves the order as it is.
func (u *ui) cancel(t *testing.T, e *env, orderID string) {
	t.Helper()
	u.open("/admin/orders/" + orderID)
	u.expect("#order-status", "PLACED")
	u.expect("#order-customer", "Guest")
	u.fill("#reason", "Changed their mind")
	u.run(chromedp.Click(css("#cancel")), chromedp.WaitVisible(css("#confirm-dialog")))
	u.expect("#confirm-question", "Cancel order")
	if focused := get(u, chromedp.Evaluate[string](`document.activeElement.id`)); focused != "confirm-no" {
		t.Errorf("the confirmation starts on %q, want its No", focused)
	}
	u.screenshot("order-cancel-confirm")
	u.run(chromedp.Click(css("#confirm-no")), chromedp.WaitNotVisible(css("#confirm-dialog")), chromedp.Sleep(300*time.Millisecond))
	u.expect("#order-status", "PLACED")
	if o := e.order(t, orderID); o.Status != "PLACED" {
		t.Fatalf("the cancel not confirmed changed the order: %s", o.Status)
	}
	u.run(chromedp.Evaluate[chromedp.Void](`document.querySelector('main').setAttribute('data-stale', '')`),
		chromedp.Click(css("#cancel")), chromedp.WaitVisible(css("#confirm-dialog")), chromedp.Click(css("#confirm-yes")))
	u.waitAnswer()
	u.expect("#order-status", "CANCELLED")
	u.expect("#payment-status", "VOIDED")
	u.screenshot("order-cancelled")
	res := e.Get(t, "/order/v1/order.info?id="+orderID, e.Admin).Must(t)
	if !strings.Contains(string(res.Raw), `"status":"CANCELLED"`) {
		t.Errorf("the cancelled order through the API: %s", res.Raw)
	}
}

// checkout checks the cart out with the manual payment and returns the
// order id.
func (e *env) checkout(t *testing.T, token, cartID string) string {
	t.Helper()
	var shipping []struct {
		ID string `json:"id"`
	}
	e.Get(t, "/cart/v1/shipping.list?title=Standard", e.Admin).Must(t).Decode(t, "data", &shipping)
	if len(shipping) != 1 {
		t.Fatalf("shipping methods: %+v", shipping)
	}
	res := e.Post(t, "/cart/v1/cart.checkout", token, map[string]any{"cartId": cartID, "shippingMethod": shipping[0].ID,
		"paymentId": "manual", "paymentData": map[string]any{}}).Must(t)
	if !strings.Contains(string(res.Raw), `"CHECKED_OUT"`) {
		t.Fatalf("checkout: %s", res.Raw)
	}
	var o struct {
		ID     string `json:"id"`
		Number string `json:"number"`
	}
	res.Decode(t, "order", &o)
	if o.ID == "" {
		t.Fatalf("checkout made no order: %s", res.Raw)
	}
	return o.ID
}

// orders runs the order's life in the admin: find it, capture, fulfil
// with a tracking number, deliver, refund part of it.
func (u *ui) orders(t *testing.T, e *env, orderID string) {
	t.Helper()
	u.open("/admin/")
	u.expect("#orders-h ~ div table", "USD")
	u.open("/admin/orders?paymentStatus=AUTHORIZED")
	u.expect("main table", "AUTHORIZED")
	u.screenshot("orders")
	// At 375 px the key columns (status, payment, total) are on the screen.
	u.run(chromedp.EmulateViewport(375, 800))
	if off := get(u, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#orders td.key')].filter(td => {
		const r = td.getBoundingClientRect(); return r.width === 0 || r.left < 0 || r.right > window.innerWidth;
	}).map(td => td.dataset.label)`)); len(off) > 0 {
		t.Errorf("at 375 px these key columns of the orders are off the screen: %v", off)
	}
	u.run(chromedp.EmulateViewport(1280, 800))
	u.run(chromedp.Click(css(`main table a[href="/admin/orders/`+orderID+`"]`)), chromedp.WaitVisible(css("#order-status")))
	u.expect("#order-customer", "Ada Lovelace")
	u.expect("#order-customer", "ada@example.com")
	u.screenshot("order")
	u.submit("#capture")
	u.expect(".notice", "capture")
	u.expect("#payment-status", "PAID")
	u.fill("#carrier", "UPS", "#trackingNumber", "1Z999AA10123456784")
	u.submit("#fulfil")
	u.expect("#fulfillment-status", "SHIPPED")
	u.expect("#ful-h ~ div table", "1Z999AA10123456784")
	u.expect("#ful-h ~ div table", "2 × FR-1 - Combi fridge (Cold)")
	u.submit("#ful-h ~ div table button.deliver")
	u.expect("#fulfillment-status", "DELIVERED")
	u.expect("#order-status", "COMPLETED")
	// More than was captured: the API's error, and the amount typed stays.
	// The page is scrolled to the top first: the error must come into view
	// by itself, next to the form, wherever the form is.
	u.fill("#amount", "100000", "#refundReason", "dented")
	u.run(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	u.watchBusy("#refund")
	u.submit("#refund")
	u.expect("#error", "You can refund at most 455.00 USD.")
	u.expectErrorShown("#refund-form", "order-refund-error")
	if !u.busySeen() {
		t.Error("while the refund ran, the button was not disabled with the progress text shown")
	}
	if v := u.value("#amount"); v != "100000" {
		t.Errorf("the refund form lost the amount: %q", v)
	}
	u.screenshot("order-refund-error")
	// The same at 375 px, where the form is further down the page.
	u.run(chromedp.EmulateViewport(375, 800), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	u.submit("#refund")
	u.expectErrorShown("#refund-form", "order-refund-error")
	u.run(chromedp.EmulateViewport(1280, 800))
	u.fill("#amount", "10.50")
	u.submit("#refund")
	u.expect("#payment-status", "PARTIALLY_REFUNDED")
	u.expect("#refunds", "10.50 USD")
	u.screenshot("order-done")
	res := e.Get(t, "/order/v1/order.info?id="+orderID, e.Admin).Must(t)
	for _, want := range []string{`"paymentStatus":"PARTIALLY_REFUNDED"`, `"trackingNumber":"1Z999AA10123456784"`, `"status":"DELIVERED"`} {
		if !strings.Contains(string(res.Raw), want) {
			t.Errorf("the order through the API lacks %s: %s", want, res.Raw)
		}
	}
	u.open("/admin/events?channel=ORDERS")
	for _, typ := range []string{"CAPTURE", "FULFILL", "DELIVER", "REFUND"} {
		u.expect("main table", typ)
	}
	u.expect("main table", "staff:"+e.staff.ID)
}

// customers finds the shopper in the admin, with the order.
func (u *ui) customers(t *testing.T, orderID string) {
	t.Helper()
	u.open("/admin/customers?email=ada")
	u.expect("main table", "ada@example.com")
	u.screenshot("customers")
	u.run(chromedp.Click(css(`main table a`)), chromedp.WaitVisible(css("#customer-email")))
	u.expect("#orders-h ~ div table", "DELIVERED")
	if n := get(u, chromedp.Evaluate[int](`document.querySelectorAll('a[href="/admin/orders/`+orderID+`"]').length`)); n != 1 {
		t.Errorf("the customer's page links the order %d times, want 1", n)
	}
	u.screenshot("customer")
}

// webhook creates a webhook on ORDERS to a local receiver that answers
// 500 (so deliveries stay to be redelivered); the secret is shown once.
func (u *ui) webhook(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	calls := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(recv.Close)
	u.open("/admin/webhooks")
	u.fill("#url", recv.URL+"/hook", "#description", "ERP")
	u.run(chromedp.Click(css("#ch-ORDERS")))
	u.submit(`#new-h + form button[type=submit]`)
	secret := u.value("#secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the secret shown: %q", secret)
	}
	u.screenshot("webhook-secret")
	href := get(u, chromedp.Evaluate[string](`document.querySelector('main a[href^="/admin/webhooks/"]').getAttribute("href")`))
	u.open("/admin/webhooks")
	u.expect("main table", recv.URL+"/hook")
	if strings.Contains(get(u, chromedp.Text(css("main"))), secret) {
		t.Error("the webhooks page shows the secret again")
	}
	u.screenshot("webhooks")
	u.open(href)
	if strings.Contains(get(u, chromedp.Text(css("main"))), secret) {
		t.Error("the webhook's page shows the secret again")
	}
	return href
}

// deliveries shows the webhook's deliveries of the order's events and
// redelivers one.
func (u *ui) deliveries(t *testing.T, href string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		u.open(href)
		if get(u, chromedp.Evaluate[bool](`!!document.querySelector("#deliveries button.redeliver")`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no deliveries on the webhook's page")
		}
		time.Sleep(300 * time.Millisecond)
	}
	u.screenshot("webhook")
	u.submit("#deliveries button.redeliver")
	u.expect(".notice", "redeliver")
}
