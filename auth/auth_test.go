package auth_test

import (
	"strings"
	"testing"
	"time"

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
