package customer

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sync"

	"github.com/commercekit/commerce/internal/password"
)

// Password length limits, in characters (internal/password's rules).
const (
	MinPasswordLen = password.MinLen
	MaxPasswordLen = password.MaxLen
)

// Params are argon2id's parameters (see internal/password). Stored hashes
// carry their own (PHC string), so raising these later leaves old hashes
// verifiable.
type Params = password.Params

// DefaultParams are OWASP's minimum for argon2id (Password Storage Cheat
// Sheet): 19 MiB of memory, 2 iterations, 1 lane; a 16-byte salt and a
// 32-byte key.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, KeyLen: 32, SaltLen: 16}

// HashPassword returns the argon2id PHC string of the password:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key> (unpadded base64).
func HashPassword(pw string, p Params) (string, error) { return password.Hash(pw, p) }

// NeedsRehash reports whether a PHC string was made with other argon2id
// parameters than p (raised since): it is hashed again at the next login.
func NeedsRehash(phc string, p Params) bool { return password.NeedsRehash(phc, p) }

// VerifyPassword reports whether the password matches the PHC string,
// comparing in constant time. A malformed hash is an error.
func VerifyPassword(pw, phc string) (bool, error) { return password.Verify(pw, phc) }

// newDummyHash returns, computed once, a hash under p of a random
// password: what a login for an unknown email is verified against, so that
// an unknown email and a wrong password take the same time (the same
// parameters as the service's new hashes, so the same work).
func newDummyHash(p Params) func() string {
	return sync.OnceValue(func() string {
		h, err := HashPassword(NewSecret(), p)
		if err != nil {
			panic(err) // crypto/rand failing: nothing else would work either
		}
		return h
	})
}

// NewSecret returns an opaque token of 256 random bits, URL-safe.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashSecret returns the SHA-256 (hex) of a high-entropy secret: what is
// stored of refresh tokens, reset tokens and client secrets.
func HashSecret(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
