package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/stock"
)

// StockStore is the stock area's storage (stock.Store).
//
// No oversell, across processes: a reservation is one conditional UPDATE
// ("reserved + n only where quantity - reserved >= n"), which PostgreSQL
// re-checks on the latest row version after waiting for a concurrent
// writer and SQLite runs under its single writer; the table's CHECK keeps
// 0 <= reserved <= quantity besides. Reservations are changed only after
// locking them (SELECT ... FOR UPDATE, or an UPDATE that re-checks
// "NOT expired"), so a sweep and a cart never both give the same units back.
type StockStore struct{ db *DB }

// NewStockStore returns the stock store over db.
func NewStockStore(db *DB) *StockStore { return &StockStore{db: db} }

// Update implements stock.Store.
func (s *StockStore) Update(ctx context.Context, fn func(tx stock.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(stockTx{tx}) })
}

// Stock implements stock.Store.
func (s *StockStore) Stock(ctx context.Context, k stock.Key) (stock.Stock, error) {
	out := stock.Stock{ProductID: k.ProductID, WarehouseID: k.WarehouseID}
	err := s.db.QueryRow(ctx, `SELECT quantity, reserved FROM stock WHERE product_id = ? AND warehouse_id = ?`,
		k.ProductID, k.WarehouseID).Scan(&out.Quantity, &out.Reserved)
	if err != nil {
		return stock.Stock{}, fmt.Errorf("get stock: %w", s.db.NotFound(err, stock.NotFound(k)))
	}
	return out, nil
}

// stockTx implements stock.Tx over a transaction; the cart's store gives
// one over its own (cart.Tx.Stock).
type stockTx struct{ tx *Tx }

// Emit implements stock.Tx.
func (t stockTx) Emit(e event.Event) { t.tx.Emit(e) }

// removeProduct deletes the stock records of a removed product and their
// reservations (catalogTx.RemoveProduct). The stock rows are locked first:
// a reservation being made on one (a cart's transaction holding the row)
// commits before, so that its reservation is seen and deleted here rather
// than left referring to a deleted row; a later one finds no stock.
func (t stockTx) removeProduct(ctx context.Context, productID string) error {
	rows, err := t.tx.Query(ctx, `SELECT warehouse_id FROM stock WHERE product_id = ?`+t.tx.ForUpdate(), productID)
	if err != nil {
		return fmt.Errorf("remove product's stock: %w", err)
	}
	for rows.Next() { // every row read: every row locked
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("remove product's stock: %w", err)
	}
	for _, table := range []string{"stock_reservations", "stock"} {
		if _, err := t.tx.Exec(ctx, `DELETE FROM `+table+` WHERE product_id = ?`, productID); err != nil {
			return fmt.Errorf("remove product's stock: %w", err)
		}
	}
	return nil
}

// LockProduct implements stock.Tx: the product's row read FOR UPDATE
// (PostgreSQL; SQLite's writer is alone), which a concurrent
// product.remove's DELETE waits for, and which waits for a removal that
// deleted the row first and then finds nothing.
func (t stockTx) LockProduct(ctx context.Context, productID string) error {
	var seq int64
	err := t.tx.QueryRow(ctx, `SELECT seq FROM products WHERE id = ?`+t.tx.ForUpdate(), productID).Scan(&seq)
	if err != nil {
		return fmt.Errorf("lock product %s: %w", productID, t.tx.DB().NotFound(err, stock.ProductNotFound(productID)))
	}
	return nil
}

