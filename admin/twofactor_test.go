package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

var (
	totpSecretRE   = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)
	recoveryCodeRE = regexp.MustCompile(`<li><code>([a-z2-7]{8}-[a-z2-7]{8})</code></li>`)
)

// setUpTOTP turns on the signed-in member's second factor from their
// account page, as they would with an authenticator app, and returns its
// secret and the recovery codes shown.
func (e *env) setUpTOTP(t *testing.T, b *browser) (string, []string) {
	t.Helper()
	csrf := b.csrf("/admin/account")
	p := b.post("/admin/account/totp", url.Values{"csrf": {csrf}})
	m := totpSecretRE.FindStringSubmatch(p.Body)
	if p.Status != http.StatusOK || m == nil {
		t.Fatalf("set up a second factor: %d, no secret shown\n%s", p.Status, p.Body)
	}
	code, err := staff.TOTPCode(m[1], e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	p = b.post("/admin/account/totp/confirm", url.Values{"csrf": {csrf}, "code": {code}})
	var codes []string
	for _, c := range recoveryCodeRE.FindAllStringSubmatch(p.Body, -1) {
		codes = append(codes, c[1])
	}
	if p.Status != http.StatusOK || len(codes) != staff.RecoveryCodes {
		t.Fatalf("confirm the second factor: %d, %d recovery codes shown, want %d\n%s", p.Status, len(codes), staff.RecoveryCodes, p.Body)
	}
	// The next code is another one (the app's next 30 seconds).
	e.clock.Add(31 * time.Second)
	return m[1], codes
}

// signInWithCode signs a new browser in with the password, which asks for
// the second factor, and answers it with code; it returns the browser and
// the answer to the code's form.
func (e *env) signInWithCode(t *testing.T, email, password, code string) (*browser, page) {
	t.Helper()
	b := e.browser(t)
	p := b.signIn(email, password)
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/admin/signin/code") {
		t.Fatalf("sign in with a second factor: %d %s, want the code's page", p.Status, p.Location)
	}
	// Nothing but the code's page until the code is given.
	if p := b.get("/admin/products"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/admin/signin/code") {
		t.Fatalf("a page before the code: %d %s, want the code's page", p.Status, p.Location)
	}
	csrf := b.csrf("/admin/signin/code")
	return b, b.post("/admin/signin/code", url.Values{"csrf": {csrf}, "code": {code}, "next": {"/admin/products"}})
}

// TestRequire2FA: with --admin-require-2fa, a member without a second
// factor signs in with their password but is sent to set one up before
// any other page (their account page alone opens); once it is on, they
// use the app, and their next sign-in asks for the code, which a wrong
// code does not pass.
func TestRequire2FA(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db, func(o *app.Options) { o.AdminRequire2FA = true })
		const email = "clerk@example.com"
		b, _ := e.member(t, email, staff.RoleCatalog)
		for _, path := range []string{"/admin/", "/admin/products", "/admin/categories", "/admin/products/new"} {
			if p := b.get(path); p.Status != http.StatusSeeOther || p.Location != "/admin/account?setup2fa=1" {
				t.Errorf("GET %s without a second factor: %d %s, want the set-up page", path, p.Status, p.Location)
			}
		}
		csrf := b.csrf("/admin/account")
		if p := b.post("/admin/categories", url.Values{"csrf": {csrf}, "title": {"Sneaked"}, "slug": {"sneaked"}}); p.Status != http.StatusSeeOther ||
			p.Location != "/admin/account?setup2fa=1" {
			t.Errorf("a form without a second factor: %d %s, want the set-up page", p.Status, p.Location)
		}
		if p := b.get("/admin/account"); p.Status != http.StatusOK || !strings.Contains(p.Body, "requires a second factor") {
			t.Fatalf("the account page: %d, no word of the requirement\n%s", p.Status, p.Body)
		}
		secret, _ := e.setUpTOTP(t, b)
		if p := b.get("/admin/products"); p.Status != http.StatusOK {
			t.Fatalf("products with a second factor: %d %s, want 200", p.Status, p.Location)
		}
		// The next sign-in asks for the code.
		if _, p := e.signInWithCode(t, email, memberPassword, "000000"); p.Status == http.StatusSeeOther {
			t.Fatalf("a wrong code: %d %s, want refused", p.Status, p.Location)
		}
		code, err := staff.TOTPCode(secret, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		b2, p := e.signInWithCode(t, email, memberPassword, code)
		if p.Status != http.StatusSeeOther || p.Location != "/admin/products" {
			t.Fatalf("the right code: %d %s, want /admin/products", p.Status, p.Location)
		}
		if p := b2.get("/admin/products"); p.Status != http.StatusOK {
			t.Errorf("products after the code: %d %s", p.Status, p.Location)
		}
	})
}

// TestSignInWithRecoveryCode: a recovery code passes the second factor
// once: the same code again is refused, and the count of codes left
// drops by one for each code used.
func TestSignInWithRecoveryCode(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		const email = "keeper@example.com"
		b, st := e.member(t, email, staff.RoleOrders)
		_, codes := e.setUpTOTP(t, b)
		left := func() int {
			t.Helper()
			var n int
			if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM staff_recovery_codes WHERE staff_id = ?`, st.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := left(); n != staff.RecoveryCodes {
			t.Fatalf("%d codes left, want %d", n, staff.RecoveryCodes)
		}
		b1, p := e.signInWithCode(t, email, memberPassword, strings.ToUpper(codes[3])) // as typed from paper
		if p.Status != http.StatusSeeOther || p.Location != "/admin/products" {
			t.Fatalf("a recovery code: %d %s, want signed in", p.Status, p.Location)
		}
		if p := b1.get("/admin/orders"); p.Status != http.StatusOK {
			t.Errorf("orders after a recovery code: %d %s", p.Status, p.Location)
		}
		if n := left(); n != staff.RecoveryCodes-1 {
			t.Errorf("after one code: %d left, want %d", n, staff.RecoveryCodes-1)
		}
		// The same code again: refused, nothing used up, no session.
		b2, p := e.signInWithCode(t, email, memberPassword, codes[3])
		if p.Status == http.StatusSeeOther {
			t.Fatalf("a used recovery code: %d %s, want refused", p.Status, p.Location)
		}
		if p := b2.get("/admin/orders"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/admin/signin/code") {
			t.Errorf("after a used code: %d %s, want still the code's page", p.Status, p.Location)
		}
		if n := left(); n != staff.RecoveryCodes-1 {
			t.Errorf("after a used code: %d left, want %d", n, staff.RecoveryCodes-1)
		}
		// Another one works, once.
		if _, p := e.signInWithCode(t, email, memberPassword, codes[7]); p.Status != http.StatusSeeOther {
			t.Fatalf("another recovery code: %d, want signed in", p.Status)
		}
		if n := left(); n != staff.RecoveryCodes-2 {
			t.Errorf("after two codes: %d left, want %d", n, staff.RecoveryCodes-2)
		}
	})
}
