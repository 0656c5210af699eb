// Package password hashes passwords with argon2id and stores each hash as a
// PHC string with its parameters ($argon2id$v=19$m=...,t=...,p=...$salt$key),
// so the parameters can be raised later and old hashes still verify.
//
// It serves the customer accounts (package customer) and the staff
// accounts of the admin app (package staff).
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen uint32
	KeyLen  uint32
}

// Default follows RFC 9106's second recommended option (64 MiB, 3 passes),
// with 4 lanes.
var Default = Params{Memory: 64 * 1024, Time: 3, Threads: 4, SaltLen: 16, KeyLen: 32}

// ErrMalformed is returned by Verify for a hash that is not an argon2id PHC
// string this package can read.
var ErrMalformed = errors.New("password: malformed argon2id hash")

var b64 = base64.RawStdEncoding

// slots bounds the argon2 computations running at once: each takes
// Params.Memory, so a burst of sign-ins cannot take the machine's memory.
var slots = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

func idKey(pw, salt []byte, p Params) []byte {
	slots <- struct{}{}
	defer func() { <-slots }()
	return argon2.IDKey(pw, salt, p.Time, p.Memory, p.Threads, p.KeyLen)
}

// NeedsRehash reports whether the PHC string was made with other argon2id
// parameters than p (raised since), so that it is hashed again at the next
// successful sign-in.
func NeedsRehash(hash string, p Params) bool {
	want := fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$", argon2.Version, p.Memory, p.Time, p.Threads)
	return !strings.HasPrefix(hash, want)
}

// Hash returns the PHC string of password under p.
func Hash(password string, p Params) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	key := idKey([]byte(password), salt, p)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches the PHC string hash, comparing
// in constant time.
func Verify(password, hash string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, ErrMalformed
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, ErrMalformed
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 || p.Memory > 4<<20 || p.Time > 64 {
		return false, ErrMalformed
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) == 0 {
		return false, ErrMalformed
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) == 0 || len(key) > 1024 {
		return false, ErrMalformed
	}
	p.KeyLen = uint32(len(key))
	got := idKey([]byte(password), salt, p)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}
