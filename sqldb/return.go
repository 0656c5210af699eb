package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/order"
)

// Returns (docs/api.md section 24) are rows of returns, stored as orders
// are: the columns the store filters, sorts and locks by, the return as
// clients see it (data) and what is kept beside it (internal: the
// exchange's cart, value and skus). Numbers come from return_numbers as
// order numbers come from order_numbers.

const returnColumns = `id, number, order_id, customer_id, status, created_at, updated_at, version, data, internal`

// returnInternal is what the store keeps of a return beside its document.
type returnInternal struct {
	CartID string            `json:"cartId,omitempty"`
	Value  int64             `json:"value,omitempty"`
	SKUs   map[string]string `json:"skus,omitempty"`
}

// Return implements order.Store.
func (s *OrderStore) Return(ctx context.Context, id string) (*order.Return, error) {
	r, err := scanReturn(s.db.QueryRow(ctx, `SELECT `+returnColumns+` FROM returns WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("return %s: %w", id, s.db.NotFound(err, order.ReturnNotFound(id)))
	}
	return r, nil
}

// Returns implements order.Store.
func (s *OrderStore) Returns(ctx context.Context, f order.ReturnFilter) ([]*order.Return, error) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+` IN (`+Placeholders(len(vals))+`)`)
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("order_id", f.OrderIDs)
	in("customer_id", f.CustomerIDs)
	in("status", f.Statuses)
	q := `SELECT ` + returnColumns + ` FROM returns`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY number LIMIT ? OFFSET ?`
	args = append(args, f.Limit, f.Skip)
	return queryReturns(ctx, s.db.Query, q, args...)
}

// queryReturns runs a query of returnColumns and reads its rows.
func queryReturns(ctx context.Context, query func(context.Context, string, ...any) (*sql.Rows, error), q string, args ...any) ([]*order.Return, error) {
	rows, err := query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list returns: %w", err)
	}
	defer rows.Close()
	out := []*order.Return{}
	for rows.Next() {
		r, err := scanReturn(rows)
		if err != nil {
			return nil, fmt.Errorf("list returns: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list returns: %w", err)
	}
	return out, nil
}

// NextReturnNumber implements order.Tx.
func (t orderTx) NextReturnNumber(ctx context.Context) (int64, error) {
	var n int64
	if err := t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`INSERT INTO return_numbers DEFAULT VALUES`, "n")).Scan(&n); err != nil {
		return 0, fmt.Errorf("allocate a return number: %w", t.tx.Translate(err))
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM return_numbers WHERE n = ?`, n); err != nil {
		return 0, fmt.Errorf("allocate a return number: %w", err)
	}
	return n, nil
}

// InsertReturn implements order.Tx.
func (t orderTx) InsertReturn(ctx context.Context, r *order.Return) error {
	n, err := returnSeq(r)
	if err != nil {
		return err
	}
	data, internal, err := returnDocs(r)
	if err != nil {
		return fmt.Errorf("insert return %s: %w", r.ID, err)
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO returns (`+returnColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, n, r.OrderID, r.CustomerID, r.Status, r.CreatedAt.UnixMilli(), r.UpdatedAt.UnixMilli(), r.Version, data, internal)
	if err != nil {
		return fmt.Errorf("insert return %s: %w", r.ID, err)
	}
	return nil
}

// LockReturn implements order.Tx.
func (t orderTx) LockReturn(ctx context.Context, id string) (*order.Return, error) {
	r, err := scanReturn(t.tx.QueryRow(ctx, `SELECT `+returnColumns+` FROM returns WHERE id = ?`+t.tx.ForUpdate(), id))
	if err != nil {
		return nil, fmt.Errorf("lock return %s: %w", id, t.tx.DB().NotFound(err, order.ReturnNotFound(id)))
	}
	return r, nil
}

// SaveReturn implements order.Tx.
func (t orderTx) SaveReturn(ctx context.Context, r *order.Return) error {
	data, internal, err := returnDocs(r)
	if err != nil {
		return fmt.Errorf("save return %s: %w", r.ID, err)
	}
	res, err := t.tx.Exec(ctx, `UPDATE returns SET status = ?, updated_at = ?, version = ?, data = ?, internal = ? WHERE id = ?`,
		r.Status, r.UpdatedAt.UnixMilli(), r.Version, data, internal, r.ID)
	if err != nil {
		return fmt.Errorf("save return %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("save return %s: %w", r.ID, order.ReturnNotFound(r.ID))
	}
	return nil
}

// OrderReturns implements order.Tx.
func (t orderTx) OrderReturns(ctx context.Context, orderID string) ([]*order.Return, error) {
	return queryReturns(ctx, t.tx.Query, `SELECT `+returnColumns+` FROM returns WHERE order_id = ? ORDER BY number`, orderID)
}

// returnSeq returns the sequence number of a return's number ("R1001":
// 1001).
func returnSeq(r *order.Return) (int64, error) {
	digits, ok := strings.CutPrefix(r.Number, "R")
	n, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || !order.ValidNumber(digits) {
		return 0, commerce.Errorf(commerce.EInternal, "insert return %s: bad number %q", r.ID, r.Number)
	}
	return n, nil
}

func returnDocs(r *order.Return) (data, internal string, err error) {
	d, err := json.Marshal(r)
	if err != nil {
		return "", "", err
	}
	var in returnInternal
	if x := r.Exchange; x != nil {
		in = returnInternal{CartID: x.CartID, Value: x.Value, SKUs: x.SKUs}
	}
	i, err := json.Marshal(in)
	if err != nil {
		return "", "", err
	}
	return string(d), string(i), nil
}

// scanReturn reads a row of returnColumns: the documents, with the
// columns (which are authoritative) over them.
func scanReturn(row interface{ Scan(...any) error }) (*order.Return, error) {
	var r order.Return
	var id, orderID, customer, status, data, internal string
	var number, created, updated, version int64
	if err := row.Scan(&id, &number, &orderID, &customer, &status, &created, &updated, &version, &data, &internal); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, fmt.Errorf("return %s: bad document: %w", id, err)
	}
	var in returnInternal
	if err := json.Unmarshal([]byte(internal), &in); err != nil {
		return nil, fmt.Errorf("return %s: bad internal document: %w", id, err)
	}
	if r.Exchange != nil {
		r.Exchange.CartID, r.Exchange.Value, r.Exchange.SKUs = in.CartID, in.Value, in.SKUs
	}
	r.ID, r.OrderID, r.CustomerID, r.Status = id, orderID, customer, status
	r.Number = order.FormatReturnNumber(number)
	r.CreatedAt, r.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	r.Version = version
	return &r, nil
}
