package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/testkit/testdb"
)

// ScreenshotsEnv names the directory the end-to-end test writes its
// screenshots to (a temporary directory when unset).
const ScreenshotsEnv = "COMMERCE_ADMIN_SCREENSHOTS"

// chromium returns the path of a Chromium (or Chrome) binary, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("COMMERCE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("the end-to-end admin test needs Chromium: apt-get install -y chromium (or set COMMERCE_CHROMIUM); .ci/run installs it")
	return ""
}

// ui drives a headless Chromium through the admin app.
type ui struct {
	t    *testing.T
	ctx  context.Context
	base string
	dir  string
	shot int
}

func newUI(t *testing.T, base string) *ui {
	t.Helper()
	path := chromium(t)
	dir := os.Getenv(ScreenshotsEnv)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	u := &ui{t: t, ctx: ctx, base: base, dir: dir}
	// The first call starts the browser, which lives as long as its context.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	t.Logf("screenshots in %s", dir)
	return u
}

func (u *ui) run(actions ...chromedp.Action[chromedp.Void]) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(u.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		u.fatal(err)
	}
}

func (u *ui) fatal(err error) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(u.ctx, 5*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	body, _ := chromedp.Run(ctx, chromedp.Text(css("body")))
	u.t.Fatalf("browser: %v\nat %s\n%s", err, loc, body)
}

// get runs an action that returns a value.
func get[T any](u *ui, a chromedp.Action[T]) T {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(u.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		u.fatal(err)
	}
	return v
}

func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// open loads a page of the app and waits for its heading.
func (u *ui) open(path string) {
	u.t.Helper()
	u.run(chromedp.Navigate(u.base+path), chromedp.WaitVisible(css("h1")))
}

// fill types into the fields: selector, text pairs.
func (u *ui) fill(pairs ...string) {
	u.t.Helper()
	var acts []chromedp.Action[chromedp.Void]
	for i := 0; i+1 < len(pairs); i += 2 {
		acts = append(acts, chromedp.Clear(css(pairs[i])), chromedp.SendKeys(css(pairs[i]), pairs[i+1]))
	}
	u.run(acts...)
}

// submit clicks a form's submit button and waits for the answer: the next
// page, or for a form htmx posts, main replaced (an error) or the page it
// redirects to. The main shown before the click is marked, and the answer
// is there once a main without the mark is.
func (u *ui) submit(button string) {
	u.t.Helper()
	u.run(chromedp.Evaluate[chromedp.Void](`document.querySelector('main').setAttribute('data-stale', '')`), chromedp.Click(css(button)))
	u.waitAnswer()
}

// waitAnswer waits until main is no longer the one marked stale and the
// page has loaded. The check is retried while a navigation is running,
// which ends any script running in the old page.
func (u *ui) waitAnswer() {
	u.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(u.ctx, 2*time.Second)
		done, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === 'complete' && !!document.querySelector('main:not([data-stale]) h1')`))
		cancel()
		if err == nil && done {
			return
		}
		if time.Now().After(deadline) {
			u.fatal(fmt.Errorf("no answer after the click (last check: %v)", err))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watchBusy records, from now until the page is left, whether the button
// was ever disabled while the progress text was shown: what a form htmx
// posts does while its request runs. busySeen reads the record.
func (u *ui) watchBusy(button string) {
	u.t.Helper()
	u.run(chromedp.Evaluate[chromedp.Void](`window.busySeen = false; new MutationObserver(() => {
		const b = document.querySelector(` + "`" + button + "`" + `), p = document.querySelector('#progress.htmx-request .busy');
		if (b && b.disabled && p && getComputedStyle(p).display !== 'none') window.busySeen = true;
	}).observe(document.body, {attributes: true, subtree: true, childList: true})`))
}

func (u *ui) busySeen() bool {
	u.t.Helper()
	return get(u, chromedp.Evaluate[bool](`window.busySeen === true`))
}

func (u *ui) text(sel string) string {
	u.t.Helper()
	return get(u, chromedp.Text(css(sel)))
}

// expect fails unless the element's text contains want.
func (u *ui) expect(sel, want string) {
	u.t.Helper()
	if got := u.text(sel); !strings.Contains(got, want) {
		u.t.Fatalf("%s: %q does not contain %q", sel, got, want)
	}
}

// screenshot saves the page at 1280 x 800 and at 375 px wide, and checks
// that at 375 px nothing makes the page scroll sideways.
func (u *ui) screenshot(name string) {
	u.t.Helper()
	u.shot++
	for _, w := range []int64{1280, 375} {
		u.run(chromedp.EmulateViewport(w, 800), chromedp.Sleep(50*time.Millisecond))
		overflow := get(u, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
		png := get(u, chromedp.FullScreenshot(100))
		if w == 1280 {
			u.checkAccessible(name)
		}
		if overflow {
			wide := get(u, chromedp.Evaluate[string](`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.scroll')).map(e => e.tagName + '#' + e.id + '.' + e.className + '=' + e.getBoundingClientRect().right).slice(0, 8).join(' ') + ' sw=' + document.documentElement.scrollWidth + ' iw=' + window.innerWidth`))
			u.t.Errorf("%s at %d px: the page is wider than the screen: %s", name, w, wide)
		}
		file := filepath.Join(u.dir, fmt.Sprintf("%02d-%s-%d.png", u.shot, name, w))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			u.t.Fatal(err)
		}
	}
	u.run(chromedp.EmulateViewport(1280, 800))
}

