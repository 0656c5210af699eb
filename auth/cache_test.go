package auth

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/commercekit/commerce"
)

func testKeys(t testing.TB) *Keys {
	t.Helper()
	k, err := New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A token answered from the cache still expires on time, and the cache
// never makes a token valid that the parser refuses.
func TestVerifyCacheHonoursExpiry(t *testing.T) {
	k := testKeys(t)
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now := start
	k.now = func() time.Time { return now }
	tok, err := k.Issue(commerce.Claims{Subject: "s", Scopes: []string{"api"}, CustomerID: "c1"}, start, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the second answer comes from the cache
		c, err := k.Verify(tok)
		if err != nil || c.CustomerID != "c1" || c.Subject != "s" {
			t.Fatalf("verify %d: %+v, %v", i, c, err)
		}
	}
	if len(k.verified) != 1 {
		t.Fatalf("cache holds %d tokens, want 1", len(k.verified))
	}
	now = start.Add(time.Hour + leeway - time.Second)
	if _, err := k.Verify(tok); err != nil {
		t.Fatalf("within the leeway: %v", err)
	}
	now = start.Add(time.Hour + leeway + time.Second)
	_, err = k.Verify(tok)
	var ce *commerce.Error
	if !errors.As(err, &ce) || ce.Code != commerce.EInvalidToken {
		t.Fatalf("expired token from the cache: %v, want invalid_token", err)
	}
	// A token signed with another secret is never cached.
	other, _ := New([]byte("another-secret-another-secret-xx"))
	other.now = k.now
	forged, _ := other.Issue(commerce.Claims{Subject: "s", Scopes: []string{"admin"}}, now, time.Hour)
	for range 2 {
		if _, err := k.Verify(forged); err == nil {
			t.Fatal("forged token accepted")
		}
	}
}

func TestVerifyCacheIsBounded(t *testing.T) {
	k := testKeys(t)
	now := time.Now()
	for i := range maxVerified + 10 {
		tok, err := k.Issue(commerce.Claims{Subject: fmt.Sprint(i), Scopes: []string{"api"}}, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := k.Verify(tok); err != nil || c.Subject != fmt.Sprint(i) {
			t.Fatalf("verify %d: %+v %v", i, c, err)
		}
	}
	if n := len(k.verified); n > maxVerified || n == 0 {
		t.Fatalf("cache holds %d tokens, want 1..%d", n, maxVerified)
	}
}

// BenchmarkVerify compares a cached verification with a full one.
func BenchmarkVerify(b *testing.B) {
	k := testKeys(b)
	tok, err := k.Issue(commerce.Claims{Subject: "s", Scopes: []string{"api"}}, time.Now(), time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := k.Verify(tok); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := k.verify(tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}
