package sqldb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/stock"
)

// CartStore is the cart area's storage (cart.Store).
//
// A cart is one row of carts: the columns the store queries (status,
// expiration, version) and the cart as a JSON document. A change locks the
// row first (SELECT ... FOR UPDATE on PostgreSQL; SQLite serialises its
// writers) and stores the cart only over the version it read, so parallel
// changes of one cart queue up and none is lost, whatever the number of
// processes. The cart's stock reservations are changed in the same
// transaction (cart.Tx.Stock), so a cart change and its reservations
// commit or roll back together.
type CartStore struct{ db *DB }

// NewCartStore returns the cart store over db.
func NewCartStore(db *DB) *CartStore { return &CartStore{db: db} }

const cartColumns = `id, customer_id, status, currency, country, channel, expires_at, created_at, updated_at, version, data`

// Update implements cart.Store. When a reservation that cartTx.Save sent
// with the COMMIT found too few units (errShort), the transaction is
// rolled back and fn runs again with its reservations made one after the
// other, each freeing the units of lapsed reservations first, or failing
// with not_enough_stock (stock.ReserveAt): so the stock rows are always
// locked in the reservations' order, and two carts never deadlock on them.
func (s *CartStore) Update(ctx context.Context, fn func(tx cart.Tx) error) error {
	err := s.db.Update(ctx, func(tx *Tx) error { return fn(cartTx{tx}) })
	if errors.Is(err, errShort) {
		err = s.db.Update(ctx, func(tx *Tx) error {
			tx.reserveNow = true
			return fn(cartTx{tx})
		})
	}
	return err
}

// errShort fails a transaction whose reservation sent with the COMMIT
// (cartTx.Save) found too few units: a plain sentinel, Update runs the
// transaction again.
var errShort = errors.New("a reservation found too few units")

