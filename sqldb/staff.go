package sqldb

import (
	"context"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/staff"
)

// StaffStore is the storage of the admin app's staff accounts, sessions
// and sign-in attempts (staff.Store). Times are Unix milliseconds.
type StaffStore struct{ db *DB }

// NewStaffStore returns the staff store over db.
func NewStaffStore(db *DB) *StaffStore { return &StaffStore{db: db} }

var _ staff.Store = (*StaffStore)(nil)

// Create implements staff.Store.
func (s *StaffStore) Create(ctx context.Context, st staff.Staff, hash string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO staff (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)`,
			st.ID, st.Email, hash, st.CreatedAt.UnixMilli())
		return err
	})
}

// ByEmail implements staff.Store.
func (s *StaffStore) ByEmail(ctx context.Context, email string) (staff.Staff, string, error) {
	var st staff.Staff
	var hash string
	var created int64
	err := s.db.QueryRow(ctx, `SELECT id, email, password_hash, created_at FROM staff WHERE email = ?`, email).
		Scan(&st.ID, &st.Email, &hash, &created)
	if err != nil {
		return staff.Staff{}, "", s.db.NotFound(err, commerce.NewError(commerce.EInvalidCredentials, nil))
	}
	st.CreatedAt = time.UnixMilli(created).UTC()
	return st, hash, nil
}

// BeginAttempt implements staff.Store: the email's row of
// staff_login_locks is locked (an upsert) for the count and the insert,
// so that parallel attempts of one email count one after the other. The
// upsert creates or locks the row in one statement (DO UPDATE, not DO
// NOTHING and then a locking read), and nothing deletes these rows, so an
// attempt never finds its row gone (the race customer.Tx.LockFailures had).
func (s *StaffStore) BeginAttempt(ctx context.Context, id, email string, at, since time.Time, max int) (time.Time, bool, error) {
	var oldest time.Time
	ok := false
	err := s.db.Update(ctx, func(tx *Tx) error {
		ok = false
		lock := s.db.dialect.Upsert("staff_login_locks", 1, []string{"email"}, []string{"email"}, []string{"email"})
		if _, err := tx.Exec(ctx, lock, email); err != nil {
			return err
		}
		var n int
		var first *int64
		if err := tx.QueryRow(ctx, `SELECT COUNT(*), MIN(at) FROM staff_login_failures WHERE email = ? AND at > ?`,
			email, since.UnixMilli()).Scan(&n, &first); err != nil {
			return tx.Translate(err)
		}
		if n >= max {
			if first != nil {
				oldest = time.UnixMilli(*first).UTC()
			}
			return nil
		}
		// Old attempts of this email are of no use any more.
		if _, err := tx.Exec(ctx, `DELETE FROM staff_login_failures WHERE email = ? AND at <= ?`, email, since.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO staff_login_failures (id, email, at) VALUES (?, ?, ?)`, id, email, at.UnixMilli()); err != nil {
			return err
		}
		ok = true
		return nil
	})
	return oldest, ok, err
}

// ForgetAttempt implements staff.Store.
func (s *StaffStore) ForgetAttempt(ctx context.Context, id string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM staff_login_failures WHERE id = ?`, id)
		return err
	})
}

// CreateSession implements staff.Store.
func (s *StaffStore) CreateSession(ctx context.Context, idHash, staffID string, created, expires time.Time) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		// Expired sessions of this account go with each sign-in.
		if _, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE staff_id = ? AND expires_at <= ?`, staffID, created.UnixMilli()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO staff_sessions (id_hash, staff_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			idHash, staffID, created.UnixMilli(), expires.UnixMilli())
		return err
	})
}

// Session implements staff.Store.
func (s *StaffStore) Session(ctx context.Context, idHash string, now time.Time) (staff.Staff, error) {
	var st staff.Staff
	var created int64
	err := s.db.QueryRow(ctx, `SELECT s.id, s.email, s.created_at FROM staff_sessions x JOIN staff s ON s.id = x.staff_id
		WHERE x.id_hash = ? AND x.expires_at > ?`, idHash, now.UnixMilli()).Scan(&st.ID, &st.Email, &created)
	if err != nil {
		return staff.Staff{}, s.db.NotFound(err, commerce.NewError(commerce.EInvalidToken, nil))
	}
	st.CreatedAt = time.UnixMilli(created).UTC()
	return st, nil
}

// DeleteSession implements staff.Store.
func (s *StaffStore) DeleteSession(ctx context.Context, idHash string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE id_hash = ?`, idHash)
		return err
	})
}
