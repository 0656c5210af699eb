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
