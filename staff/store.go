package staff

import (
	"context"
	"time"
)

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
