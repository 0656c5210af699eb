package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/order"
)

// CustomerStore is the customer area's storage (customer.Store): accounts
// (a row each, the document in data and the columns it is looked up by),
// refresh and reset tokens by their hashes, login failures per email and
// the OAuth clients.
type CustomerStore struct{ db *DB }

// NewCustomerStore returns the customer store over db.
func NewCustomerStore(db *DB) *CustomerStore { return &CustomerStore{db: db} }

const customerColumns = `id, email, customer_type, created_at, password_hash, data`

// Update implements customer.Store.
func (s *CustomerStore) Update(ctx context.Context, fn func(tx customer.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(customerTx{tx}) })
}

// Customer implements customer.Store.
func (s *CustomerStore) Customer(ctx context.Context, id string) (*customer.Customer, error) {
	c, err := scanCustomer(s.db.QueryRow(ctx, `SELECT `+customerColumns+` FROM customers WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("customer %s: %w", id, s.db.NotFound(err, customer.NotFound(id)))
	}
	return c, nil
}

// CustomerByEmail implements customer.Store.
func (s *CustomerStore) CustomerByEmail(ctx context.Context, email string) (*customer.Customer, error) {
	c, err := scanCustomer(s.db.QueryRow(ctx, `SELECT `+customerColumns+` FROM customers WHERE email = ?`, email))
	if err != nil {
		return nil, fmt.Errorf("customer by email: %w", s.db.NotFound(err, customer.NotFound(email)))
	}
	return c, nil
}

// Customers implements customer.Store.
func (s *CustomerStore) Customers(ctx context.Context, f customer.Filter) ([]customer.Customer, error) {
	var w where
	w.in(`customer_type`, f.CustomerTypes)
	out, err := listPage(ctx, s.db, `SELECT `+customerColumns+` FROM customers`, `ORDER BY seq`, &w,
		[]regexFilter{{col: `email`, field: `email`, pattern: pattern(f.Email)}}, f.Limit, f.Skip,
		func(r rowScanner) (customer.Customer, error) {
			c, err := scanCustomer(r)
			if err != nil {
				return customer.Customer{}, err
			}
			return *c, nil
		})
	if err != nil {
		return nil, fmt.Errorf("list customers: %w", err)
	}
	return out, nil
}

// ResetToken implements customer.Store.
func (s *CustomerStore) ResetToken(ctx context.Context, hash string) (*customer.ResetToken, error) {
	var t customer.ResetToken
	var exp int64
	err := s.db.QueryRow(ctx, `SELECT hash, customer_id, expires_at FROM password_resets WHERE hash = ?`, hash).
		Scan(&t.Hash, &t.CustomerID, &exp)
	if err != nil {
		return nil, fmt.Errorf("reset token: %w", s.db.NotFound(err, commerce.NewError(commerce.EInvalidResetToken, nil)))
	}
	t.ExpiresAt = time.UnixMilli(exp).UTC()
	return &t, nil
}

const clientColumns = `id, name, scope, secret_hash, created_at, role`

// Client implements customer.Store.
func (s *CustomerStore) Client(ctx context.Context, id string) (*customer.Client, error) {
	c, err := scanClient(s.db.QueryRow(ctx, `SELECT `+clientColumns+` FROM oauth_clients WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("client %s: %w", id, s.db.NotFound(err, customer.ClientNotFound(id)))
	}
	return c, nil
}

// Clients implements customer.Store.
func (s *CustomerStore) Clients(ctx context.Context, limit, skip int) ([]customer.Client, error) {
	var w where
	out, err := listPage(ctx, s.db, `SELECT `+clientColumns+` FROM oauth_clients`, `ORDER BY seq`, &w, nil, limit, skip,
		func(r rowScanner) (customer.Client, error) {
			c, err := scanClient(r)
			if err != nil {
				return customer.Client{}, err
			}
			return *c, nil
		})
	if err != nil {
		return nil, fmt.Errorf("list clients: %w", err)
	}
	return out, nil
}

// sweepBatch is how many login-failure rows a sweep transaction reads.
const sweepBatch = 500

// Sweep implements customer.Store. Login failures are a JSON array per
// email, so their rows are read in batches (by email, locked, so that a
// login recording a failure meanwhile waits, and its row is judged with
// it) and the stale ones deleted in the same transaction.
func (s *CustomerStore) Sweep(ctx context.Context, now, failedBefore time.Time) (int64, error) {
	var total int64
	err := s.db.Update(ctx, func(tx *Tx) error {
		total = 0
		for _, q := range []string{`DELETE FROM refresh_tokens WHERE expires_at <= ?`, `DELETE FROM password_resets WHERE expires_at <= ?`} {
			res, err := tx.Exec(ctx, q, now.UnixMilli())
			if err != nil {
				return fmt.Errorf("sweep tokens: %w", tx.Translate(err))
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("sweep tokens: %w", tx.Translate(err))
			}
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	after := ""
	for {
		var n int64
		var more bool
		var next string
		err := s.db.Update(ctx, func(tx *Tx) error {
			n, more, next = 0, false, after
			rows, err := tx.Query(ctx, `SELECT email, failures FROM login_failures WHERE email > ? ORDER BY email LIMIT ?`+tx.ForUpdate(),
				after, sweepBatch)
			if err != nil {
				return fmt.Errorf("sweep login failures: %w", tx.Translate(err))
			}
			var stale []any
			read, last := 0, after
			for rows.Next() {
				var email, raw string
				if err := rows.Scan(&email, &raw); err != nil {
					rows.Close()
					return fmt.Errorf("sweep login failures: %w", tx.Translate(err))
				}
				read++
				last = email
				var ms []int64
				if json.Unmarshal([]byte(raw), &ms) != nil {
					continue // not ours to judge: LockFailures reports it
				}
				newest := int64(0)
				for _, m := range ms {
					newest = max(newest, m)
				}
				if newest < failedBefore.UnixMilli() {
					stale = append(stale, email)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("sweep login failures: %w", tx.Translate(err))
			}
			next, more = last, read == sweepBatch
			if len(stale) == 0 {
				return nil
			}
			res, err := tx.Exec(ctx, `DELETE FROM login_failures WHERE email IN (`+Placeholders(len(stale))+`)`, stale...)
			if err != nil {
				return fmt.Errorf("sweep login failures: %w", tx.Translate(err))
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if !more {
			return total, nil
		}
		after = next
	}
}

// customerTx implements customer.Tx over a transaction.
type customerTx struct{ tx *Tx }

// Emit implements customer.Tx.
func (t customerTx) Emit(e event.Event) { t.tx.Emit(e) }

// Cart implements customer.Tx.
func (t customerTx) Cart() cart.Tx { return cartTx(t) }

// Orders implements customer.Tx.
func (t customerTx) Orders() order.Tx { return orderTx(t) }

// Mail implements customer.Tx.
func (t customerTx) Mail() mail.Tx { return MailTx(t.tx) }

// CartIDs implements customer.Tx.
func (t customerTx) CartIDs(ctx context.Context, customerID string) ([]string, error) {
	rows, err := t.tx.Query(ctx, `SELECT id FROM carts WHERE customer_id = ? ORDER BY id`, customerID)
	if err != nil {
		return nil, fmt.Errorf("carts of customer %s: %w", customerID, t.tx.Translate(err))
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("carts of customer %s: %w", customerID, t.tx.Translate(err))
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("carts of customer %s: %w", customerID, t.tx.Translate(err))
	}
	return ids, nil
}

// Lock implements customer.Tx.
func (t customerTx) Lock(ctx context.Context, id string) (*customer.Customer, error) {
	c, err := scanCustomer(t.tx.QueryRow(ctx, `SELECT `+customerColumns+` FROM customers WHERE id = ?`+t.tx.ForUpdate(), id))
	if err != nil {
		return nil, fmt.Errorf("lock customer %s: %w", id, t.tx.DB().NotFound(err, customer.NotFound(id)))
	}
	return c, nil
}

// LockCustomer implements cart.Tx (here, with the customers' table).
func (t cartTx) LockCustomer(ctx context.Context, customerID string) (string, error) {
	var email string
	err := t.tx.QueryRow(ctx, `SELECT email FROM customers WHERE id = ?`+t.tx.ForUpdate(), customerID).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("lock customer %s: %w", customerID, t.tx.Translate(err))
	}
	return email, nil
}

// customerDoc is what data holds of a customer.
type customerDoc struct {
	FirstName string             `json:"firstName"`
	LastName  string             `json:"lastName"`
	Phone     string             `json:"phone"`
	Addresses []customer.Address `json:"addresses"`
	Groups    []string           `json:"groups,omitempty"`
	Locale    string             `json:"locale,omitempty"`
}

func customerData(c *customer.Customer) (string, error) {
	b, err := json.Marshal(customerDoc{FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone, Addresses: c.Addresses, Groups: c.Groups, Locale: c.Locale})
	return string(b), err
}

// Insert implements customer.Tx.
func (t customerTx) Insert(ctx context.Context, c *customer.Customer) error {
	data, err := customerData(c)
	if err != nil {
		return fmt.Errorf("insert customer: %w", err)
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO customers (`+customerColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.Email, c.CustomerType, c.CreatedAt.UnixMilli(), c.PasswordHash, data)
	if err != nil {
		return fmt.Errorf("insert customer: %w", t.tx.Translate(err))
	}
	return nil
}

// Save implements customer.Tx.
func (t customerTx) Save(ctx context.Context, c *customer.Customer) error {
	data, err := customerData(c)
	if err != nil {
		return fmt.Errorf("save customer: %w", err)
	}
	res, err := t.tx.Exec(ctx, `UPDATE customers SET customer_type = ?, password_hash = ?, data = ? WHERE id = ?`,
		c.CustomerType, c.PasswordHash, data, c.ID)
	return affected(t.tx, res, err, customer.NotFound(c.ID))
}

// Delete implements customer.Tx. Tokens go first (and would go with the
// row: ON DELETE CASCADE).
func (t customerTx) Delete(ctx context.Context, id string) error {
	for _, q := range []string{`DELETE FROM refresh_tokens WHERE customer_id = ?`, `DELETE FROM password_resets WHERE customer_id = ?`} {
		if _, err := t.tx.Exec(ctx, q, id); err != nil {
			return fmt.Errorf("delete customer %s: %w", id, t.tx.Translate(err))
		}
	}
	res, err := t.tx.Exec(ctx, `DELETE FROM customers WHERE id = ?`, id)
	return affected(t.tx, res, err, customer.NotFound(id))
}

// LockFailures implements customer.Tx: one upsert creates the email's row
// when it is missing or, when it is there, locks it with a no-op update
// (email = excluded.email), and returns its failures, so that concurrent
// logins for one email take turns (PostgreSQL: the row lock; SQLite
// serialises its writers). It is one statement on purpose: an INSERT ...
// DO NOTHING followed by a SELECT ... FOR UPDATE finds no row when
// another transaction deletes it in between (SetFailures with none, after
// a success; customer.remove; auth.resetPassword; the sweep), whereas
// PostgreSQL's ON CONFLICT DO UPDATE, finding the conflicting row deleted
// once its lock is granted, inserts the row anew.
func (t customerTx) LockFailures(ctx context.Context, email string) ([]time.Time, error) {
	d := t.tx.db.dialect
	q := d.Returning(d.Upsert("login_failures", 1, []string{"email", "failures"}, []string{"email"}, []string{"email"}), "failures")
	var raw string
	if err := t.tx.QueryRow(ctx, q, email, "[]").Scan(&raw); err != nil {
		return nil, fmt.Errorf("login failures: %w", t.tx.Translate(err))
	}
	var ms []int64
	if err := json.Unmarshal([]byte(raw), &ms); err != nil {
		return nil, fmt.Errorf("login failures: bad document: %w", err)
	}
	out := make([]time.Time, len(ms))
	for i, m := range ms {
		out[i] = time.UnixMilli(m).UTC()
	}
	return out, nil
}

// SetFailures implements customer.Tx; none deletes the email's row.
func (t customerTx) SetFailures(ctx context.Context, email string, at []time.Time) error {
	if len(at) == 0 {
		if _, err := t.tx.Exec(ctx, `DELETE FROM login_failures WHERE email = ?`, email); err != nil {
			return fmt.Errorf("login failures: %w", t.tx.Translate(err))
		}
		return nil
	}
	ms := make([]int64, len(at))
	for i, a := range at {
		ms[i] = a.UnixMilli()
	}
	b, _ := json.Marshal(ms) // a slice of integers always marshals
	_, err := t.tx.Exec(ctx, t.tx.db.dialect.Upsert("login_failures", 1, []string{"email", "failures"}, []string{"email"}, []string{"failures"}),
		email, string(b))
	if err != nil {
		return fmt.Errorf("login failures: %w", t.tx.Translate(err))
	}
	return nil
}

// InsertRefresh implements customer.Tx.
func (t customerTx) InsertRefresh(ctx context.Context, r customer.RefreshToken) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO refresh_tokens (hash, family, customer_id, expires_at, spent) VALUES (?, ?, ?, ?, ?)`,
		r.Hash, r.Family, r.CustomerID, r.ExpiresAt.UnixMilli(), r.Spent)
	if err != nil {
		return fmt.Errorf("insert refresh token: %w", t.tx.Translate(err))
	}
	// The customer signed in (auth.login, auth.refresh): an admin
	// token's call is audited; the token never is.
	t.tx.AuditFallback(audit.Target{Kind: "customer", ID: r.CustomerID}, map[string]audit.Change{"signedIn": {After: true}})
	return nil
}

// LockRefresh implements customer.Tx.
func (t customerTx) LockRefresh(ctx context.Context, hash string) (*customer.RefreshToken, error) {
	var r customer.RefreshToken
	var exp int64
	err := t.tx.QueryRow(ctx, `SELECT hash, family, customer_id, expires_at, spent FROM refresh_tokens WHERE hash = ?`+t.tx.ForUpdate(), hash).
		Scan(&r.Hash, &r.Family, &r.CustomerID, &exp, &r.Spent)
	if err != nil {
		return nil, fmt.Errorf("refresh token: %w", t.tx.DB().NotFound(err, commerce.NewError(commerce.EInvalidToken, nil)))
	}
	r.ExpiresAt = time.UnixMilli(exp).UTC()
	return &r, nil
}

// SpendRefresh implements customer.Tx.
func (t customerTx) SpendRefresh(ctx context.Context, hash string) error {
	res, err := t.tx.Exec(ctx, `UPDATE refresh_tokens SET spent = ? WHERE hash = ?`, true, hash)
	return affected(t.tx, res, err, commerce.NewError(commerce.EInvalidToken, nil))
}

// RevokeFamily implements customer.Tx. Its audit entry (an admin
// token's auth.logout, or its auth.refresh presenting a spent token: the
// sign-in ends although the call is refused) names the customer.
func (t customerTx) RevokeFamily(ctx context.Context, family string) error {
	var customerID string
	err := t.tx.QueryRow(ctx, `SELECT customer_id FROM refresh_tokens WHERE family = ? LIMIT 1`, family).Scan(&customerID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("revoke sign-in: %w", t.tx.Translate(err))
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM refresh_tokens WHERE family = ?`, family); err != nil {
		return fmt.Errorf("revoke sign-in: %w", t.tx.Translate(err))
	}
	if customerID != "" {
		t.tx.AuditFallback(audit.Target{Kind: "customer", ID: customerID}, map[string]audit.Change{"signedIn": {Before: true, After: false}})
	}
	return nil
}

// RevokeCustomer implements customer.Tx.
func (t customerTx) RevokeCustomer(ctx context.Context, customerID string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM refresh_tokens WHERE customer_id = ?`, customerID); err != nil {
		return fmt.Errorf("revoke sign-ins: %w", t.tx.Translate(err))
	}
	return nil
}

// InsertReset implements customer.Tx.
func (t customerTx) InsertReset(ctx context.Context, r customer.ResetToken) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO password_resets (hash, customer_id, expires_at) VALUES (?, ?, ?)`,
		r.Hash, r.CustomerID, r.ExpiresAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("insert reset token: %w", t.tx.Translate(err))
	}
	return nil
}

// TakeReset implements customer.Tx.
func (t customerTx) TakeReset(ctx context.Context, hash string, now time.Time) (*customer.ResetToken, error) {
	var r customer.ResetToken
	var exp int64
	err := t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`DELETE FROM password_resets WHERE hash = ? AND expires_at > ?`, "hash, customer_id, expires_at"),
		hash, now.UnixMilli()).Scan(&r.Hash, &r.CustomerID, &exp)
	if err != nil {
		return nil, fmt.Errorf("take reset token: %w", t.tx.DB().NotFound(err, commerce.NewError(commerce.EInvalidResetToken, nil)))
	}
	r.ExpiresAt = time.UnixMilli(exp).UTC()
	return &r, nil
}

// DeleteResets implements customer.Tx.
func (t customerTx) DeleteResets(ctx context.Context, customerID string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM password_resets WHERE customer_id = ?`, customerID); err != nil {
		return fmt.Errorf("delete reset tokens: %w", t.tx.Translate(err))
	}
	return nil
}

// InsertClient implements customer.Tx.
func (t customerTx) InsertClient(ctx context.Context, c customer.Client) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO oauth_clients (`+clientColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.Name, c.Scope, c.SecretHash, c.CreatedAt.UnixMilli(), c.Role)
	if err != nil {
		return fmt.Errorf("insert client: %w", t.tx.Translate(err))
	}
	// No event: the audit entry names the client itself (the secret's
	// hash never).
	t.tx.Audit(audit.Target{Kind: "client", ID: c.ID}, map[string]audit.Change{
		"name": {After: c.Name}, "scope": {After: c.Scope}, "role": {After: c.Role}, "secret": {After: audit.Redacted}})
	return nil
}

// RemoveClient implements customer.Tx.
func (t customerTx) RemoveClient(ctx context.Context, id string) (*customer.Client, error) {
	c, err := scanClient(t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`DELETE FROM oauth_clients WHERE id = ?`, clientColumns), id))
	if err != nil {
		return nil, fmt.Errorf("remove client: %w", t.tx.DB().NotFound(err, customer.ClientNotFound(id)))
	}
	t.tx.Audit(audit.Target{Kind: "client", ID: c.ID}, map[string]audit.Change{
		"name": {Before: c.Name}, "scope": {Before: c.Scope}, "role": {Before: c.Role}})
	return c, nil
}

// affected turns an UPDATE or DELETE's result into notFound when it
// touched no row.
func affected(tx *Tx, res interface{ RowsAffected() (int64, error) }, err error, notFound *commerce.Error) error {
	if err != nil {
		return tx.Translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return tx.Translate(err)
	}
	if n == 0 {
		return notFound
	}
	return nil
}

func scanCustomer(r rowScanner) (*customer.Customer, error) {
	var c customer.Customer
	var created int64
	var data string
	if err := r.Scan(&c.ID, &c.Email, &c.CustomerType, &created, &c.PasswordHash, &data); err != nil {
		return nil, err
	}
	var d customerDoc
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return nil, fmt.Errorf("customer %s: bad document: %w", c.ID, err)
	}
	c.FirstName, c.LastName, c.Phone, c.Addresses, c.Locale = d.FirstName, d.LastName, d.Phone, d.Addresses, d.Locale
	if c.Addresses == nil {
		c.Addresses = []customer.Address{}
	}
	c.Groups = d.Groups
	if c.Groups == nil {
		c.Groups = []string{}
	}
	c.CreatedAt = time.UnixMilli(created).UTC()
	return &c, nil
}

func scanClient(r rowScanner) (*customer.Client, error) {
	var c customer.Client
	var created int64
	if err := r.Scan(&c.ID, &c.Name, &c.Scope, &c.SecretHash, &created, &c.Role); err != nil {
		return nil, err
	}
	c.CreatedAt = time.UnixMilli(created).UTC()
	return &c, nil
}

var _ customer.Store = (*CustomerStore)(nil)
