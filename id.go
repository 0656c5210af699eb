package commerce

import (
	"crypto/rand"
	"encoding/base64"
)

// NewID returns a new opaque, URL-safe identifier carrying 96 random bits.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it panics on an unusable source)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
