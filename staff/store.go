package staff

import (
	"context"
	"time"

	"github.com/commercekit/commerce/mail"
)

// Store keeps the accounts, sessions, invitations and sign-in attempts
// (package sqldb). Each method is one transaction; those that change an
// account write its audit entry in it when the context has an audit scope
// (audit.With).
type Store interface {
	// Create inserts an account; the first account of the store is an
	// owner whatever s.Role says. It returns the account as stored.
	// Errors: duplicate_key (index staff_email).
	Create(ctx context.Context, s Staff, hash string) (Staff, error)
	// Invite inserts an account without a password and its invitation
	// (the hash of its token, valid until expires), and runs queue in
	// the same transaction (the invitation's email). Errors:
	// duplicate_key.
	Invite(ctx context.Context, s Staff, tokenHash string, expires time.Time, queue func(mail.Tx) error) error
	// Accept sets the password of the account of an unexpired invitation
	// and deletes its invitations. Errors: invalid_invite.
	Accept(ctx context.Context, tokenHash string, now time.Time, hash string) (Staff, error)
	// ByEmail returns the account and its password hash. Errors:
	// invalid_credentials when there is none.
	ByEmail(ctx context.Context, email string) (Staff, string, error)
	// ByID returns an account. Errors: staff_not_found.
	ByID(ctx context.Context, id string) (Staff, error)
	// List returns every account, by email.
	List(ctx context.Context) ([]Staff, error)
	// SetRole changes an account's role. Errors: staff_not_found,
	// last_owner (it is the last active owner and role is not owner).
	SetRole(ctx context.Context, id string, role Role) (Staff, error)
	// SetDisabled disables (ending its sessions in the same transaction)
	// or enables an account. Errors: staff_not_found, last_owner.
	SetDisabled(ctx context.Context, id string, disabled bool) (Staff, error)
	// Remove deletes an account with its sessions. Errors:
	// staff_not_found, last_owner.
	Remove(ctx context.Context, id string) (Staff, error)
	// SetPassword replaces an account's password hash and ends its
	// sessions but keep (the hash of the session that made the change, or
	// ""). Errors: staff_not_found.
	SetPassword(ctx context.Context, id, hash, keep string) error
	// SetTOTP stores the second factor's secret offered (pending) or, with
	// confirmed, makes it the account's with the recovery codes' hashes
	// (secret "" removes the second factor). Errors: staff_not_found.
	SetTOTP(ctx context.Context, id, secret string, confirmed bool, recovery []string) error
	// TOTP returns an account's confirmed and pending secrets.
	TOTP(ctx context.Context, id string) (secret, pending string, err error)
	// UseRecovery deletes a recovery code's hash of the account and
	// reports whether it was there.
	UseRecovery(ctx context.Context, id, codeHash string) (bool, error)

	// BeginAttempt counts, while holding the email's lock, the attempts of
	// the email from ip and the attempts from ip since `since`; when they
	// are fewer than maxAccount and maxIP it records one with the id and
	// returns ok, else it returns the time of the oldest attempt counted
	// in the full count and ok false.
	BeginAttempt(ctx context.Context, id, email, ip string, at, since time.Time, maxAccount, maxIP int) (oldest time.Time, ok bool, err error)
	// ForgetAttempt deletes an attempt that succeeded.
	ForgetAttempt(ctx context.Context, id string) error
	// CreateSession stores a session by the hash of its id; a pending
	// one waits for the second factor (PromoteSession).
	CreateSession(ctx context.Context, idHash, staffID string, created, expires time.Time, pending bool) error
	// PromoteSession makes a pending session a full one until expires.
	// Errors: invalid_token.
	PromoteSession(ctx context.Context, idHash string, expires time.Time) error
	// Session returns the account of an unexpired session of an enabled
	// account, and whether the session is pending. Errors: invalid_token
	// when there is none.
	Session(ctx context.Context, idHash string, now time.Time) (Staff, bool, error)
	// DeleteSession deletes a session (nothing when there is none).
	DeleteSession(ctx context.Context, idHash string) error
}
