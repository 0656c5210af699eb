package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/staff"
)

// StaffStore is the storage of the admin app's staff accounts, sessions,
// invitations and sign-in attempts (staff.Store). Times are Unix
// milliseconds. The changes of accounts name their audit entry
// (Tx.Audit): written when the context has an audit scope.
type StaffStore struct{ db *DB }

// NewStaffStore returns the staff store over db.
func NewStaffStore(db *DB) *StaffStore { return &StaffStore{db: db} }

var _ staff.Store = (*StaffStore)(nil)

const staffColumns = `id, email, role, disabled, totp_secret <> '', password_hash = '', created_at`

func scanStaff(r rowScanner, extra ...any) (staff.Staff, error) {
	var st staff.Staff
	var role string
	var disabled int
	var created int64
	dest := append([]any{&st.ID, &st.Email, &role, &disabled, &st.TOTP, &st.Invited, &created}, extra...)
	if err := r.Scan(dest...); err != nil {
		return staff.Staff{}, err
	}
	st.Role, st.Disabled, st.CreatedAt = staff.Role(role), disabled != 0, time.UnixMilli(created).UTC()
	return st, nil
}

func staffAudit(tx *Tx, id string, changes map[string]audit.Change) {
	tx.Audit(audit.Target{Kind: "staff", ID: id}, changes)
}

// Create implements staff.Store.
func (s *StaffStore) Create(ctx context.Context, st staff.Staff, hash string) (staff.Staff, error) {
	err := s.db.Update(ctx, func(tx *Tx) error {
		role := st.Role
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM staff`).Scan(&n); err != nil {
			return tx.Translate(err)
		}
		if n == 0 {
			role = staff.RoleOwner
		}
		if _, err := tx.Exec(ctx, `INSERT INTO staff (id, email, password_hash, created_at, role) VALUES (?, ?, ?, ?, ?)`,
			st.ID, st.Email, hash, st.CreatedAt.UnixMilli(), string(role)); err != nil {
			return err
		}
		st.Role = role
		staffAudit(tx, st.ID, map[string]audit.Change{"email": {After: st.Email}, "role": {After: role}, "password": {After: audit.Redacted}})
		return nil
	})
	return st, err
}

// Invite implements staff.Store.
func (s *StaffStore) Invite(ctx context.Context, st staff.Staff, tokenHash string, expires time.Time, queue func(mail.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO staff (id, email, password_hash, created_at, role) VALUES (?, ?, '', ?, ?)`,
			st.ID, st.Email, st.CreatedAt.UnixMilli(), string(st.Role)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO staff_invites (token_hash, staff_id, expires_at) VALUES (?, ?, ?)`,
			tokenHash, st.ID, expires.UnixMilli()); err != nil {
			return err
		}
		staffAudit(tx, st.ID, map[string]audit.Change{"email": {After: st.Email}, "role": {After: st.Role}})
		return queue(MailTx(tx))
	})
}

// Accept implements staff.Store.
func (s *StaffStore) Accept(ctx context.Context, tokenHash string, now time.Time, hash string) (staff.Staff, error) {
	var st staff.Staff
	err := s.db.Update(ctx, func(tx *Tx) error {
		var id string
		err := tx.QueryRow(ctx, `SELECT staff_id FROM staff_invites WHERE token_hash = ? AND expires_at > ?`, tokenHash, now.UnixMilli()).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return commerce.NewError(staff.EInvalidInvite, nil)
		}
		if err != nil {
			return tx.Translate(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE staff SET password_hash = ? WHERE id = ?`, hash, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM staff_invites WHERE staff_id = ?`, id); err != nil {
			return err
		}
		st, err = scanStaff(tx.QueryRow(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = ?`, id))
		return tx.Translate(err)
	})
	return st, err
}

// ByEmail implements staff.Store.
func (s *StaffStore) ByEmail(ctx context.Context, email string) (staff.Staff, string, error) {
	var hash string
	st, err := scanStaff(s.db.QueryRow(ctx, `SELECT `+staffColumns+`, password_hash FROM staff WHERE email = ?`, email), &hash)
	if err != nil {
		return staff.Staff{}, "", s.db.NotFound(err, commerce.NewError(commerce.EInvalidCredentials, nil))
	}
	return st, hash, nil
}

