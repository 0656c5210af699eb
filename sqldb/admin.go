package sqldb

import (
	"context"
	"time"

	"github.com/commercekit/commerce/event"
)

// AdminReads are the read-only queries of the admin app's dashboard and
// product page that no operation answers: counts and listings for people,
// no rule of any area.
type AdminReads struct{ db *DB }

// NewAdminReads returns the reads over db.
func NewAdminReads(db *DB) *AdminReads { return &AdminReads{db: db} }

// StockRow is one stock record.
type StockRow struct {
	ProductID   string
	WarehouseID string
	Quantity    int64
	Reserved    int64
	Available   int64
}

// ActiveCarts counts the ACTIVE carts.
func (a *AdminReads) ActiveCarts(ctx context.Context) (int64, error) {
	var n int64
	err := a.db.QueryRow(ctx, `SELECT COUNT(*) FROM carts WHERE status = 'ACTIVE'`).Scan(&n)
	return n, a.db.translate(err)
}

// LowStock returns up to limit stock records with at most threshold units
// available, fewest first.
func (a *AdminReads) LowStock(ctx context.Context, threshold int64, limit int) ([]StockRow, error) {
	return a.stock(ctx, `SELECT product_id, warehouse_id, quantity, reserved FROM stock
		WHERE quantity - reserved <= ? ORDER BY quantity - reserved, product_id, warehouse_id LIMIT ?`, threshold, limit)
}

// StockOf returns the stock records of a product, by warehouse.
func (a *AdminReads) StockOf(ctx context.Context, productID string) ([]StockRow, error) {
	return a.stock(ctx, `SELECT product_id, warehouse_id, quantity, reserved FROM stock WHERE product_id = ? ORDER BY warehouse_id`, productID)
}

func (a *AdminReads) stock(ctx context.Context, q string, args ...any) ([]StockRow, error) {
	rows, err := a.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StockRow
	for rows.Next() {
		var s StockRow
		if err := rows.Scan(&s.ProductID, &s.WarehouseID, &s.Quantity, &s.Reserved); err != nil {
			return nil, a.db.translate(err)
		}
		s.Available = s.Quantity - s.Reserved
		out = append(out, s)
	}
	return out, a.db.translate(rows.Err())
}

// LatestEvents returns the last n events of the log, newest first.
func (a *AdminReads) LatestEvents(ctx context.Context, n int) ([]event.Event, error) {
	stored, err := a.db.scanEvents(ctx, `SELECT `+eventColumns+` FROM events ORDER BY k DESC, seq DESC LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	return eventsOf(stored), nil
}

// OrderSums are the orders of one currency created since a time: how
// many (cancelled ones too), and the sum of their totals in minor units
// with the currency's precision (cancelled orders left out).
type OrderSums struct {
	Currency  string
	Count     int64
	Revenue   int64
	Precision int
}

// OrdersSince sums the orders created at or after from, per currency (in
// currency order), in one aggregate read over the orders' created_at
// index: what the dashboard shows of today's orders.
func (a *AdminReads) OrdersSince(ctx context.Context, from time.Time) ([]OrderSums, error) {
	d := a.db.dialect
	q := `SELECT currency, COUNT(*), CAST(COALESCE(SUM(CASE WHEN status <> 'CANCELLED' THEN amount ELSE 0 END), 0) AS BIGINT), COALESCE(MAX(prec), 0)
		FROM (SELECT status, ` + d.JSONText("data", "currency") + ` AS currency,
			CAST(` + d.JSONText("data", "totals", "total", "amount") + ` AS BIGINT) AS amount,
			CAST(` + d.JSONText("data", "totals", "total", "precision") + ` AS BIGINT) AS prec
			FROM orders WHERE created_at >= ?) o
		GROUP BY currency ORDER BY currency`
	rows, err := a.db.Query(ctx, q, from.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OrderSums
	for rows.Next() {
		var s OrderSums
		if err := rows.Scan(&s.Currency, &s.Count, &s.Revenue, &s.Precision); err != nil {
			return nil, a.db.translate(err)
		}
		out = append(out, s)
	}
	return out, a.db.translate(rows.Err())
}
