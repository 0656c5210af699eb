// Package staff is the staff accounts of the admin app: accounts with an
// email and an argon2id password hash, sign-in with a lock-out (5 failures
// per email within 15 minutes, counted in the database, as CONTRACT.md
// section 15 has for customers), and sessions whose random ids are stored
// hashed.
package staff

import (
	"time"

	"github.com/commercekit/commerce"
)

// Lock-out: MaxFailures failed sign-ins of one email within Window lock
// it until the oldest of them is older than Window.
const (
	MaxFailures = 5
	Window      = 15 * time.Minute
)

// SessionTTL is how long a session lasts after sign-in.
const SessionTTL = 12 * time.Hour

// Staff is a staff account, never with its password hash.
type Staff struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"createdAt"`
}

// Actor is how events record a staff member's changes: "staff:<id>".
func (s Staff) Actor() string { return "staff:" + s.ID }

// Claims are the identity a staff member's actions in the admin app run
// under: an admin, with the subject "staff:<id>".
func (s Staff) Claims() commerce.Claims {
	return commerce.Claims{Subject: s.Actor(), Scopes: []string{commerce.ScopeAdmin}}
}
