package password

import (
	"strings"
	"testing"
)

var fast = Params{Memory: 1024, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashVerify(t *testing.T) {
	h, err := Hash("correct horse battery", fast)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=1$") {
		t.Fatalf("hash %q is not a PHC argon2id string with its parameters", h)
	}
	h2, _ := Hash("correct horse battery", fast)
	if h == h2 {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	for _, tc := range []struct {
		name, pw string
		want     bool
	}{{"right", "correct horse battery", true}, {"wrong", "correct horse batterY", false}, {"empty", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := Verify(tc.pw, h)
			if err != nil || ok != tc.want {
				t.Fatalf("Verify = %v, %v; want %v", ok, err, tc.want)
			}
		})
	}
}

func TestVerifyMalformed(t *testing.T) {
	for _, h := range []string{"", "plain", "$argon2i$v=19$m=1024,t=1,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=0,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=1024,t=1,p=1$!!$a2V5",
		"$argon2id$v=18$m=1024,t=1,p=1$c2FsdA$a2V5"} {
		if ok, err := Verify("x", h); ok || err == nil {
			t.Errorf("Verify(%q) = %v, %v; want an error", h, ok, err)
		}
	}
}
