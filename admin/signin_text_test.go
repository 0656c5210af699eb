package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestSignInMalformedText: an email or password with a NUL byte or invalid
// UTF-8 is 400 with the form's validation error, before any store access
// (PostgreSQL refuses such text: it was 500): not even counted as a failure.
func TestSignInMalformedText(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		// The problem is shown at its field.
		for _, tc := range []struct{ email, pw, want string }{
			{"a\x00@x.com", staffPassword, `id="email-error">Must not contain a NUL byte`},
			{"a\xff@x.com", staffPassword, `id="email-error">Must be valid UTF-8`},
			{staffEmail, "wrong\x00password", `id="password-error">Must not contain a NUL byte`},
			{staffEmail, "wrong\xffpassword", `id="password-error">Must be valid UTF-8`},
		} {
			for range staff.MaxFailures {
				got := b.signIn(tc.email, tc.pw)
				if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `data-code="validation_error"`) || !strings.Contains(got.Body, tc.want) {
					t.Fatalf("%q %q: %d, want 400 validation_error %q\n%s", tc.email, tc.pw, got.Status, tc.want, got.Body)
				}
			}
		}
		b.mustSignIn() // none of them counted
	})
}
