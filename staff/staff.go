// Package staff is the staff accounts of the admin app: accounts with an
// email and an argon2id password hash, sign-in with a lock-out (5 failures
// per email within 15 minutes, counted in the database, as CONTRACT.md
// section 15 has for customers), and sessions whose random ids are stored
// hashed.
package staff

import (
	"context"
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

// Store keeps the accounts, sessions and sign-in attempts (package sqldb).
type Store interface {
	// Create inserts an account. Errors: duplicate_key (index staff_email).
	Create(ctx context.Context, s Staff, hash string) error
	// ByEmail returns the account and its password hash. Errors:
	// invalid_credentials when there is none.
	ByEmail(ctx context.Context, email string) (Staff, string, error)
	// BeginAttempt counts the attempts of email since `since` while
	// holding the email's lock; when there are fewer than max it records
	// one with the id and returns ok, else it returns the time of the
	// oldest attempt counted and ok false.
	BeginAttempt(ctx context.Context, id, email string, at, since time.Time, max int) (oldest time.Time, ok bool, err error)
	// ForgetAttempt deletes an attempt that succeeded.
	ForgetAttempt(ctx context.Context, id string) error
	// CreateSession stores a session by the hash of its id.
	CreateSession(ctx context.Context, idHash, staffID string, created, expires time.Time) error
	// Session returns the account of an unexpired session. Errors:
	// invalid_token when there is none.
	Session(ctx context.Context, idHash string, now time.Time) (Staff, error)
	// DeleteSession deletes a session (nothing when there is none).
	DeleteSession(ctx context.Context, idHash string) error
}
