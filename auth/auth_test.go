package auth_test

import (
	"errors"
	"strconv"
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

// Issue 27 defect 5: exp, nbf and iat are NumericDates (RFC 7519 section
// 2), JSON numbers; a token giving one as a string is refused as
// invalid_token, however valid the date it holds, and the same claims as
// numbers are accepted.
func TestDateClaimsAreNumbers(t *testing.T) {
	secret := []byte(strings.Repeat("k", auth.MinSecretLen))
	keys, err := auth.New(secret)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	exp, past := now.Add(time.Hour).Unix(), now.Add(-time.Minute).Unix()
	sign := func(c jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, tc := range []struct {
		name   string
		claims jwt.MapClaims
		ok     bool
	}{
		{"numbers", jwt.MapClaims{"sub": "a", "scope": "api", "exp": exp, "nbf": past, "iat": past}, true},
		{"fractional exp", jwt.MapClaims{"sub": "a", "scope": "api", "exp": float64(exp) + 0.5}, true},
		{"exp as a string", jwt.MapClaims{"sub": "a", "scope": "api", "exp": strconv.FormatInt(exp, 10)}, false},
		{"nbf as a string", jwt.MapClaims{"sub": "a", "scope": "api", "exp": exp, "nbf": strconv.FormatInt(past, 10)}, false},
		{"iat as a string", jwt.MapClaims{"sub": "a", "scope": "api", "exp": exp, "iat": strconv.FormatInt(past, 10)}, false},
		{"exp null", jwt.MapClaims{"sub": "a", "scope": "api", "exp": nil}, false},
		{"exp a boolean", jwt.MapClaims{"sub": "a", "scope": "api", "exp": true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := keys.Verify(sign(tc.claims))
			switch {
			case tc.ok && (err != nil || c.Subject != "a"):
				t.Errorf("got %+v, %v; want the claims", c, err)
			case !tc.ok && commerce.ErrorCode(err) != commerce.EInvalidToken:
				t.Errorf("got %+v, %v; want invalid_token", c, err)
			}
		})
	}
}