// checkAccessible fails the test when a form control of the page has no
// label, or a link or control is kept out of the keyboard's reach.
func (u *ui) checkAccessible(name string) {
	u.t.Helper()
	unlabeled := get(u, chromedp.Evaluate[[]string](`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
		.filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
		.map(e => e.tagName + '#' + e.id + '[' + e.name + ']')`))
	if len(unlabeled) > 0 {
		u.t.Errorf("%s: controls without a label: %v", name, unlabeled)
	}
	unreachable := get(u, chromedp.Evaluate[[]string](`[...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')]
		.filter(e => e.tabIndex < 0 && !e.disabled)
		.map(e => e.tagName + '#' + e.id)`))
	if len(unreachable) > 0 {
		u.t.Errorf("%s: out of the keyboard's reach: %v", name, unreachable)
	}
}

// TestAdminEndToEnd runs the daily tasks in a real browser (SQLite; the
// HTTP tests cover both stores): sign in, create a category and a product
// with a price and stock, a shipping method, a promotion whose rule is
// checked as it is typed; a shopper checks out through the API; the
// promotion's try-it, then the order's life in the admin; the events.
func TestAdminEndToEnd(t *testing.T) {
	chromium(t)
	e := newEnv(t, testdb.SQLite(t), mailOn(t))
	u := newUI(t, e.URL)

	// Sign-in, by keyboard: the page starts on the email field, Tab goes to
	// the password.
	u.open("/admin/")
	u.screenshot("signin")
	if focused := get(u, chromedp.Evaluate[string](`document.activeElement.id`)); focused != "email" {
		t.Errorf("the sign-in page starts on %q, want the email field", focused)
	}
	u.run(chromedp.KeyEvent("\t"))
	if focused := get(u, chromedp.Evaluate[string](`document.activeElement.id`)); focused != "password" {
		t.Errorf("Tab from the email goes to %q, want the password", focused)
	}
	u.fill("#email", staffEmail, "#password", "wrong password!")
	u.submit(`form button[type=submit]`)
	u.expect("#error", "That email and password do not match an account.")
	u.expectErrorShown("#signin-form", "signin-error")
	if v := u.value("#email"); v != staffEmail {
		t.Errorf("the sign-in form lost the email: %q", v)
	}
	u.fill("#password", staffPassword)
	u.submit(`form button[type=submit]`)
	u.run(chromedp.WaitVisible(css("#active-carts")))
	u.screenshot("dashboard")

	// Two categories; one moves under the other.
	u.open("/admin/categories")
	u.fill("#title", "Kitchen", "#slug", "kitchen")
	u.submit(`main form button[type=submit]`)
	u.fill("#title", "Fridges", "#slug", "fridges")
	u.submit(`main form button[type=submit]`)
	u.expect(".tree", "Fridges")
	u.screenshot("categories")
	catID, kitchenID := e.categoryID(t, "fridges"), e.categoryID(t, "kitchen")
	u.open("/admin/categories/" + catID)
	u.run(chromedp.SetValue(css("#parent"), kitchenID))
	u.submit(`main form button[type=submit]`)
	u.expect(".notice", "Saved")
	u.screenshot("category")
	u.open("/admin/categories")
	if depths := get(u, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.tree li')].map(li => li.className + ' ' + li.textContent.trim())`)); !nestedUnder(depths, "Fridges", "Kitchen") {
		t.Errorf("the tree does not show Fridges under Kitchen: %q", depths)
	}
	if res := e.Get(t, "/catalog/v1/category.info?id="+catID, e.Admin).Must(t); !strings.Contains(string(res.Raw), `"parent":"`+kitchenID+`"`) {
		t.Errorf("the moved category through the API: %s", res.Raw)
	}

	// A product with a price, in the category, then its stock.
	u.open("/admin/products/new")
	u.screenshot("product-new")
	u.fill("#sku", "FR-1", "#title", "Combi fridge", "#brand", "Cold", "#pa0", "250.00", "#pc0", "USD")
	u.run(chromedp.SetValue(css("#categories"), catID))
	u.submit(`main form button[type=submit]`)
	u.expect(".notice", "Saved")
	u.fill("#warehouseId", "W1", "#quantity", "10")
	u.submit(`#stock-h ~ form button[type=submit]`)
	u.expect("#stock-h ~ .scroll table", "W1")
	u.screenshot("product")
	productID := e.productID(t, "FR-1")
	u.open("/admin/products?title=Combi")
	u.expect("main table", "FR-1")
	u.screenshot("products")

	// A shipping method, its rates written by the rate builder, and a tax.
	u.open("/admin/shipping")
	u.fill("#title", "Standard", "#sr-country-1", "ca", "#sr-currency-1", "CAD", "#sr-amount-1", "7.5")
	u.run(chromedp.Click(css("#write-rates")), chromedp.Poll[chromedp.Void](`document.querySelector('#rates').value.includes('CAD')`))
	if got := compactJSON(t, u.value("#rates")); got != `[{"locations":[{"country":"US"}],"rates":[{"amount":5,"currency":"USD"}]},{"locations":[{"country":"CA"}],"rates":[{"amount":7.5,"currency":"CAD"}]}]` {
		t.Errorf("the rates written: %s", got)
	}
	u.submit(`#create-method`)
	u.expect("main table", "Standard")
	u.expect("main table", "CA: 7.5 CAD")
	u.screenshot("shipping")
	u.open("/admin/taxes")
	u.fill("#code", "STD", "#title", "Standard rate", "#rate", "21")
	u.submit(`#new-h + form button[type=submit]`)
	u.expect("main table", "STD")
	u.screenshot("taxes")
	u.run(chromedp.Click(css(`main table a`)), chromedp.WaitVisible(css("#rate")))
	u.fill("#rate", "19")
	u.submit(`main form button[type=submit]`)
	u.expect(".notice", "Saved")
	if v := u.value("#rate"); v != "19" {
		t.Errorf("the tax's rate after saving: %q, want 19", v)
	}
	u.screenshot("tax")

	// A promotion; its rule written by the builder from a product found by
	// its title, then checked as it is typed.
	u.open("/admin/promotions/new")
	u.run(chromedp.SetValue(css("#rb_if_kind"), "product"))
	u.fill("#rb_if_q", "combi")
	u.run(chromedp.Poll[chromedp.Void](`!!document.querySelector('#rb_if_product option[value="` + productID + `"]')`))
	u.expect("#rb_if_found", "Combi fridge (FR-1)")
	u.run(chromedp.SetValue(css("#rb_if_product"), productID), chromedp.Click(css("#write-rule")),
		chromedp.Poll[chromedp.Void](`document.querySelector('#if').value.includes('`+productID+`')`), chromedp.WaitVisible(css("#rulecheck .ok")))
	wantIf, wantThen := `{"product":{"id":"`+productID+`","quantity":1}}`, `{"product":{"discount":{"isPercentage":true,"rate":10},"id":"`+productID+`","quantity":1}}`
	if gi, gt := compactJSON(t, u.value("#if")), compactJSON(t, u.value("#then")); gi != wantIf || gt != wantThen {
		t.Errorf("the rule written: if %s then %s, want %s and %s", gi, gt, wantIf, wantThen)
	}
	u.screenshot("promotion-builder")
	u.fill("#title", "Ten off fridges", "#if", `{"product": {"id": "`+productID+`", "quantity": 1}}`, "#then", `{"product": {"id": "`+productID+`", "quantity": 1, "discount": {"rate": 10, "isPercentage": tru`)
	u.run(chromedp.WaitVisible(css("#rulecheck .error")))
	u.run(chromedp.SendKeys(css("#then"), "e}}}"), chromedp.WaitVisible(css("#rulecheck .ok")))
	u.fillCoupon("FRIDGE10")
	u.submit(`#save-promotion`)
	u.expect(".notice", "Saved")
	u.screenshot("promotion")
	promoPath := get(u, chromedp.Location())
	u.open("/admin/promotions")
	u.expect("main table", "Ten off fridges")
	u.screenshot("promotions")

	// A shopper, through the API.
	cartID, shopperToken := e.shopper(t, productID)
	u.run(chromedp.Navigate(promoPath), chromedp.WaitVisible(css("#cartId")))
	u.fill("#cartId", cartID)
	u.run(chromedp.Click(css(`#try-h ~ form button[type=submit]`)), chromedp.WaitVisible(css("#fires")))
	u.expect("#fires", "applies")
	u.screenshot("promotion-try")
	hook := u.webhook(t)
	orderID := e.checkout(t, shopperToken, cartID)

	u.orders(t, e, orderID)
	u.returns(t, e, orderID, productID)
	u.draft(t, e)
	u.cancel(t, e, e.anonymousOrder(t, productID))
	u.customers(t, orderID)
	u.deliveries(t, hook)

	// The events, with the staff member who made each change.
	u.open("/admin/events?channel=PRODUCTS")
	u.expect("main table", "staff:"+e.staff.ID)
	u.screenshot("events")
	u.open("/admin/")
	u.expect("#ev-h ~ div table", "staff:"+e.staff.ID)
	u.screenshot("dashboard-after")
	u.mail(t, e, orderID)
}

