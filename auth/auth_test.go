package auth_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
)

// Issue 9 defect 10: a secret under 32 bytes is refused with a message
// saying so; one of 32 bytes signs and verifies.
func TestSecretLength(t *testing.T) {
	for _, s := range []string{"", "x", strings.Repeat("k", auth.MinSecretLen-1)} {
		if _, err := auth.New([]byte(s)); err == nil || !strings.Contains(err.Error(), "at least 32 bytes") {
			t.Errorf("secret of %d bytes: got %v, want an error saying at least 32 bytes", len(s), err)
		}
	}
	keys, err := auth.New([]byte(strings.Repeat("k", auth.MinSecretLen)))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := keys.Issue(commerce.Claims{Subject: "a", Scopes: []string{"api"}}, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := keys.Verify(tok); err != nil || c.Subject != "a" {
		t.Errorf("verify: %+v, %v", c, err)
	}
}

// The reason a token is refused stays in the error chain (issue 9 defect 11).
func TestVerifyKeepsTheCause(t *testing.T) {
	keys, err := auth.New([]byte(strings.Repeat("k", auth.MinSecretLen)))
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := keys.Issue(commerce.Claims{Subject: "a"}, time.Now().Add(-time.Hour), time.Minute)
	_, err = keys.Verify(tok)
	if commerce.ErrorCode(err) != commerce.EInvalidToken || !errors.Is(err, jwt.ErrTokenExpired) {
		t.Errorf("got %v, want invalid_token caused by jwt.ErrTokenExpired", err)
	}
}
