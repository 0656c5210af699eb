package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/commercekit/commerce/auth"
)

// TestStaffAdd: `staff add` reads the password from standard input, and
// the account signs in to the admin app that `serve` runs.
func TestStaffAdd(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "commerce.db")
	add := func(email, pw string) (string, error) {
		old := stdin
		stdin = strings.NewReader(pw)
		defer func() { stdin = old }()
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"staff", "add", "--email", email, "--db", db}, func(string) string { return "" }, &out, &errb)
		return out.String(), err
	}
	if out, err := add("Boss@Example.com", "a long staff password\n"); err != nil || !strings.Contains(out, "boss@example.com") {
		t.Fatalf("staff add: %q %v", out, err)
	}
	if _, err := add("boss@example.com", "another long password\n"); err == nil || !strings.Contains(err.Error(), "duplicate_key") {
		t.Errorf("the same email again: %v, want duplicate_key", err)
	}
	if _, err := add("short@example.com", "short\n"); err == nil || !strings.Contains(err.Error(), "validation_error") {
		t.Errorf("a short password: %v, want validation_error", err)
	}
	if _, err := add("", "a long staff password\n"); err == nil {
		t.Error("no --email: no error")
	}

	base, stop := startServe(t, []string{"--db", db}, nil)
	defer stop()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get(base + "/admin/signin")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no sign-in form: %s", body)
	}
	res, err = c.PostForm(base+"/admin/signin", url.Values{"csrf": {string(m[1])}, "email": {"boss@example.com"}, "password": {"a long staff password"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "Dashboard") {
		t.Fatalf("sign in with the added account: %d\n%s", res.StatusCode, body)
	}
}

// TestStaffAddPasswordRules: `staff add` takes no password customers could
// not have: one of the list of common passwords (in any case), or the
// email; the refused account is not created.
func TestStaffAddPasswordRules(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "commerce.db")
	add := func(email, pw string) error {
		old := stdin
		stdin = strings.NewReader(pw + "\n")
		defer func() { stdin = old }()
		var out, errb bytes.Buffer
		return run(context.Background(), []string{"staff", "add", "--email", email, "--db", db}, func(string) string { return "" }, &out, &errb)
	}
	for _, pw := range []string{"qwertyuiop", "QWERTYUIOP", "1q2w3e4r5t"} {
		if err := add("common@example.com", pw); err == nil || !strings.Contains(err.Error(), "validation_error") || !strings.Contains(err.Error(), "too common") {
			t.Errorf("common password %q: %v, want validation_error (too common)", pw, err)
		}
	}
	if err := add("same.as.email@example.com", "Same.As.Email@example.com"); err == nil || !strings.Contains(err.Error(), "must not be the email") {
		t.Errorf("the email as password: %v, want validation_error", err)
	}
	// Nothing was created: the email takes a good password now.
	if err := add("common@example.com", "a long staff password"); err != nil {
		t.Fatalf("a good password after the refused ones: %v", err)
	}
}

// TestStaffCommands: the first member added is an owner whatever --role
// says; list shows roles and status; disable, password and remove change
// the account (remove of the last owner is refused); each change is in
// the audit log under the actor cli.
func TestStaffCommands(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "commerce.db")
	cmd := func(pw string, args ...string) (string, error) {
		old := stdin
		stdin = strings.NewReader(pw)
		defer func() { stdin = old }()
		var out, errb bytes.Buffer
		err := run(context.Background(), append(append([]string{"staff"}, args...), "--db", db), func(string) string { return "" }, &out, &errb)
		return out.String(), err
	}
	if out, err := cmd("a long staff password\n", "add", "--email", "first@example.com", "--role", "support"); err != nil || !strings.Contains(out, "(owner)") {
		t.Fatalf("first add: %q %v, want an owner", out, err)
	}
	if out, err := cmd("a long staff password\n", "add", "--email", "cat@example.com", "--role", "catalog"); err != nil || !strings.Contains(out, "(catalog)") {
		t.Fatalf("second add: %q %v", out, err)
	}
	if _, err := cmd("a long staff password\n", "add", "--email", "x@example.com", "--role", "janitor"); err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("an unknown role: %v, want a validation error", err)
	}
	if _, err := cmd("", "disable", "--email", "cat@example.com"); err != nil {
		t.Fatal(err)
	}
	out, err := cmd("", "list")
	if err != nil || !regexp.MustCompile(`cat@example.com\s+catalog\s+disabled`).MatchString(out) || !regexp.MustCompile(`first@example.com\s+owner\s+active`).MatchString(out) {
		t.Errorf("list: %v\n%s", err, out)
	}
	if _, err := cmd("short\n", "password", "--email", "cat@example.com"); err == nil || !strings.Contains(err.Error(), "validation_error") {
		t.Errorf("a short new password: %v", err)
	}
	if _, err := cmd("another long password\n", "password", "--email", "cat@example.com"); err != nil {
		t.Errorf("password: %v", err)
	}
	if _, err := cmd("", "remove", "--email", "first@example.com"); err == nil || !strings.Contains(err.Error(), "last_owner") {
		t.Errorf("remove the last owner: %v, want last_owner", err)
	}
	if _, err := cmd("", "remove", "--email", "cat@example.com"); err != nil {
		t.Errorf("remove: %v", err)
	}
	if _, err := cmd("", "remove", "--email", "cat@example.com"); err == nil || !strings.Contains(err.Error(), "staff_not_found") {
		t.Errorf("remove again: %v, want staff_not_found", err)
	}
	if out, _ := cmd("", "list"); strings.Contains(out, "cat@example.com") {
		t.Errorf("list after remove:\n%s", out)
	}
	if _, err := cmd("", "fire", "--email", "first@example.com"); err == nil {
		t.Error("an unknown subcommand: no error")
	}
}

// TestTokenRole: `token --scope admin --role R` carries the claim role;
// an unknown role, or a role on an api token, is refused.
func TestTokenRole(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "commerce.db")
	secret := "0123456789abcdef0123456789abcdef-role"
	tok := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"token", "--db", db, "--jwt-secret", secret}, args...), func(string) string { return "" }, &out, &errb)
		return strings.TrimSpace(out.String()), err
	}
	s, err := tok("--scope", "admin", "--role", "catalog")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := auth.New([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := keys.Verify(s); err != nil || c.Role != "catalog" || !c.IsAdmin() {
		t.Errorf("the token's claims: %+v %v, want admin with role catalog", c, err)
	}
	if _, err := tok("--scope", "admin", "--role", "janitor"); err == nil {
		t.Error("an unknown role: no error")
	}
	if _, err := tok("--scope", "api", "--role", "catalog"); err == nil {
		t.Error("a role on an api token: no error")
	}
}