// ByID implements staff.Store.
func (s *StaffStore) ByID(ctx context.Context, id string) (staff.Staff, error) {
	st, err := scanStaff(s.db.QueryRow(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = ?`, id))
	if err != nil {
		return staff.Staff{}, s.db.NotFound(err, staff.NotFound(id))
	}
	return st, nil
}

// List implements staff.Store.
func (s *StaffStore) List(ctx context.Context) ([]staff.Staff, error) {
	rows, err := s.db.Query(ctx, `SELECT `+staffColumns+` FROM staff ORDER BY email`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []staff.Staff
	for rows.Next() {
		st, err := scanStaff(rows)
		if err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, st)
	}
	return out, s.db.translate(rows.Err())
}

// lockStaff reads an account in tx, locking its row.
func lockStaff(ctx context.Context, tx *Tx, id string) (staff.Staff, error) {
	st, err := scanStaff(tx.QueryRow(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = ?`+tx.ForUpdate(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return staff.Staff{}, staff.NotFound(id)
	}
	return st, tx.Translate(err)
}

// otherOwners counts the enabled owners other than id, locking them, so
// that two changes cannot each take away one of the last two owners.
func otherOwners(ctx context.Context, tx *Tx, id string) (int, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM staff WHERE role = 'owner' AND disabled = 0 AND id <> ?`+tx.ForUpdate(), id)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, tx.Translate(rows.Err())
}

// keepOwner refuses a change that leaves no enabled owner.
func keepOwner(ctx context.Context, tx *Tx, st staff.Staff) error {
	if st.Role != staff.RoleOwner || st.Disabled {
		return nil
	}
	n, err := otherOwners(ctx, tx, st.ID)
	if err != nil {
		return err
	}
	if n == 0 {
		return commerce.NewError(staff.ELastOwner, nil)
	}
	return nil
}

// SetRole implements staff.Store.
func (s *StaffStore) SetRole(ctx context.Context, id string, role staff.Role) (staff.Staff, error) {
	var out staff.Staff
	err := s.db.Update(ctx, func(tx *Tx) error {
		st, err := lockStaff(ctx, tx, id)
		if err != nil {
			return err
		}
		if role != staff.RoleOwner {
			if err := keepOwner(ctx, tx, st); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE staff SET role = ? WHERE id = ?`, string(role), id); err != nil {
			return err
		}
		staffAudit(tx, id, map[string]audit.Change{"role": {Before: st.Role, After: role}})
		st.Role = role
		out = st
		return nil
	})
	return out, err
}

// SetDisabled implements staff.Store.
func (s *StaffStore) SetDisabled(ctx context.Context, id string, disabled bool) (staff.Staff, error) {
	var out staff.Staff
	err := s.db.Update(ctx, func(tx *Tx) error {
		st, err := lockStaff(ctx, tx, id)
		if err != nil {
			return err
		}
		if disabled {
			if err := keepOwner(ctx, tx, st); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE staff_id = ?`, id); err != nil {
				return err
			}
		}
		v := 0
		if disabled {
			v = 1
		}
		if _, err := tx.Exec(ctx, `UPDATE staff SET disabled = ? WHERE id = ?`, v, id); err != nil {
			return err
		}
		staffAudit(tx, id, map[string]audit.Change{"disabled": {Before: st.Disabled, After: disabled}})
		st.Disabled = disabled
		out = st
		return nil
	})
	return out, err
}

// Remove implements staff.Store.
func (s *StaffStore) Remove(ctx context.Context, id string) (staff.Staff, error) {
	var out staff.Staff
	err := s.db.Update(ctx, func(tx *Tx) error {
		st, err := lockStaff(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := keepOwner(ctx, tx, st); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM staff_sessions WHERE staff_id = ?`, `DELETE FROM staff_invites WHERE staff_id = ?`,
			`DELETE FROM staff_recovery_codes WHERE staff_id = ?`, `DELETE FROM staff WHERE id = ?`} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		staffAudit(tx, id, map[string]audit.Change{"email": {Before: st.Email}, "role": {Before: st.Role}})
		out = st
		return nil
	})
	return out, err
}

// SetPassword implements staff.Store.
func (s *StaffStore) SetPassword(ctx context.Context, id, hash, keep string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		if _, err := lockStaff(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE staff SET password_hash = ? WHERE id = ?`, hash, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE staff_id = ? AND id_hash <> ?`, id, keep); err != nil {
			return err
		}
		staffAudit(tx, id, map[string]audit.Change{"password": {Before: audit.Redacted, After: audit.Redacted}})
		return nil
	})
}

// SetTOTP implements staff.Store.
func (s *StaffStore) SetTOTP(ctx context.Context, id, secret string, confirmed bool, recovery []string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		st, err := lockStaff(ctx, tx, id)
		if err != nil {
			return err
		}
		if !confirmed {
			_, err := tx.Exec(ctx, `UPDATE staff SET totp_pending = ? WHERE id = ?`, secret, id)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE staff SET totp_secret = ?, totp_pending = '' WHERE id = ?`, secret, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM staff_recovery_codes WHERE staff_id = ?`, id); err != nil {
			return err
		}
		for _, h := range recovery {
			if _, err := tx.Exec(ctx, `INSERT INTO staff_recovery_codes (staff_id, code_hash) VALUES (?, ?)`, id, h); err != nil {
				return err
			}
		}
		staffAudit(tx, id, map[string]audit.Change{"totp": {Before: st.TOTP, After: secret != ""}})
		return nil
	})
}

