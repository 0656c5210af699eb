package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/commercekit/commerce"
)

// IdempotencyKeep is how long an idempotency key and its answer are kept;
// IdempotencyHold is how long a request running under a key holds it
// (past it, as after a crash, a retry runs again).
const (
	IdempotencyKeep = 24 * time.Hour
	IdempotencyHold = 2 * time.Minute
)

// IdempotencyStore keeps idempotency keys (rpc.IdempotencyStore) in
// idempotency_keys: one row per scope (the caller's, rpc's idemScope) and
// key.
type IdempotencyStore struct{ db *DB }

// NewIdempotencyStore returns the store over db.
func NewIdempotencyStore(db *DB) *IdempotencyStore { return &IdempotencyStore{db: db} }

// Begin implements rpc.IdempotencyStore.
func (s *IdempotencyStore) Begin(ctx context.Context, scope, key, fp string, now time.Time) (int, []byte, error) {
	for attempt := 0; ; attempt++ {
		status, body, err := s.begin(ctx, scope, key, fp, now)
		// Two first requests racing on PostgreSQL: the second insert
		// fails on the key; read again to answer in_use (or replay).
		if commerce.ErrorCode(err) == commerce.EDuplicateKey && attempt < 3 {
			continue
		}
		return status, body, err
	}
}

func (s *IdempotencyStore) begin(ctx context.Context, scope, key, fp string, now time.Time) (status int, body []byte, err error) {
	err = s.db.Update(ctx, func(tx *Tx) error {
		status, body = 0, nil
		var storedFP string
		var st int
		var b []byte
		var created, lockedUntil int64
		err := tx.QueryRow(ctx, `SELECT fingerprint, status, body, created_at, locked_until FROM idempotency_keys
			WHERE scope = ? AND idem_key = ?`+tx.ForUpdate(), scope, key).Scan(&storedFP, &st, &b, &created, &lockedUntil)
		hold := ms(now.Add(IdempotencyHold))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.Exec(ctx, `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, status, body, created_at, locked_until)
				VALUES (?, ?, ?, 0, NULL, ?, ?)`, scope, key, fp, ms(now), hold)
			return err
		case err != nil:
			return err
		case created <= ms(now.Add(-IdempotencyKeep)):
			// Expired, not swept yet: the key is new again.
			_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET fingerprint = ?, status = 0, body = NULL, created_at = ?, locked_until = ?
				WHERE scope = ? AND idem_key = ?`, fp, ms(now), hold, scope, key)
			return err
		case storedFP != fp:
			return commerce.Errorf(commerce.EIdempotencyKeyReused, "the key was used with another operation or other arguments")
		case st == 0 && lockedUntil > ms(now):
			return commerce.Errorf(commerce.EIdempotencyKeyInUse, "the first request with the key is still running")
		case st == 0:
			// Its first request never finished (a crash): run again.
			_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET locked_until = ? WHERE scope = ? AND idem_key = ?`, hold, scope, key)
			return err
		}
		status, body = st, b
		return nil
	})
	return status, body, err
}

// Finish implements rpc.IdempotencyStore.
func (s *IdempotencyStore) Finish(ctx context.Context, scope, key string, status int, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET status = ?, body = ? WHERE scope = ? AND idem_key = ? AND status = 0`,
			status, body, scope, key)
		return err
	})
}

// Abort implements rpc.IdempotencyStore.
func (s *IdempotencyStore) Abort(ctx context.Context, scope, key string) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND idem_key = ? AND status = 0`, scope, key)
		return err
	})
}

// Sweep deletes the keys created before before, and returns how many.
func (s *IdempotencyStore) Sweep(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, ms(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
