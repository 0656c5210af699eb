// Package staff is the staff accounts of the admin app: accounts with an
// email, a role (roles.go: the one permission table), an argon2id password
// hash and an optional TOTP second factor; sign-in with a lock-out per
// account and source address and per source address (counted in the
// database); sessions whose random ids are stored hashed and that end at
// once when their member is disabled or removed; invitations by email.
package staff

import (
	"time"

	"github.com/commercekit/commerce"
)

// Lock-out: MaxFailures failed sign-ins of one email from one source
// address within Window lock that email for that address, and
// MaxAddressFailures failures from one address (any emails) lock that
// address, until the oldest of them is older than Window. An account is
// never locked for every address: whoever knows a staff member's email
// cannot keep them out from their own address.
const (
	MaxFailures        = 5
	MaxAddressFailures = 20
	Window             = 15 * time.Minute
)

// SessionTTL is how long a session lasts after sign-in; PendingTTL how
// long a sign-in waits for its second factor.
const (
	SessionTTL = 12 * time.Hour
	PendingTTL = 5 * time.Minute
)

// InviteTTL is how long an invitation's link is valid.
const InviteTTL = 72 * time.Hour

// Staff is a staff account, never with its password hash or secrets.
type Staff struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      Role      `json:"role"`
	Disabled  bool      `json:"disabled"`
	TOTP      bool      `json:"totp"`
	Invited   bool      `json:"invited"` // no password set yet
	CreatedAt time.Time `json:"createdAt"`
}

// Actor is how events record a staff member's changes: "staff:<id>".
func (s Staff) Actor() string { return "staff:" + s.ID }

// Claims are the identity a staff member's actions in the admin app run
// under: an admin of their role, with the subject "staff:<id>".
func (s Staff) Claims() commerce.Claims {
	return commerce.Claims{Subject: s.Actor(), Scopes: []string{commerce.ScopeAdmin}, Role: string(s.Role)}
}

// Can reports whether the member's role may read (write false) or change
// a resource (Allowed).
func (s Staff) Can(resource string, write bool) bool { return s.Role.Can(resource, write) }

// Error codes of the staff area: answered by the admin app and the
// command line only (no API operation manages staff), so they are not
// among the API's codes of error.go.
const (
	EStaffNotFound = "staff_not_found"
	ELastOwner     = "last_owner"
	EInvalidInvite = "invalid_invite"
)

// NotFound is the error of an unknown staff member.
func NotFound(id string) *commerce.Error {
	return commerce.NewError(EStaffNotFound, map[string]any{"id": id})
}
