package password

import (
	"strings"
	"testing"

	"github.com/commercekit/commerce"
)

func TestPasswordRules(t *testing.T) {
	for _, tc := range []struct {
		name, pw, email, want string
	}{
		{"fine", "correct horse battery staple", "ada@example.com", ""},
		{"9 characters", "abcdefgh1", "", "must be 10 to 128"},
		{"10 characters", "kq8#vL2!xz", "", ""},
		{"10 characters counted as runes", "ñññññññññ1", "", ""},
		{"129 characters", strings.Repeat("ab", 64) + "c", "", "must be 10 to 128"},
		{"128 characters", strings.Repeat("ab", 64), "", ""},
		{"the email", "Ada@Example.com", "ada@example.com", "must not be the email"},
		{"common", "1q2w3e4r5t", "", "too common"},
		{"common in capitals", "QWERTYUIOP", "", "too common"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p commerce.Problems
			Check(&p, "password", tc.pw, tc.email)
			got := strings.Join(p, "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.pw != "" && strings.Contains(got, tc.pw) {
				t.Errorf("the problem quotes the password: %q", got)
			}
		})
	}
	if n := len(commonPasswords()); n < 5000 {
		t.Errorf("the common password list has %d entries", n)
	}
}
