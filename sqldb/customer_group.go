package sqldb

import (
	"context"
	"fmt"
	"time"

	"github.com/commercekit/commerce/customer"
)

// Customer groups (docs/api.md section 26): a row of customer_groups
// each; the customers' groups are in their documents.

const groupColumns = `code, title, created_at`

func scanGroup(r rowScanner) (*customer.Group, error) {
	var g customer.Group
	var created int64
	if err := r.Scan(&g.Code, &g.Title, &created); err != nil {
		return nil, err
	}
	g.CreatedAt = time.UnixMilli(created).UTC()
	return &g, nil
}

// Groups implements customer.Store.
func (s *CustomerStore) Groups(ctx context.Context, limit, skip int) ([]customer.Group, error) {
	var w where
	out, err := listPage(ctx, s.db, `SELECT `+groupColumns+` FROM customer_groups`, `ORDER BY seq`, &w, nil, limit, skip,
		func(r rowScanner) (customer.Group, error) {
			g, err := scanGroup(r)
			if err != nil {
				return customer.Group{}, err
			}
			return *g, nil
		})
	if err != nil {
		return nil, fmt.Errorf("list groups: %w", err)
	}
	return out, nil
}

// LockGroup implements customer.Tx.
func (t customerTx) LockGroup(ctx context.Context, code string) (*customer.Group, error) {
	g, err := scanGroup(t.tx.QueryRow(ctx, `SELECT `+groupColumns+` FROM customer_groups WHERE code = ?`+t.tx.ForUpdate(), code))
	if err != nil {
		return nil, t.tx.DB().NotFound(err, customer.GroupNotFound(code))
	}
	return g, nil
}

// InsertGroup implements customer.Tx.
func (t customerTx) InsertGroup(ctx context.Context, g *customer.Group) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO customer_groups (`+groupColumns+`) VALUES (?, ?, ?)`, g.Code, g.Title, g.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("insert group: %w", t.tx.Translate(err))
	}
	return nil
}

// SaveGroup implements customer.Tx.
func (t customerTx) SaveGroup(ctx context.Context, g *customer.Group) error {
	if _, err := t.tx.Exec(ctx, `UPDATE customer_groups SET title = ? WHERE code = ?`, g.Title, g.Code); err != nil {
		return fmt.Errorf("update group: %w", err)
	}
	return nil
}

// DeleteGroup implements customer.Tx.
func (t customerTx) DeleteGroup(ctx context.Context, code string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM customer_groups WHERE code = ?`, code); err != nil {
		return fmt.Errorf("delete group: %w", err)
	}
	return nil
}

// CheckGroups implements customer.Tx.
func (t customerTx) CheckGroups(ctx context.Context, codes []string) error {
	if len(codes) == 0 {
		return nil
	}
	args := make([]any, len(codes))
	for i, c := range codes {
		args[i] = c
	}
	rows, err := t.tx.Query(ctx, `SELECT code FROM customer_groups WHERE code IN (`+Placeholders(len(codes))+`)`, args...)
	if err != nil {
		return fmt.Errorf("check groups: %w", err)
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return fmt.Errorf("check groups: %w", err)
		}
		found[c] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check groups: %w", err)
	}
	for _, c := range codes {
		if !found[c] {
			return customer.GroupNotFound(c)
		}
	}
	return nil
}
