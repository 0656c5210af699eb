// Package auth issues and verifies the service's access tokens: HS256 JWTs
// with a required expiry, carrying the caller's scopes and customer claims.
package auth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/commercekit/commerce"
)

// tokenClaims is the JWT payload.
type tokenClaims struct {
	Scope        string `json:"scope"`
	CustomerID   string `json:"customerId,omitempty"`
	CustomerType string `json:"customerType,omitempty"`
	Country      string `json:"country,omitempty"`
	// Groups are the customer's group codes (docs/api.md section 26).
	Groups []string `json:"groups,omitempty"`
	Role   string   `json:"role,omitempty"`
	jwt.RegisteredClaims
}

// dateClaims are the claims that RFC 7519 (section 2) makes NumericDates:
// JSON numbers of seconds since the epoch.
var dateClaims = []string{"exp", "nbf", "iat"}

// UnmarshalJSON implements json.Unmarshaler: the payload as jwt reads it,
// after checking that each of exp, nbf and iat given is a JSON number.
// jwt.NumericDate also takes a string holding a number ("exp":
// "9999999999"), which RFC 7519 does not allow: such a token is refused.
func (tc *tokenClaims) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, name := range dateClaims {
		v, ok := raw[name]
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
			return fmt.Errorf("claim %s is not a NumericDate (a JSON number)", name)
		}
	}
	type plain tokenClaims // without this method
	return json.Unmarshal(b, (*plain)(tc))
}

// Keys signs and verifies tokens with one HS256 secret.
type Keys struct {
	secret []byte
	parser *jwt.Parser
	now    func() time.Time

	// verified caches the claims of tokens already verified, until their
	// expiry: a storefront sends the same token with every request, and
	// checking an HMAC and decoding JSON each time was 6-9 % of a
	// product read. Bounded by maxVerified; emptied when full.
	mu       sync.RWMutex
	verified map[string]verifiedToken
}

type verifiedToken struct {
	claims  commerce.Claims
	expires time.Time
}

// maxVerified bounds the verified-token cache (about 1 KB an entry).
const maxVerified = 8192

// leeway is the clock skew allowed on a token's expiry.
const leeway = 5 * time.Second

// MinSecretLen is the shortest HS256 secret accepted, in bytes: RFC 7518
// section 3.2 asks for a key at least as long as the hash output (256
// bits), and a short one can be found by brute force from any token.
const MinSecretLen = 32

// New returns keys for the secret, which must be at least MinSecretLen
// bytes long.
func New(secret []byte) (*Keys, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: the JWT secret must be at least %d bytes long, got %d (use a long random one, for example `openssl rand -hex 32`)", MinSecretLen, len(secret))
	}
	k := &Keys{secret: secret, now: time.Now, verified: make(map[string]verifiedToken)}
	k.parser = jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(func() time.Time { return k.now() }))
	return k, nil
}

// Issue returns a signed token for the claims, valid for ttl from now.
func (k *Keys) Issue(c commerce.Claims, now time.Time, ttl time.Duration) (string, error) {
	tc := tokenClaims{
		Scope:        strings.Join(c.Scopes, " "),
		CustomerID:   c.CustomerID,
		CustomerType: c.CustomerType,
		Country:      c.Country,
		Groups:       c.Groups,
		Role:         c.Role,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   c.Subject,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, tc).SignedString(k.secret)
}

// Verify checks the token's signature, algorithm and expiry and returns its
// claims. Any failure is invalid_token (the reason goes to Message only).
// A token verified before is answered from memory until it expires; the
// claims returned are shared and must not be changed.
func (k *Keys) Verify(token string) (commerce.Claims, error) {
	k.mu.RLock()
	v, ok := k.verified[token]
	k.mu.RUnlock()
	if ok && k.now().Before(v.expires) {
		return v.claims, nil
	}
	c, exp, err := k.verify(token)
	if err != nil {
		return commerce.Claims{}, err
	}
	k.mu.Lock()
	if len(k.verified) >= maxVerified {
		clear(k.verified)
	}
	k.verified[token] = verifiedToken{claims: c, expires: exp.Add(leeway)}
	k.mu.Unlock()
	return c, nil
}

// verify checks a token without the cache and returns its claims and
// expiry.
func (k *Keys) verify(token string) (commerce.Claims, time.Time, error) {
	var tc tokenClaims
	_, err := k.parser.ParseWithClaims(token, &tc, func(*jwt.Token) (any, error) { return k.secret, nil })
	if err != nil {
		return commerce.Claims{}, time.Time{}, &commerce.Error{Code: commerce.EInvalidToken, Message: err.Error(), Err: err}
	}
	return commerce.Claims{
		Subject:      tc.Subject,
		Scopes:       strings.Fields(tc.Scope),
		CustomerID:   tc.CustomerID,
		CustomerType: tc.CustomerType,
		Country:      tc.Country,
		Groups:       tc.Groups,
		Role:         tc.Role,
	}, tc.ExpiresAt.Time, nil
}
