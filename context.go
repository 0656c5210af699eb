package commerce

import (
	"context"
	"slices"
)

// Scopes a token may carry (claim "scope", space-separated).
const (
	ScopeAdmin = "admin"
	ScopeAPI   = "api"
)

// Claims is the verified identity of the caller, taken from its token.
type Claims struct {
	Subject      string   // "sub"
	Scopes       []string // "scope", split on spaces
	CustomerID   string   // "customerId", optional
	CustomerType string   // "customerType", optional (VIP, B2B, B2C, ...)
	Country      string   // "country", optional
	Groups       []string // "groups", optional: the customer's group codes (price lists)
	// Role is the role of an admin ("role": owner, admin, catalog,
	// orders or support, staff.Roles); "" is admin.
	Role string
}

// HasScope reports whether the claims carry the scope.
func (c Claims) HasScope(scope string) bool { return slices.Contains(c.Scopes, scope) }

// IsAdmin reports whether the claims carry the admin scope.
func (c Claims) IsAdmin() bool { return c.HasScope(ScopeAdmin) }

type claimsKey struct{}

// WithClaims returns a context carrying the caller's claims.
func WithClaims(ctx context.Context, c Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// ClaimsFrom returns the caller's claims, and false when the context has none.
func ClaimsFrom(ctx context.Context) (Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(Claims)
	return c, ok
}
