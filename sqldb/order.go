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
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/stock"
)

// OrderStore is the orders area's storage (order.Store).
//
// An order is one row of orders: the columns the store filters, sorts and
// locks by, the order as clients see it (data) and what is kept beside it
// (internal). A change locks the row first (SELECT ... FOR UPDATE on
// PostgreSQL; SQLite serialises its writers), so every check of an
// order's state is made on its latest version, whatever the number of
// processes. Numbers come from order_numbers, whose identity (PostgreSQL)
// or AUTOINCREMENT (SQLite) never gives a number twice.
type OrderStore struct{ db *DB }

// NewOrderStore returns the order store over db.
func NewOrderStore(db *DB) *OrderStore { return &OrderStore{db: db} }

const orderColumns = `id, number, cart_id, customer_id, status, payment_status, fulfillment_status, payment_provider,
	payment_reference, created_at, updated_at, version, pending_since, data, internal`

// Update implements order.Store.
func (s *OrderStore) Update(ctx context.Context, fn func(tx order.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(OrderTx(tx)) })
}

// OrderTx returns the order Tx over a transaction (the cart's store gives
// one inside its own).
func OrderTx(tx *Tx) order.Tx { return orderTx{tx} }

// Order implements order.Store.
func (s *OrderStore) Order(ctx context.Context, id string) (*order.Order, error) {
	o, err := scanOrder(s.db.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("order %s: %w", id, s.db.NotFound(err, order.NotFound(id)))
	}
	return o, nil
}

// Orders implements order.Store.
func (s *OrderStore) Orders(ctx context.Context, f order.Filter) ([]*order.Order, error) {
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
	in("customer_id", f.CustomerIDs)
	in("status", f.Statuses)
	in("payment_status", f.PaymentStatuses)
	in("fulfillment_status", f.FulfillmentStatuses)
	if len(f.Numbers) > 0 {
		// A string that is not an order number matches none (the service
		// refuses it before: validation_error).
		var nums []any
		for _, v := range f.Numbers {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && order.ValidNumber(v) {
				nums = append(nums, n)
			}
		}
		if len(nums) == 0 {
			return []*order.Order{}, nil
		}
		where = append(where, `number IN (`+Placeholders(len(nums))+`)`)
		args = append(args, nums...)
	}
	if f.CreatedFrom != nil {
		where = append(where, `created_at >= ?`)
		args = append(args, f.CreatedFrom.UnixMilli())
	}
	if f.CreatedTo != nil {
		where = append(where, `created_at <= ?`)
		args = append(args, f.CreatedTo.UnixMilli())
	}
	// The page's numbers first, then its orders: the numbers come from
	// an index of the filter alone (orders_customer, orders_created, ...),
	// sorted when the index is not in their order (a range of creation
	// times), so that only the page's rows are read, not every order of a
	// day to sort them (issue 37, BENCHMARKS.md "Growth").
	q := `SELECT number FROM orders`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q = `SELECT ` + orderColumns + ` FROM orders WHERE number IN (` + q + ` ORDER BY number DESC LIMIT ? OFFSET ?)
		ORDER BY number DESC`
	args = append(args, f.Limit, f.Skip)
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list orders: %w", err)
	}
	defer rows.Close()
	out := []*order.Order{}
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, fmt.Errorf("list orders: %w", s.db.Translate(err))
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list orders: %w", s.db.Translate(err))
	}
	return out, nil
}

// NextNumber implements order.Store.
func (s *OrderStore) NextNumber(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.Update(ctx, func(tx *Tx) (err error) {
		n, err = OrderTx(tx).NextNumber(ctx)
		return err
	})
	return n, err
}

