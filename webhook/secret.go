package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// secretBytes is the number of random bytes of a signing secret.
const secretBytes = 32

// NewSecret returns a fresh signing secret: whsec_ and the base64 of 32
// random bytes.
func NewSecret() string {
	b := make([]byte, secretBytes)
	rand.Read(b) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// secretKey returns the HMAC key of a signing secret: the base64-decoded
// part after whsec_.
func secretKey(secret string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("webhook secret is not base64: %w", err)
	}
	return b, nil
}

// Sign returns the webhook-signature header value of a message: "v1," and
// the base64 of the HMAC-SHA256, keyed with the secret's decoded bytes, of
// "<id>.<timestamp>.<body>" (Standard Webhooks).
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// Sealer encrypts signing secrets at rest with AES-256-GCM. The secrets
// must stay usable for HMAC, so they cannot be hashed; the key is derived
// from the service's JWT secret (HKDF-SHA256), so a copy of the database
// alone does not reveal them.
type Sealer struct{ aead cipher.AEAD }

// NewSealer returns a sealer whose key is derived from secret.
func NewSealer(secret []byte) (*Sealer, error) {
	if len(secret) == 0 {
		return nil, errors.New("webhook: empty key secret")
	}
	key, err := hkdf.Key(sha256.New, secret, nil, "commerce webhook signing secrets v1", 32)
	if err != nil {
		return nil, fmt.Errorf("webhook: derive the sealing key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("webhook: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("webhook: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts a signing secret: base64 of nonce and ciphertext.
func (s *Sealer) Seal(secret string) string {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(secret), nil))
}

// Open decrypts what Seal returned.
func (s *Sealer) Open(sealed string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", errors.New("webhook: sealed secret is malformed")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], nil)
	if err != nil {
		return "", errors.New("webhook: the sealed secret does not open with this key (was the JWT secret changed?)")
	}
	return string(plain), nil
}
