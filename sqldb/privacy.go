package sqldb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/commercekit/commerce/customer"
)

// The erasure of a customer's personal data from the event log
// (customer.remove, docs/api.md section 29).

// EraseEvents implements customer.Tx. Each owner's events are read
// through the partial index events_owner (the query states the index's
// condition, an owner not empty, so that both databases use it), and each
// changed payload is written back by its seq: the event keeps its id,
// position, channel, type and date.
func (t customerTx) EraseEvents(ctx context.Context, owners []string, erase customer.Eraser) (int, error) {
	n := 0
	for _, owner := range owners {
		if owner == "" {
			continue
		}
		type row struct {
			seq     int64
			payload string
		}
		var rows []row
		rs, err := t.tx.Query(ctx, `SELECT seq, payload FROM events WHERE owner <> '' AND owner = ?`, owner)
		if err != nil {
			return n, fmt.Errorf("events of %s: %w", owner, t.tx.Translate(err))
		}
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.seq, &r.payload); err != nil {
				rs.Close()
				return n, fmt.Errorf("events of %s: %w", owner, t.tx.Translate(err))
			}
			rows = append(rows, r)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return n, fmt.Errorf("events of %s: %w", owner, t.tx.Translate(err))
		}
		for _, r := range rows {
			out, changed, err := erase([]byte(r.payload))
			if err != nil {
				return n, fmt.Errorf("event %d: %w", r.seq, err)
			}
			if !changed {
				continue
			}
			if _, err := t.tx.Exec(ctx, `UPDATE events SET payload = ? WHERE seq = ?`, Text(out), r.seq); err != nil {
				return n, fmt.Errorf("erase event %d: %w", r.seq, t.tx.Translate(err))
			}
			n++
		}
	}
	return n, nil
}

// Held implements customer.Store: one read-only transaction, so that the
// export is a consistent snapshot (an order and the cart it came from
// agree).
func (s *CustomerStore) Held(ctx context.Context, id string) (*customer.Held, error) {
	var h *customer.Held
	err := s.db.View(ctx, func(tx *Tx) error {
		c, err := scanCustomer(tx.QueryRow(ctx, `SELECT `+customerColumns+` FROM customers WHERE id = ?`, id))
		if err != nil {
			return s.db.NotFound(err, customer.NotFound(id))
		}
		h = &customer.Held{Customer: c}
		if err := each(ctx, tx, `SELECT `+cartColumns+` FROM carts WHERE customer_id = ? ORDER BY created_at, id`, id, func(r rowScanner) error {
			ct, err := scanCart(r)
			h.Carts = append(h.Carts, ct)
			return err
		}); err != nil {
			return fmt.Errorf("carts: %w", err)
		}
		if err := each(ctx, tx, `SELECT `+orderColumns+` FROM orders WHERE customer_id = ? ORDER BY number DESC`, id, func(r rowScanner) error {
			o, err := scanOrder(r)
			h.Orders = append(h.Orders, o)
			return err
		}); err != nil {
			return fmt.Errorf("orders: %w", err)
		}
		if err := each(ctx, tx, `SELECT expires_at, spent FROM refresh_tokens WHERE customer_id = ? ORDER BY expires_at`, id, func(r rowScanner) error {
			var t customer.RefreshToken
			var exp int64
			err := r.Scan(&exp, &t.Spent)
			t.ExpiresAt = time.UnixMilli(exp).UTC()
			h.RefreshTokens = append(h.RefreshTokens, t)
			return err
		}); err != nil {
			return fmt.Errorf("refresh tokens: %w", err)
		}
		if err := each(ctx, tx, `SELECT expires_at FROM password_resets WHERE customer_id = ? ORDER BY expires_at`, id, func(r rowScanner) error {
			var exp int64
			err := r.Scan(&exp)
			h.ResetTokens = append(h.ResetTokens, customer.ResetToken{ExpiresAt: time.UnixMilli(exp).UTC()})
			return err
		}); err != nil {
			return fmt.Errorf("reset tokens: %w", err)
		}
		return each(ctx, tx, `SELECT failures FROM login_failures WHERE email = ?`, c.Email, func(r rowScanner) error {
			var raw string
			if err := r.Scan(&raw); err != nil {
				return err
			}
			var ms []int64
			if err := json.Unmarshal([]byte(raw), &ms); err != nil {
				return fmt.Errorf("login failures: bad document: %w", err)
			}
			for _, m := range ms {
				h.LoginFailures = append(h.LoginFailures, time.UnixMilli(m).UTC())
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("customer %s: %w", id, err)
	}
	return h, nil
}

// each runs fn on every row of the query q with the one argument arg.
func each(ctx context.Context, tx *Tx, q string, arg any, fn func(rowScanner) error) error {
	rows, err := tx.Query(ctx, q, arg)
	if err != nil {
		return tx.Translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return tx.Translate(err)
		}
	}
	return tx.Translate(rows.Err())
}
