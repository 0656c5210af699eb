package admin_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/app"
	mailfile "github.com/commercekit/commerce/mail/file"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

var inviteRE = regexp.MustCompile(`/admin/invite\?token=([A-Za-z0-9_-]+)`)

// inviteLink waits for the staff_invite message sent to dir and returns
// its link's path.
func inviteLink(t *testing.T, dir string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*staff_invite*.eml"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// Quoted-printable: soft line breaks, and = as =3D.
			s := strings.NewReplacer("=\r\n", "", "=\n", "", "=3D", "=").Replace(string(b))
			if m := inviteRE.FindStringSubmatch(s); m != nil {
				return m[0]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no staff_invite with a link in %s: %v", dir, files)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStaffEndToEnd, in Chromium: an owner invites a catalog manager (the
// invitation read from the mail sent), who sets a password, turns on a
// second factor, signs in with it, edits a product, and cannot open the
// orders; the owner disables them and their open session ends.
func TestStaffEndToEnd(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	sender, err := mailfile.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, testdb.SQLite(t), func(o *app.Options) { o.MailSender = sender; o.MailPoll = 20 * time.Millisecond })
	var cat struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Lamps", "slug": "lamps"}).Must(t).Decode(t, "category", &cat)
	var prod struct{ ID string }
	e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "LAMP-1", "status": "DRAFT", "title": "Desk lamp",
		"categories": []string{cat.ID}, "stockStatus": 0}).Must(t).Decode(t, "product", &prod)

	// The owner invites a catalog manager.
	owner := newUI(t, e.URL)
	owner.open("/admin/signin")
	owner.fill("#email", staffEmail, "#password", staffPassword)
	owner.submit(`form button[type=submit]`)
	owner.open("/admin/staff")
	owner.fill("#email", "cat@example.com")
	owner.run(chromedp.SetValue(css("#role"), "catalog"))
	owner.submit("#invite-submit")
	owner.expect(".notice", "invited")
	owner.expect("main table", "cat@example.com")
	owner.screenshot("staff")

	// The invited member sets a password from the mail's link.
	link := inviteLink(t, dir)
	m := newUI(t, e.URL)
	m.open(link)
	m.screenshot("invite")
	m.fill("#password", "lamps and shades 42")
	m.submit(`form button[type=submit]`)
	m.fill("#email", "cat@example.com", "#password", "lamps and shades 42")
	m.submit(`form button[type=submit]`)
	// The dashboard of a catalog manager: low stock, no carts nor orders.
	m.run(chromedp.WaitVisible(css("#low-h")))
	if body := m.text("main"); strings.Contains(body, "Active carts") || strings.Contains(body, "Today's orders") {
		t.Errorf("the catalog manager's dashboard shows carts or orders: %q", body)
	}
	if strings.Contains(m.text("nav"), "Orders") || strings.Contains(m.text("nav"), "Staff") {
		t.Errorf("the catalog manager's menu: %q", m.text("nav"))
	}

	// A second factor: the key, a code of it, the recovery codes.
	m.open("/admin/account")
	m.submit("#totp-begin")
	secret := m.text("#totp-secret")
	code, err := staff.TOTPCode(secret, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	m.fill("#code", code)
	m.submit("#totp-confirm")
	m.expect("#recovery-codes", "-")
	m.screenshot("account-2fa")

	// Signing in again asks for the code.
	m.submit(`form.signout button[type=submit]`)
	m.fill("#email", "cat@example.com", "#password", "lamps and shades 42")
	m.submit(`form button[type=submit]`)
	m.expect("label[for=code]", "authenticator")
	m.screenshot("signin-code")
	code, _ = staff.TOTPCode(secret, e.clock.Now())
	m.fill("#code", code)
	m.submit(`form button[type=submit]`)
	m.run(chromedp.WaitVisible(css("#low-h")))

	// They edit a product, and may not open the orders.
	m.open("/admin/products/" + prod.ID)
	m.fill("#title", "Desk lamp, brass")
	m.submit("#save-product")
	m.expect(".notice", "Saved")
	if r := e.Get(t, "/catalog/v1/product.info?id="+prod.ID, e.Admin).Must(t); !strings.Contains(string(r.Raw), "Desk lamp, brass") {
		t.Errorf("the product after the catalog manager's edit: %s", r.Raw)
	}
	m.open("/admin/orders")
	m.expect("main", "may not")
	m.screenshot("denied")
	if st := get(m, chromedp.Evaluate[int](`fetch('/admin/orders').then(r => r.status)`, chromedp.EvalAwaitPromise)); st != http.StatusForbidden {
		t.Errorf("/admin/orders for the catalog manager: %d, want 403", st)
	}

	// The owner disables them: their open session ends.
	owner.open("/admin/staff")
	owner.run(chromedp.Click(css(`form[action$="/disable"] button`)), chromedp.WaitVisible(css("#confirm-yes")))
	owner.submit("#confirm-yes")
	owner.expect(".notice", "disable")
	owner.expect("main table", "disabled")
	m.open("/admin/products")
	m.expect("main", "Sign in")
	if loc := get(m, chromedp.Location()); !strings.Contains(loc, "/admin/signin") {
		t.Errorf("the disabled member's next page: %s, want the sign-in page", loc)
	}

	// The audit log shows the changes, for the owner.
	owner.open("/admin/audit?actor=cat@example.com")
	owner.expect("main table", "product.update")
	owner.screenshot("audit")
}