// Cart implements cart.Store.
func (s *CartStore) Cart(ctx context.Context, id string) (*cart.Cart, error) {
	c, err := scanCart(s.db.QueryRow(ctx, `SELECT `+cartColumns+` FROM carts WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("cart %s: %w", id, s.db.NotFound(err, cart.NotFound(id)))
	}
	return c, nil
}

// cartTx implements cart.Tx over a transaction.
type cartTx struct{ tx *Tx }

// Emit implements cart.Tx.
func (t cartTx) Emit(e event.Event) { t.tx.Emit(e) }

// Stock implements cart.Tx.
func (t cartTx) Stock() stock.Tx { return stockTx(t) }

// Promotions implements cart.Tx.
func (t cartTx) Promotions() promotion.Tx { return promotionTx(t) }

// Orders implements cart.Tx.
func (t cartTx) Orders() order.Tx { return orderTx(t) }

// Lock implements cart.Tx.
func (t cartTx) Lock(ctx context.Context, id string) (*cart.Cart, error) {
	c, err := scanCart(t.tx.QueryRow(ctx, `SELECT `+cartColumns+` FROM carts WHERE id = ?`+t.tx.ForUpdate(), id))
	if err != nil {
		return nil, fmt.Errorf("lock cart %s: %w", id, t.tx.DB().NotFound(err, cart.NotFound(id)))
	}
	t.held(id)
	return c, nil
}

// LockVersion implements cart.Tx.
func (t cartTx) LockVersion(ctx context.Context, id string) (int64, error) {
	var v int64
	err := t.tx.QueryRow(ctx, `SELECT version FROM carts WHERE id = ?`+t.tx.ForUpdate(), id).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("lock cart %s: %w", id, t.tx.DB().NotFound(err, cart.NotFound(id)))
	}
	t.held(id)
	return v, nil
}

// held records that the transaction holds the cart id's row.
func (t cartTx) held(id string) {
	if !slices.Contains(t.tx.heldCarts, id) {
		t.tx.heldCarts = append(t.tx.heldCarts, id)
	}
}

// Insert implements cart.Tx.
func (t cartTx) Insert(ctx context.Context, c *cart.Cart) error {
	data, err := c.Document()
	if err != nil {
		return fmt.Errorf("insert cart %s: %w", c.ID, err)
	}
	c.Version = 1
	err = t.tx.ExecAtCommit(ctx, Statement{SQL: `INSERT INTO carts (` + cartColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		Args: []any{c.ID, c.CustomerID, c.Status, c.Currency, c.Country, c.Channel,
			c.ExpirationTime.UnixMilli(), c.CreatedAt.UnixMilli(), c.UpdatedAt.UnixMilli(), c.Version, Text(data)}})
	if err != nil {
		return fmt.Errorf("insert cart %s: %w", c.ID, err)
	}
	return nil
}

// Save implements cart.Tx.
//
// A cart the transaction does not hold is saved with a conditional UPDATE
// over its version, which holds the row from there to the COMMIT. On a
// dialect that pipelines and has writable CTEs, that UPDATE and the
// reservations go out with the COMMIT (Tx.ExecAtCommit), the whole
// transaction then one round trip, each statement checking in SQL that it
// affected its row: the transaction fails with cart.Changed, or errShort
// (then Update runs it again, see there). The cart first: the stock rows,
// which every cart shares, are locked last, for the shortest time. The
// reservations run even when the cart moved, and are rolled back with the
// transaction. Elsewhere, and for a cart the transaction holds, the
// statements run now.
func (t cartTx) Save(ctx context.Context, c *cart.Cart, rs []stock.Reservation) error {
	doc, err := c.Document()
	if err != nil {
		return fmt.Errorf("save cart %s: %w", c.ID, err)
	}
	save := saveStatement(c, doc)
	if !t.tx.reserveNow && !slices.Contains(t.tx.heldCarts, c.ID) && t.tx.db.dialect.WritableCTE() {
		if expect, atCommit := t.tx.Expect("(SELECT count(*) FROM done) = 1"); atCommit {
			return t.saveAtCommit(ctx, c, save, rs, expect)
		}
	}
	res, err := t.tx.Exec(ctx, save.SQL, save.Args...)
	if err != nil {
		return fmt.Errorf("save cart %s: %w", c.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("save cart %s: %w", c.ID, err)
	}
	if n != 1 {
		return cart.Changed(c.ID, c.Version)
	}
	c.Version++
	for _, r := range rs {
		if err := stock.ReserveAt(ctx, stockTx(t), r, c.UpdatedAt); err != nil {
			return err
		}
	}
	return nil
}

// saveAtCommit sends the cart's update (save) and its reservations rs
// with the COMMIT, each checking with expect that it affected its row.
func (t cartTx) saveAtCommit(ctx context.Context, c *cart.Cart, save Statement, rs []stock.Reservation, expect string) error {
	save.SQL = `WITH done AS (` + save.SQL + ` RETURNING 1) SELECT ` + expect
	save.Unmet = cart.Changed(c.ID, c.Version)
	if err := t.tx.ExecAtCommit(ctx, save); err != nil {
		return err
	}
	c.Version++
	reserve := `WITH taken AS (` + reserveTake + ` RETURNING 1), done AS (` + reserveInsert + reserveFrom + ` RETURNING 1) SELECT ` + expect
	for _, r := range rs {
		st := reserveStatement(r)
		st.SQL, st.Unmet = reserve, errShort
		if err := t.tx.ExecAtCommit(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// saveStatement stores c's document over the version c was read with.
func saveStatement(c *cart.Cart, data []byte) Statement {
	return Statement{SQL: `UPDATE carts SET customer_id = ?, status = ?, expires_at = ?, updated_at = ?, version = version + 1, data = ?
		WHERE id = ? AND version = ?`,
		Args: []any{c.CustomerID, c.Status, c.ExpirationTime.UnixMilli(), c.UpdatedAt.UnixMilli(), Text(data), c.ID, c.Version}}
}

// Expired implements cart.Tx. On PostgreSQL a cart another transaction
// holds is waited for, then skipped if that one expired it (or used it,
// which moved its expiration): FOR UPDATE re-checks the condition on the
// row's latest version.
func (t cartTx) Expired(ctx context.Context, now time.Time, limit int) ([]*cart.Cart, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+cartColumns+` FROM carts WHERE status = 'ACTIVE' AND expires_at <= ?
		ORDER BY expires_at LIMIT ?`+t.tx.ForUpdate(), now.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("expired carts: %w", err)
	}
	defer rows.Close()
	var out []*cart.Cart
	for rows.Next() {
		c, err := scanCart(rows)
		if err != nil {
			return nil, fmt.Errorf("expired carts: %w", t.tx.Translate(err))
		}
		out = append(out, c)
		t.held(c.ID)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("expired carts: %w", t.tx.Translate(err))
	}
	return out, nil
}

// scanCart reads a row of cartColumns: the document, with the columns
// (which are authoritative) over it.
func scanCart(row interface{ Scan(...any) error }) (*cart.Cart, error) {
	var c cart.Cart
	var data string
	var expires, created, updated int64
	var id, customer, status, currency, country, channel string
	var version int64
	if err := row.Scan(&id, &customer, &status, &currency, &country, &channel, &expires, &created, &updated, &version, &data); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return nil, fmt.Errorf("cart %s: bad document: %w", id, err)
	}
	c.ID, c.CustomerID, c.Status, c.Currency, c.Country, c.Channel = id, customer, status, currency, country, channel
	c.ExpirationTime = time.UnixMilli(expires).UTC()
	c.CreatedAt = time.UnixMilli(created).UTC()
	c.UpdatedAt = time.UnixMilli(updated).UTC()
	c.Version = version
	return &c, nil
}

var _ cart.Store = (*CartStore)(nil)
