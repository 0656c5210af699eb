package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/auth"
)

// TestTokenGroups: commerce token --group (repeatable) mints a token whose
// groups claim lists the codes in order (docs/api.md section 26); an empty
// code is refused.
func TestTokenGroups(t *testing.T) {
	secret := strings.Repeat("s", 40)
	var out bytes.Buffer
	err := run(context.Background(), []string{"token", "--scope", "api", "--customer-id", "C1", "--group", "TRADE", "--group", "MEMBERS",
		"--jwt-secret", secret}, func(string) string { return "" }, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := auth.New([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := keys.Verify(strings.TrimSpace(out.String()))
	if err != nil || !slices.Equal(cl.Groups, []string{"TRADE", "MEMBERS"}) || cl.CustomerID != "C1" {
		t.Fatalf("claims %+v (%v), want groups TRADE, MEMBERS", cl, err)
	}
	out.Reset()
	err = run(context.Background(), []string{"token", "--scope", "api", "--group", " ", "--jwt-secret", secret},
		func(string) string { return "" }, &out, io.Discard)
	if err == nil || out.Len() != 0 {
		t.Fatalf("an empty --group: got %v and %q, want an error and no token", err, out.String())
	}
}