// nestedUnder reports whether, in the tree's rows ("depth-N title..."),
// child comes after parent one level deeper.
func nestedUnder(rows []string, child, parent string) bool {
	depth := func(row string) int {
		var n int
		fmt.Sscanf(strings.TrimPrefix(row, "depth-"), "%d", &n)
		return n
	}
	p := -1
	for i, r := range rows {
		_, title, _ := strings.Cut(r, " ")
		switch {
		case strings.HasPrefix(title, parent):
			p = i
		case strings.HasPrefix(title, child):
			return p >= 0 && depth(r) == depth(rows[p])+1
		}
	}
	return false
}

// compactJSON is a JSON text without its spaces, keys sorted, numbers as
// written, for comparing.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Errorf("not JSON: %v: %s", err, s)
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// expectErrorShown checks the error box as staff meet it after a form
// failed: inside the form (not at the top of the page), announced
// (role="alert"), focused, wholly in the viewport, and in words (no
// error code or JSON in its text). It saves what the screen shows
// (name-view-WIDTH.png).
func (u *ui) expectErrorShown(form, name string) {
	u.t.Helper()
	var got struct {
		InForm, Alert, Focused, InView bool
		Text                           string
		Top, Bottom, Height            float64
	}
	u.run(chromedp.Sleep(100 * time.Millisecond)) // the swap settles and admin.js scrolls
	got = get(u, chromedp.Evaluate[struct {
		InForm, Alert, Focused, InView bool
		Text                           string
		Top, Bottom, Height            float64
	}](`(() => {
		const e = document.getElementById('error'), r = e.getBoundingClientRect();
		return {InForm: !!e.closest(`+"`"+form+"`"+`), Alert: e.getAttribute('role') === 'alert', Focused: document.activeElement === e,
			InView: r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth,
			Text: e.innerText, Top: r.top, Bottom: r.bottom, Height: window.innerHeight};
	})()`))
	if !got.InForm || !got.Alert || !got.Focused || !got.InView {
		u.t.Errorf("the error box: in %s %v, role=alert %v, focused %v, in the viewport %v (top %.0f, bottom %.0f, viewport %.0f)",
			form, got.InForm, got.Alert, got.Focused, got.InView, got.Top, got.Bottom, got.Height)
	}
	if rawCode.MatchString(got.Text) || strings.ContainsAny(got.Text, "{}") {
		u.t.Errorf("the error box shows a code or JSON: %q", got.Text)
	}
	width := get(u, chromedp.Evaluate[int](`window.innerWidth`))
	u.shot++
	file := filepath.Join(u.dir, fmt.Sprintf("%02d-%s-view-%d.png", u.shot, name, width))
	if err := os.WriteFile(file, get(u, chromedp.CaptureScreenshot()), 0o644); err != nil {
		u.t.Fatal(err)
	}
}

