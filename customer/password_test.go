package customer

import (
	"strings"
	"testing"
	"time"
)

func TestPasswordHash(t *testing.T) {
	h, err := HashPassword("correct horse battery staple", DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Count(h, "$") != 5 {
		t.Fatalf("PHC string %q", h)
	}
	h2, _ := HashPassword("correct horse battery staple", DefaultParams)
	if h == h2 {
		t.Error("two hashes of one password are equal: no salt")
	}
	// Stronger parameters later: old and new hashes both verify.
	strong, _ := HashPassword("correct horse battery staple", Params{Memory: 32 * 1024, Time: 3, Threads: 2, KeyLen: 32, SaltLen: 16})
	for _, tc := range []struct {
		name, pw, hash string
		ok             bool
		bad            bool
	}{
		{"right", "correct horse battery staple", h, true, false},
		{"wrong", "correct horse battery stapl", h, false, false},
		{"stronger parameters", "correct horse battery staple", strong, true, false},
		{"empty hash", "x", "", false, true},
		{"bcrypt", "x", "$2a$10$abcdefghijklmnopqrstuu", false, true},
		{"argon2i", "x", strings.Replace(h, "argon2id", "argon2i", 1), false, true},
		{"bad version", "x", strings.Replace(h, "v=19", "v=16", 1), false, true},
		{"zero memory", "x", strings.Replace(h, "m=19456", "m=0", 1), false, true},
		{"bad salt", "x", strings.Replace(h, "$m=19456,t=2,p=1$", "$m=19456,t=2,p=1$!!", 1), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := VerifyPassword(tc.pw, tc.hash)
			if ok != tc.ok || (err != nil) != tc.bad {
				t.Errorf("got %v, %v; want %v, error %v", ok, err, tc.ok, tc.bad)
			}
		})
	}
}

// TestDummyHashParams: a login for an unknown email is checked against a
// hash made with the service's own parameters, so it costs what checking a
// customer's password costs.
func TestDummyHashParams(t *testing.T) {
	weak := Params{Memory: 8 * 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}
	for _, tc := range []struct {
		name   string
		params *Params
		prefix string
	}{
		{"default", nil, "$argon2id$v=19$m=19456,t=2,p=1$"},
		{"configured", &weak, "$argon2id$v=19$m=8192,t=1,p=1$"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewService(nil, nil, time.Now, Options{Params: tc.params})
			if h := s.dummyHash(); !strings.HasPrefix(h, tc.prefix) {
				t.Errorf("dummy hash %q, want the prefix %q", h, tc.prefix)
			}
		})
	}
}
