package sqldb

import (
	"context"

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