// rawCode matches an error code as the API spells it (snake_case).
var rawCode = regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b`)

func (u *ui) value(sel string) string {
	u.t.Helper()
	return get(u, chromedp.Value(css(sel)))
}

// categoryID finds a category by slug through the API.
func (e *env) categoryID(t *testing.T, slug string) string {
	t.Helper()
	var cs []struct {
		ID string `json:"id"`
	}
	e.Get(t, "/catalog/v1/category.list?slug="+slug, e.Admin).Must(t).Decode(t, "data", &cs)
	if len(cs) != 1 {
		t.Fatalf("category %s: %d found", slug, len(cs))
	}
	return cs[0].ID
}

func (e *env) productID(t *testing.T, sku string) string {
	t.Helper()
	var ps []struct {
		ID     string `json:"id"`
		Prices []struct {
			Amount json.Number `json:"amount"`
		} `json:"prices"`
	}
	e.Get(t, "/catalog/v1/product.list?sku="+sku, e.Admin).Must(t).Decode(t, "data", &ps)
	if len(ps) != 1 || len(ps[0].Prices) != 1 || ps[0].Prices[0].Amount != "250" {
		t.Fatalf("product %s: %+v, want one with the price 250", sku, ps)
	}
	return ps[0].ID
}

// shopper fills a cart through the API as a registered customer: the
// product, the coupon, a shipping address. It returns the cart id and
// the customer's token.
func (e *env) shopper(t *testing.T, productID string) (string, string) {
	t.Helper()
	e.Post(t, "/customer/v1/customer.register", e.API, map[string]any{"email": "ada@example.com", "password": "analytical engine 1843",
		"firstName": "Ada", "lastName": "Lovelace", "phone": "5551234"}).Must(t)
	var login struct {
		AccessToken string `json:"accessToken"`
	}
	res := e.Post(t, "/auth/v1/auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "analytical engine 1843"}).Must(t)
	if err := json.Unmarshal(res.Raw, &login); err != nil || login.AccessToken == "" {
		t.Fatalf("auth.login: %v %s", err, res.Raw)
	}
	tok := login.AccessToken
	var c struct {
		ID string `json:"id"`
	}
	e.Post(t, "/cart/v1/cart.create", tok, map[string]any{"currency": "USD", "country": "US"}).Must(t).Decode(t, "cart", &c)
	e.Post(t, "/cart/v1/cart.addToCart", tok, map[string]any{"cartId": c.ID,
		"items": []any{map[string]any{"productId": productID, "quantity": 2, "warehouseId": "W1"}}}).Must(t)
	applyCoupon(t, e, tok, c.ID, "fridge10")
	e.Post(t, "/cart/v1/cart.setShippingAddress", tok, map[string]any{"cartId": c.ID, "shippingAddress": map[string]any{
		"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Main St", "postCode": "96815",
		"city": "Honolulu", "state": "HI", "country": "US", "phone": "5551234"}}).Must(t)
	return c.ID, tok
}
