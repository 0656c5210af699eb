package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/admin"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

const memberPassword = "a member's long password"

// member adds a staff member of the role and returns a browser signed in
// as them.
func (e *env) member(t *testing.T, email string, role staff.Role) (*browser, staff.Staff) {
	t.Helper()
	st, err := e.App.Staff.Add(t.Context(), email, memberPassword, string(role))
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	if p := b.signIn(email, memberPassword); p.Status != http.StatusSeeOther || p.Location != "/admin/" {
		t.Fatalf("sign in as %s: %d %s", email, p.Status, p.Location)
	}
	return b, st
}

// TestLockOutPerAddress: failures lock an email for the address they come
// from only, so that nobody can keep a known account locked from
// outside; many failures from one address (any emails) lock that address.
func TestLockOutPerAddress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ctx := t.Context()
		const attacker, owner, scanner = "203.0.113.66", "192.0.2.10", "198.51.100.7"
		for i := range staff.MaxFailures {
			if _, _, _, err := e.App.Staff.SignIn(ctx, staffEmail, "wrong password "+string(rune('a'+i)), attacker); commerce.ErrorCode(err) != commerce.EInvalidCredentials {
				t.Fatalf("failure %d: %v", i+1, err)
			}
		}
		if _, _, _, err := e.App.Staff.SignIn(ctx, staffEmail, staffPassword, attacker); commerce.ErrorCode(err) != commerce.ETooManyAttempts {
			t.Fatalf("the attacker's address after %d failures: %v, want too_many_attempts", staff.MaxFailures, err)
		}
		if _, _, _, err := e.App.Staff.SignIn(ctx, staffEmail, staffPassword, owner); err != nil {
			t.Fatalf("the account's owner from their own address: %v, want signed in", err)
		}
		// One address guessing many emails is locked as a whole.
		for i := range staff.MaxAddressFailures {
			email := "guess" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@example.com"
			if _, _, _, err := e.App.Staff.SignIn(ctx, email, "wrong password", scanner); commerce.ErrorCode(err) != commerce.EInvalidCredentials {
				t.Fatalf("scan %d: %v", i+1, err)
			}
		}
		if _, _, _, err := e.App.Staff.SignIn(ctx, staffEmail, staffPassword, scanner); commerce.ErrorCode(err) != commerce.ETooManyAttempts {
			t.Fatalf("an address after %d failures on many emails: %v, want too_many_attempts", staff.MaxAddressFailures, err)
		}
		if _, _, _, err := e.App.Staff.SignIn(ctx, staffEmail, staffPassword, owner); err != nil {
			t.Fatalf("another address meanwhile: %v", err)
		}
	})
}

// TestSessionEndsInOtherProcesses: a member disabled or removed by
// another process (a second app over the same database, as `commerce
// staff disable` or a second `serve` would) loses their open session at
// the next request.
func TestSessionEndsInOtherProcesses(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		other := apitest.New(t, db) // another process on the same database
		for _, how := range []string{"disable", "remove"} {
			b, st := e.member(t, how+"@example.com", staff.RoleCatalog)
			if p := b.get("/admin/products"); p.Status != http.StatusOK {
				t.Fatalf("%s: products before: %d", how, p.Status)
			}
			var err error
			if how == "disable" {
				_, err = other.App.Staff.Disable(t.Context(), st.ID, true)
			} else {
				_, err = other.App.Staff.Remove(t.Context(), st.ID)
			}
			if err != nil {
				t.Fatal(err)
			}
			if p := b.get("/admin/products"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/admin/signin") {
				t.Fatalf("%s: the open session after: %d %s, want the sign-in page", how, p.Status, p.Location)
			}
			if p := b.signIn(how+"@example.com", memberPassword); p.Status != http.StatusUnauthorized {
				t.Errorf("%s: sign in after: %d, want 401", how, p.Status)
			}
		}
		// The last owner can be neither disabled, removed nor demoted.
		for _, err := range []error{
			func() error { _, err := e.App.Staff.Disable(t.Context(), e.staff.ID, true); return err }(),
			func() error { _, err := e.App.Staff.Remove(t.Context(), e.staff.ID); return err }(),
			func() error { _, err := e.App.Staff.SetRole(t.Context(), e.staff.ID, "admin"); return err }(),
		} {
			if commerce.ErrorCode(err) != staff.ELastOwner {
				t.Errorf("the last owner: %v, want last_owner", err)
			}
		}
	})
}

// TestRolesInTheAdminApp is generated from the permission table: every
// area's page, opened (GET) and posted to, by a member of each role, is
// 403 exactly when staff.Allowed refuses the role that resource (a form
// posted by hand included: the server refuses whatever the page showed),
// and the menu shows only what the role may open.
func TestRolesInTheAdminApp(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		pages := map[string]string{"products": "product", "categories": "category", "promotions": "promotion", "taxes": "tax",
			"shipping": "shipping", "events": "event", "orders": "order", "customers": "customer", "webhooks": "webhook",
			"mail": "mail", "staff": "staff", "audit": "audit"}
		// A form of each area that changes something, with the action
		// the table knows it by.
		forms := map[string]string{"/admin/products/new": "product", "/admin/categories": "category",
			"/admin/promotions/new": "promotion", "/admin/taxes": "tax", "/admin/shipping": "shipping",
			"/admin/orders/x/capture": "order", "/admin/webhooks": "webhook", "/admin/mail/x/resend": "mail.resend",
			"/admin/drafts/new": "draft", "/admin/staff": "staff"}
		for _, role := range staff.Roles {
			b, _ := e.member(t, string(role)+"@example.com", role)
			csrf := b.csrf("/admin/")
			dash := b.get("/admin/").Body
			for seg, res := range pages {
				p := b.get("/admin/" + seg)
				allowed := staff.Allowed(role, res, false)
				if p.Status == http.StatusNotFound {
					continue // the area is not assembled
				}
				if allowed != (p.Status != http.StatusForbidden) {
					t.Errorf("%s GET /admin/%s: %d, allowed %v", role, seg, p.Status, allowed)
				}
				if inMenu := strings.Contains(dash, `href="/admin/`+seg+`"`); inMenu && !allowed {
					t.Errorf("%s: the menu links /admin/%s, which the role may not open", role, seg)
				}
			}
			for path, action := range forms {
				w := b.post(path, url.Values{"csrf": {csrf}, "title": {"t"}})
				if w.Status == http.StatusNotFound && !strings.Contains(w.Body, "<") {
					continue // the area is not assembled
				}
				if allowed := staff.Allowed(role, action, true); allowed == (w.Status == http.StatusForbidden) {
					t.Errorf("%s POST %s: %d, allowed %v", role, path, w.Status, allowed)
				}
			}
		}
	})
}

// TestStaffCodesHaveSentences: the staff area's own codes (staff.E*, not
// in error.go: no API operation answers them) are explained too.
func TestStaffCodesHaveSentences(t *testing.T) {
	for _, c := range []string{staff.EStaffNotFound, staff.ELastOwner, staff.EInvalidInvite} {
		if !admin.HasSentence(c) {
			t.Errorf("%s has no sentence", c)
		}
	}
}