// TOTP implements staff.Store.
func (s *StaffStore) TOTP(ctx context.Context, id string) (string, string, error) {
	var secret, pending string
	err := s.db.QueryRow(ctx, `SELECT totp_secret, totp_pending FROM staff WHERE id = ?`, id).Scan(&secret, &pending)
	if err != nil {
		return "", "", s.db.NotFound(err, staff.NotFound(id))
	}
	return secret, pending, nil
}

// UseRecovery implements staff.Store.
func (s *StaffStore) UseRecovery(ctx context.Context, id, codeHash string) (bool, error) {
	used := false
	err := s.db.Update(ctx, func(tx *Tx) error {
		r, err := tx.Exec(ctx, `DELETE FROM staff_recovery_codes WHERE staff_id = ? AND code_hash = ?`, id, codeHash)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		used = n == 1
		return err
	})
	return used, err
}

// BeginAttempt implements staff.Store: the email's row of
// staff_login_locks is locked (an upsert) for the counts and the insert,
// so that parallel attempts of one email count one after the other. The
// upsert creates or locks the row in one statement (DO UPDATE, not DO
// NOTHING and then a locking read), and nothing deletes these rows, so an
// attempt never finds its row gone (the race customer.Tx.LockFailures had).
// The count of an address is not under a lock of its own: parallel
// attempts of many emails from one address may pass its maximum by a few.
func (s *StaffStore) BeginAttempt(ctx context.Context, id, email, ip string, at, since time.Time, maxAccount, maxIP int) (time.Time, bool, error) {
	var oldest time.Time
	ok := false
	err := s.db.Update(ctx, func(tx *Tx) error {
		ok = false
		lock := s.db.dialect.Upsert("staff_login_locks", 1, []string{"email"}, []string{"email"}, []string{"email"})
		if _, err := tx.Exec(ctx, lock, email); err != nil {
			return err
		}
		count := func(q string, args ...any) (int, *int64, error) {
			var n int
			var first *int64
			err := tx.QueryRow(ctx, q, args...).Scan(&n, &first)
			return n, first, tx.Translate(err)
		}
		n, first, err := count(`SELECT COUNT(*), MIN(at) FROM staff_login_failures WHERE email = ? AND ip = ? AND at > ?`, email, ip, since.UnixMilli())
		if err != nil {
			return err
		}
		if n < maxAccount {
			n, first, err = count(`SELECT COUNT(*), MIN(at) FROM staff_login_failures WHERE ip = ? AND at > ?`, ip, since.UnixMilli())
			if err != nil {
				return err
			}
			if n < maxIP {
				first = nil
			}
		}
		if first != nil {
			oldest = time.UnixMilli(*first).UTC()
			return nil
		}
		// Old attempts of this email are of no use any more.
		if _, err := tx.Exec(ctx, `DELETE FROM staff_login_failures WHERE email = ? AND at <= ?`, email, since.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO staff_login_failures (id, email, ip, at) VALUES (?, ?, ?, ?)`, id, email, ip, at.UnixMilli()); err != nil {
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
func (s *StaffStore) CreateSession(ctx context.Context, idHash, staffID string, created, expires time.Time, pending bool) error {
	p := 0
	if pending {
		p = 1
	}
	return s.db.Update(ctx, func(tx *Tx) error {
		// Expired sessions of this account go with each sign-in.
		if _, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE staff_id = ? AND expires_at <= ?`, staffID, created.UnixMilli()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO staff_sessions (id_hash, staff_id, created_at, expires_at, pending) VALUES (?, ?, ?, ?, ?)`,
			idHash, staffID, created.UnixMilli(), expires.UnixMilli(), p)
		return err
	})
}

// PromoteSession implements staff.Store.
func (s *StaffStore) PromoteSession(ctx context.Context, idHash string, expires time.Time) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		r, err := tx.Exec(ctx, `UPDATE staff_sessions SET pending = 0, expires_at = ? WHERE id_hash = ? AND pending = 1`, expires.UnixMilli(), idHash)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n != 1 {
			return commerce.NewError(commerce.EInvalidToken, nil)
		}
		return nil
	})
}

// Session implements staff.Store.
func (s *StaffStore) Session(ctx context.Context, idHash string, now time.Time) (staff.Staff, bool, error) {
	var pending int
	st, err := scanStaff(s.db.QueryRow(ctx, `SELECT s.id, s.email, s.role, s.disabled, s.totp_secret <> '', s.password_hash = '', s.created_at, x.pending
		FROM staff_sessions x JOIN staff s ON s.id = x.staff_id
		WHERE x.id_hash = ? AND x.expires_at > ? AND s.disabled = 0`, idHash, now.UnixMilli()), &pending)
	if err != nil {
		return staff.Staff{}, false, s.db.NotFound(err, commerce.NewError(commerce.EInvalidToken, nil))
	}
	return st, pending != 0, nil
}

// DeleteSession implements staff.Store.
func (s *StaffStore) DeleteSession(ctx context.Context, idHash string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM staff_sessions WHERE id_hash = ?`, idHash)
		return err
	})
}