// Create implements stock.Tx.
func (t stockTx) Create(ctx context.Context, st stock.Stock) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO stock (product_id, warehouse_id, quantity, reserved) VALUES (?, ?, ?, 0)`,
		st.ProductID, st.WarehouseID, st.Quantity)
	if commerce.ErrorCode(err) == commerce.EDuplicateKey {
		return stock.Duplicate(st.Key())
	}
	if err != nil {
		return fmt.Errorf("create stock: %w", err)
	}
	return nil
}

// Lock implements stock.Tx.
func (t stockTx) Lock(ctx context.Context, k stock.Key) (stock.Stock, error) {
	out := stock.Stock{ProductID: k.ProductID, WarehouseID: k.WarehouseID}
	err := t.tx.QueryRow(ctx, `SELECT quantity, reserved FROM stock WHERE product_id = ? AND warehouse_id = ?`+t.tx.ForUpdate(),
		k.ProductID, k.WarehouseID).Scan(&out.Quantity, &out.Reserved)
	if err != nil {
		return stock.Stock{}, fmt.Errorf("lock stock: %w", t.tx.DB().NotFound(err, stock.NotFound(k)))
	}
	return out, nil
}

// SetQuantity implements stock.Tx.
func (t stockTx) SetQuantity(ctx context.Context, k stock.Key, quantity int64) (stock.Stock, error) {
	out := stock.Stock{ProductID: k.ProductID, WarehouseID: k.WarehouseID}
	err := t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`UPDATE stock SET quantity = ? WHERE product_id = ? AND warehouse_id = ? AND reserved <= ?`,
		"quantity, reserved"), quantity, k.ProductID, k.WarehouseID, quantity).Scan(&out.Quantity, &out.Reserved)
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return stock.Stock{}, fmt.Errorf("update stock: %w", t.tx.Translate(err))
	}
	old, err := t.Lock(ctx, k)
	if err != nil {
		return stock.Stock{}, err
	}
	return stock.Stock{}, stock.BelowReserved(old.Reserved)
}

// Sweep implements stock.Tx. The UPDATE re-checks "NOT expired" on each
// row it gets (after waiting for a cart or another sweeper holding it on
// PostgreSQL), so each reservation is released, and its units given back,
// exactly once.
func (t stockTx) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	n, err := t.expire(ctx, `seq IN (SELECT seq FROM stock_reservations WHERE NOT expired AND expires_at <= ? ORDER BY expires_at LIMIT ?)`,
		now.UnixMilli(), limit)
	if err != nil {
		return 0, fmt.Errorf("sweep reservations: %w", err)
	}
	return n, nil
}

// ReleaseExpired implements stock.Tx, as Sweep does for one key.
func (t stockTx) ReleaseExpired(ctx context.Context, k stock.Key, now time.Time) (int, error) {
	n, err := t.expire(ctx, `product_id = ? AND warehouse_id = ? AND expires_at <= ?`, k.ProductID, k.WarehouseID, now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("release expired reservations of %s/%s: %w", k.ProductID, k.WarehouseID, err)
	}
	return n, nil
}

// expire marks the reservations matching cond, and not yet expired,
// expired and gives their units back; it returns how many it marked.
func (t stockTx) expire(ctx context.Context, cond string, args ...any) (int, error) {
	rows, err := t.tx.Query(ctx, t.tx.db.dialect.Returning(`UPDATE stock_reservations SET expired = true WHERE `+cond+` AND NOT expired`,
		"product_id, warehouse_id, quantity"), args...)
	if err != nil {
		return 0, err
	}
	back := map[stock.Key]int64{}
	n := 0
	for rows.Next() {
		var k stock.Key
		var q int64
		if err := rows.Scan(&k.ProductID, &k.WarehouseID, &q); err != nil {
			rows.Close()
			return 0, t.tx.Translate(err)
		}
		back[k] += q
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, t.tx.Translate(err)
	}
	return n, giveBack(ctx, t.tx, back)
}

// giveBack lowers the reserved quantity of each key by its amount, in key
// order (so that concurrent transactions lock stock rows in one order).
func giveBack(ctx context.Context, tx *Tx, back map[stock.Key]int64) error {
	for _, k := range sortedKeys(back) {
		if back[k] == 0 {
			continue
		}
		res, err := tx.Exec(ctx, `UPDATE stock SET reserved = reserved - ? WHERE product_id = ? AND warehouse_id = ?`,
			back[k], k.ProductID, k.WarehouseID)
		if err != nil {
			return fmt.Errorf("release %d of %s/%s: %w", back[k], k.ProductID, k.WarehouseID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("release %d of %s/%s: %w", back[k], k.ProductID, k.WarehouseID, err)
		}
		if n != 1 {
			return fmt.Errorf("release %d of %s/%s: %d stock rows", back[k], k.ProductID, k.WarehouseID, n)
		}
	}
	return nil
}

func sortedKeys[V any](m map[stock.Key]V) []stock.Key {
	keys := make([]stock.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b stock.Key) int {
		return cmp.Or(cmp.Compare(a.ProductID, b.ProductID), cmp.Compare(a.WarehouseID, b.WarehouseID))
	})
	return keys
}

// Reserve implements stock.Tx.
//
// The units are taken by a conditional UPDATE of the stock row (it holds
// the row to the commit, so no two reservations take the same units),
// then the reservation is inserted; where the dialect allows it, both in
// one statement (WritableCTE, reserveStatement), which inserts nothing
// when the UPDATE matched no row.
func (t stockTx) Reserve(ctx context.Context, r stock.Reservation) error {
	taken, err := t.take(ctx, r)
	if err != nil || taken {
		return err
	}
	return t.notEnough(ctx, r)
}

// notEnough is the not_enough_stock error of r, with what is available.
func (t stockTx) notEnough(ctx context.Context, r stock.Reservation) error {
	avail, err := t.available(ctx, r.ProductID, r.WarehouseID)
	if err != nil {
		return err
	}
	return stock.NotEnoughStock(r.ProductID, r.WarehouseID, r.Quantity, avail)
}

const (
	reserveTake = `UPDATE stock SET reserved = reserved + ?
		WHERE product_id = ? AND warehouse_id = ? AND quantity - reserved >= ?`
	reserveInsert = `INSERT INTO stock_reservations (id, cart_id, item_id, product_id, warehouse_id, quantity, expires_at, expired)`
	// reserveFrom ends reserveInsert in reserveStatement: a row when the
	// units were taken.
	reserveFrom = `
			SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), false FROM taken`
)

// reserveStatement is a reservation in one statement, on a dialect with
// writable CTEs: it affects one row when the units were taken, none when
// there are not enough.
func reserveStatement(r stock.Reservation) Statement {
	return Statement{SQL: `WITH taken AS (` + reserveTake + ` RETURNING 1) ` + reserveInsert + reserveFrom,
		Args: []any{r.Quantity, r.ProductID, r.WarehouseID, r.Quantity,
			r.ID, r.CartID, r.ItemID, r.ProductID, r.WarehouseID, r.Quantity, r.ExpirationTime.UnixMilli()}}
}

// take makes the reservation r when there are enough units, and reports
// whether it did.
func (t stockTx) take(ctx context.Context, r stock.Reservation) (bool, error) {
	var (
		res sql.Result
		err error
	)
	if t.tx.db.dialect.WritableCTE() {
		st := reserveStatement(r)
		res, err = t.tx.Exec(ctx, st.SQL, st.Args...)
	} else {
		res, err = t.tx.Exec(ctx, reserveTake, r.Quantity, r.ProductID, r.WarehouseID, r.Quantity)
	}
	if err != nil {
		return false, fmt.Errorf("reserve: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("reserve: %w", err)
	}
	if n == 0 || t.tx.db.dialect.WritableCTE() {
		return n > 0, nil
	}
	_, err = t.tx.Exec(ctx, reserveInsert+` VALUES (?, ?, ?, ?, ?, ?, ?, false)`,
		r.ID, r.CartID, r.ItemID, r.ProductID, r.WarehouseID, r.Quantity, r.ExpirationTime.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("reserve: %w", err)
	}
	return true, nil
}

// available is what can be reserved of a product in a warehouse: 0 when
// there is no stock record.
func (t stockTx) available(ctx context.Context, productID, warehouseID string) (int64, error) {
	var avail int64
	err := t.tx.QueryRow(ctx, `SELECT quantity - reserved FROM stock WHERE product_id = ? AND warehouse_id = ?`,
		productID, warehouseID).Scan(&avail)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("available stock: %w", t.tx.Translate(err))
	}
	return avail, nil
}

// Release implements stock.Tx.
func (t stockTx) Release(ctx context.Context, cartID, itemID string, quantity int64) error {
	return t.release(ctx, quantity, `cart_id = ? AND item_id = ?`, cartID, itemID)
}

// ReleaseItem implements stock.Tx.
func (t stockTx) ReleaseItem(ctx context.Context, cartID, itemID string) error {
	return t.release(ctx, math.MaxInt64, `cart_id = ? AND item_id = ?`, cartID, itemID)
}

// ReleaseCart implements stock.Tx.
func (t stockTx) ReleaseCart(ctx context.Context, cartID string) error {
	return t.release(ctx, math.MaxInt64, `cart_id = ?`, cartID)
}

// release gives back up to quantity units of the reservations matching
// where: expired ones first, then active ones newest first, splitting the
// last one touched when needed.
func (t stockTx) release(ctx context.Context, quantity int64, where string, args ...any) error {
	rs, err := t.lock(ctx, where+` ORDER BY expired DESC, seq DESC`, args...)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	var drop []any
	back := map[stock.Key]int64{}
	for _, r := range rs {
		if quantity == 0 {
			break
		}
		take := min(quantity, r.Quantity)
		quantity -= take
		if take == r.Quantity {
			drop = append(drop, r.seq)
		} else if _, err := t.tx.Exec(ctx, `UPDATE stock_reservations SET quantity = quantity - ? WHERE seq = ?`, take, r.seq); err != nil {
			return fmt.Errorf("release: %w", err)
		}
		if !r.Expired {
			back[stock.Key{ProductID: r.ProductID, WarehouseID: r.WarehouseID}] += take
		}
	}
	if err := t.drop(ctx, drop); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return giveBack(ctx, t.tx, back)
}

// CommitCart implements stock.Tx.
func (t stockTx) CommitCart(ctx context.Context, cartID string) ([]stock.Reservation, error) {
	rs, err := t.lock(ctx, `cart_id = ? ORDER BY seq`, cartID)
	if err != nil {
		return nil, fmt.Errorf("commit stock: %w", err)
	}
	type need struct{ held, again int64 } // held by active reservations; to take again for expired ones
	needs := map[stock.Key]need{}
	drop := make([]any, 0, len(rs))
	out := make([]stock.Reservation, 0, len(rs))
	for _, r := range rs {
		k := stock.Key{ProductID: r.ProductID, WarehouseID: r.WarehouseID}
		n := needs[k]
		if r.Expired {
			n.again += r.Quantity
		} else {
			n.held += r.Quantity
		}
		needs[k] = n
		drop = append(drop, r.seq)
		out = append(out, r.Reservation)
	}
	for _, k := range sortedKeys(needs) {
		n := needs[k]
		res, err := t.tx.Exec(ctx, `UPDATE stock SET quantity = quantity - ?, reserved = reserved - ?
			WHERE product_id = ? AND warehouse_id = ? AND quantity - reserved >= ?`,
			n.held+n.again, n.held, k.ProductID, k.WarehouseID, n.again)
		if err != nil {
			return nil, fmt.Errorf("commit stock: %w", err)
		}
		if c, err := res.RowsAffected(); err != nil {
			return nil, fmt.Errorf("commit stock: %w", err)
		} else if c == 0 {
			avail, err := t.available(ctx, k.ProductID, k.WarehouseID)
			if err != nil {
				return nil, err
			}
			return nil, stock.NotEnoughStock(k.ProductID, k.WarehouseID, n.held+n.again, avail+n.held)
		}
	}
	if err := t.drop(ctx, drop); err != nil {
		return nil, fmt.Errorf("commit stock: %w", err)
	}
	return out, nil
}

// Reservations implements stock.Tx.
func (t stockTx) Reservations(ctx context.Context, cartID string) ([]stock.Reservation, error) {
	rs, err := t.query(ctx, `SELECT `+reservationCols+` FROM stock_reservations WHERE cart_id = ? ORDER BY seq`, cartID)
	if err != nil {
		return nil, fmt.Errorf("reservations: %w", err)
	}
	out := make([]stock.Reservation, len(rs))
	for i, r := range rs {
		out[i] = r.Reservation
	}
	return out, nil
}

const reservationCols = `seq, id, cart_id, item_id, product_id, warehouse_id, quantity, expires_at, expired`

// heldReservation is a reservation with its row's sequence number.
type heldReservation struct {
	seq int64
	stock.Reservation
}

// lock reads and locks (on PostgreSQL; SQLite serialises writers) the
// reservations matching where, which ends with the ORDER BY.
func (t stockTx) lock(ctx context.Context, where string, args ...any) ([]heldReservation, error) {
	return t.query(ctx, `SELECT `+reservationCols+` FROM stock_reservations WHERE `+where+t.tx.ForUpdate(), args...)
}

func (t stockTx) query(ctx context.Context, q string, args ...any) ([]heldReservation, error) {
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []heldReservation
	for rows.Next() {
		var r heldReservation
		var expires int64
		if err := rows.Scan(&r.seq, &r.ID, &r.CartID, &r.ItemID, &r.ProductID, &r.WarehouseID, &r.Quantity, &expires, &r.Expired); err != nil {
			return nil, t.tx.Translate(err)
		}
		r.ExpirationTime = time.UnixMilli(expires).UTC()
		out = append(out, r)
	}
	return out, t.tx.Translate(rows.Err())
}

// drop deletes the reservations with the given sequence numbers.
func (t stockTx) drop(ctx context.Context, seqs []any) error {
	if len(seqs) == 0 {
		return nil
	}
	_, err := t.tx.Exec(ctx, `DELETE FROM stock_reservations WHERE seq IN (`+Placeholders(len(seqs))+`)`, seqs...)
	return err
}