// BeginCheckout implements order.Store.
func (s *OrderStore) BeginCheckout(ctx context.Context, a *order.Attempt) (int64, error) {
	var n int64
	err := s.db.Update(ctx, func(tx *Tx) (err error) {
		if n, err = OrderTx(tx).NextNumber(ctx); err != nil {
			return err
		}
		rec := *a
		rec.Request.OrderNumber = fmt.Sprint(n)
		req, err := json.Marshal(rec.Request)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO checkout_attempts (idempotency_key, provider, request, created_at) VALUES (?, ?, ?, ?)`,
			a.Request.IdempotencyKey, a.Provider, string(req), a.Created.UnixMilli())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("begin checkout: %w", err)
	}
	return n, nil
}

// EndCheckout implements order.Store.
func (s *OrderStore) EndCheckout(ctx context.Context, key string) error {
	return s.db.Update(ctx, func(tx *Tx) error { return OrderTx(tx).EndCheckout(ctx, key) })
}

// StaleCheckouts implements order.Store.
func (s *OrderStore) StaleCheckouts(ctx context.Context, t time.Time, limit int) ([]*order.Attempt, error) {
	rows, err := s.db.Query(ctx, `SELECT provider, request, created_at FROM checkout_attempts WHERE created_at <= ?
		ORDER BY created_at LIMIT ?`, t.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("stale checkouts: %w", err)
	}
	defer rows.Close()
	var out []*order.Attempt
	for rows.Next() {
		var a order.Attempt
		var req string
		var created int64
		if err := rows.Scan(&a.Provider, &req, &created); err != nil {
			return nil, fmt.Errorf("stale checkouts: %w", s.db.Translate(err))
		}
		if err := json.Unmarshal([]byte(req), &a.Request); err != nil {
			return nil, fmt.Errorf("stale checkouts: bad request: %w", err)
		}
		a.Created = time.UnixMilli(created).UTC()
		out = append(out, &a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stale checkouts: %w", s.db.Translate(err))
	}
	return out, nil
}

// OrderIDByPayment implements order.Store.
func (s *OrderStore) OrderIDByPayment(ctx context.Context, provider, reference string) (string, error) {
	var id string
	err := s.db.QueryRow(ctx, `SELECT id FROM orders WHERE payment_provider = ? AND payment_reference = ? ORDER BY number LIMIT 1`,
		provider, reference).Scan(&id)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("order by payment: %w", s.db.Translate(err))
	}
	return id, nil
}

// PendingSince implements order.Store.
func (s *OrderStore) PendingSince(ctx context.Context, t time.Time, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id FROM orders WHERE pending_since IS NOT NULL AND pending_since <= ?
		ORDER BY pending_since LIMIT ?`, t.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("pending orders: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("pending orders: %w", s.db.Translate(err))
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending orders: %w", s.db.Translate(err))
	}
	return ids, nil
}

// orderTx implements order.Tx over a transaction.
type orderTx struct{ tx *Tx }

// Emit implements order.Tx.
func (t orderTx) Emit(e event.Event) { t.tx.Emit(e) }

// Stock implements order.Tx.
func (t orderTx) Stock() stock.Tx { return stockTx(t) }

// Promotions implements order.Tx.
func (t orderTx) Promotions() promotion.Tx { return promotionTx(t) }

// Lock implements order.Tx.
func (t orderTx) Lock(ctx context.Context, id string) (*order.Order, error) {
	o, err := scanOrder(t.tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = ?`+t.tx.ForUpdate(), id))
	if err != nil {
		return nil, fmt.Errorf("lock order %s: %w", id, t.tx.DB().NotFound(err, order.NotFound(id)))
	}
	return o, nil
}

// Insert implements order.Tx.
func (t orderTx) Insert(ctx context.Context, o *order.Order) error {
	n, err := strconv.ParseInt(o.Number, 10, 64)
	if err != nil || !order.ValidNumber(o.Number) {
		return commerce.Errorf(commerce.EInternal, "insert order %s: bad number %q", o.ID, o.Number)
	}
	data, internal, err := orderDocs(o)
	if err != nil {
		return fmt.Errorf("insert order %s: %w", o.ID, err)
	}
	provider, reference := orderPayment(o)
	_, err = t.tx.Exec(ctx, `INSERT INTO orders (`+orderColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		o.ID, n, o.CartID, o.CustomerID, o.Status, o.PaymentStatus, o.FulfillmentStatus, provider, reference,
		o.CreatedAt.UnixMilli(), o.UpdatedAt.UnixMilli(), o.Version, pendingSince(o), data, internal)
	if err != nil {
		return fmt.Errorf("insert order %s: %w", o.ID, err)
	}
	return nil
}

// Save implements order.Tx.
func (t orderTx) Save(ctx context.Context, o *order.Order) error {
	data, internal, err := orderDocs(o)
	if err != nil {
		return fmt.Errorf("save order %s: %w", o.ID, err)
	}
	provider, reference := orderPayment(o)
	res, err := t.tx.Exec(ctx, `UPDATE orders SET status = ?, payment_status = ?, fulfillment_status = ?, payment_provider = ?,
		payment_reference = ?, updated_at = ?, version = ?, pending_since = ?, data = ?, internal = ? WHERE id = ?`,
		o.Status, o.PaymentStatus, o.FulfillmentStatus, provider, reference, o.UpdatedAt.UnixMilli(), o.Version,
		pendingSince(o), data, internal, o.ID)
	if err != nil {
		return fmt.Errorf("save order %s: %w", o.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("save order %s: %w", o.ID, order.NotFound(o.ID))
	}
	return nil
}

// NextNumber implements order.Tx: a row of order_numbers is inserted, its
// generated key taken, and deleted again. The key only grows, so no two
// committed transactions get one number (a rolled back one's may or may
// not be given again).
func (t orderTx) NextNumber(ctx context.Context) (int64, error) {
	var n int64
	if err := t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`INSERT INTO order_numbers DEFAULT VALUES`, "n")).Scan(&n); err != nil {
		return 0, fmt.Errorf("allocate an order number: %w", t.tx.Translate(err))
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM order_numbers WHERE n = ?`, n); err != nil {
		return 0, fmt.Errorf("allocate an order number: %w", err)
	}
	return n, nil
}

// EndCheckout implements order.Tx.
func (t orderTx) EndCheckout(ctx context.Context, key string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM checkout_attempts WHERE idempotency_key = ?`, key); err != nil {
		return fmt.Errorf("end checkout %s: %w", key, err)
	}
	return nil
}

// CustomerOrders implements order.Tx.
func (t orderTx) CustomerOrders(ctx context.Context, customerID string) ([]*order.Order, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+orderColumns+` FROM orders WHERE customer_id = ? ORDER BY number`+t.tx.ForUpdate(), customerID)
	if err != nil {
		return nil, fmt.Errorf("orders of customer %s: %w", customerID, t.tx.Translate(err))
	}
	defer rows.Close()
	var out []*order.Order
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, fmt.Errorf("orders of customer %s: %w", customerID, t.tx.Translate(err))
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("orders of customer %s: %w", customerID, t.tx.Translate(err))
	}
	return out, nil
}

// SeeNotification implements order.Tx.
func (t orderTx) SeeNotification(ctx context.Context, provider, eventID string) (bool, error) {
	q := t.tx.db.dialect.Upsert("payment_notifications", 1, []string{"provider", "event_id", "seen_at"}, []string{"provider", "event_id"}, nil)
	res, err := t.tx.Exec(ctx, q, provider, eventID, t.tx.Now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("record notification %s: %w", eventID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("record notification %s: %w", eventID, t.tx.Translate(err))
	}
	return n == 0, nil
}

// orderInternal is what the store keeps of an order beside its document.
type orderInternal struct {
	Pending []*order.Operation      `json:"pending,omitempty"`
	Items   map[string]itemInternal `json:"items,omitempty"`
}

type itemInternal struct {
	Allocations []order.Allocation `json:"allocations,omitempty"`
	Restocked   int64              `json:"restocked,omitempty"`
}

func orderDocs(o *order.Order) (data, internal string, err error) {
	d, err := json.Marshal(o)
	if err != nil {
		return "", "", err
	}
	in := orderInternal{Pending: o.Pending, Items: map[string]itemInternal{}}
	for _, it := range o.Items {
		if len(it.Allocations) > 0 || it.Restocked > 0 {
			in.Items[it.ID] = itemInternal{Allocations: it.Allocations, Restocked: it.Restocked}
		}
	}
	i, err := json.Marshal(in)
	if err != nil {
		return "", "", err
	}
	return string(d), string(i), nil
}

func orderPayment(o *order.Order) (provider, reference string) {
	if p := o.Payment(); p != nil {
		return p.Provider, p.Reference
	}
	return "", ""
}

func pendingSince(o *order.Order) any {
	if len(o.Pending) == 0 {
		return nil
	}
	t := o.Pending[0].Created
	for _, op := range o.Pending[1:] {
		if op.Created.Before(t) {
			t = op.Created
		}
	}
	return t.UnixMilli()
}

// scanOrder reads a row of orderColumns: the documents, with the columns
// (which are authoritative) over them.
func scanOrder(row interface{ Scan(...any) error }) (*order.Order, error) {
	var o order.Order
	var id, cartID, customer, status, payStatus, fulStatus, provider, reference, data, internal string
	var number, created, updated, version int64
	var pending sql.NullInt64
	if err := row.Scan(&id, &number, &cartID, &customer, &status, &payStatus, &fulStatus, &provider, &reference,
		&created, &updated, &version, &pending, &data, &internal); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(data), &o); err != nil {
		return nil, fmt.Errorf("order %s: bad document: %w", id, err)
	}
	var in orderInternal
	if err := json.Unmarshal([]byte(internal), &in); err != nil {
		return nil, fmt.Errorf("order %s: bad internal document: %w", id, err)
	}
	o.Pending = in.Pending
	for _, it := range o.Items {
		if x, ok := in.Items[it.ID]; ok {
			it.Allocations, it.Restocked = x.Allocations, x.Restocked
		}
	}
	o.ID, o.CartID, o.CustomerID = id, cartID, customer
	o.Number = fmt.Sprint(number)
	o.Status, o.PaymentStatus, o.FulfillmentStatus = status, payStatus, fulStatus
	o.CreatedAt, o.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	o.Version = version
	if o.Source == "" { // stored before sources existed
		o.Source = order.SourceStorefront
	}
	if o.Returns == nil {
		o.Returns = []string{}
	}
	return &o, nil
}

var _ order.Store = (*OrderStore)(nil)
