package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/transfer"
)

// TransferStore is the storage of the catalog's import and export
// (transfer.Store): the jobs in import_jobs, the catalog's and the stock's
// tables in one transaction, and the reads the exports stream from.
type TransferStore struct {
	db     *DB
	orders *OrderStore
}

// NewTransferStore returns the import and export storage over db.
func NewTransferStore(db *DB) *TransferStore {
	return &TransferStore{db: db, orders: NewOrderStore(db)}
}

var _ transfer.Store = (*TransferStore)(nil)

type transferTx struct{ tx *Tx }

func (t transferTx) Emit(e event.Event)  { t.tx.Emit(e) }
func (t transferTx) Catalog() catalog.Tx { return catalogTx(t) }
func (t transferTx) Stock() stock.Tx     { return stockTx(t) }
func (t transferTx) ProductIDs(ctx context.Context, skus []string) (map[string]string, error) {
	out := make(map[string]string, len(skus))
	for _, chunk := range catalogChunks(skus) {
		rows, err := t.tx.Query(ctx, `SELECT sku, id FROM products WHERE sku IN (`+Placeholders(len(chunk))+`)`, catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("products by sku: %w", err)
		}
		for rows.Next() {
			var sku, id string
			if err := rows.Scan(&sku, &id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("products by sku: %w", t.tx.Translate(err))
			}
			out[sku] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("products by sku: %w", t.tx.Translate(err))
		}
	}
	return out, nil
}

// Update implements transfer.Store: a catalog transaction (its version
// moves).
func (s *TransferStore) Update(ctx context.Context, fn func(tx transfer.Tx) error) error {
	return s.db.updateVersioned(ctx, versionCatalog, func(tx *Tx) error { return fn(transferTx{tx}) })
}

const transferJobColumns = `id, status, format, dry_run, rows, processed, created, updated, unchanged, rejected, errors, started_at, finished_at, beat_at`

func transferJobRow(j *transfer.Job) ([]any, error) {
	errs, err := json.Marshal(j.Errors)
	if err != nil {
		return nil, fmt.Errorf("job errors: %w", err)
	}
	var finished any
	if j.FinishedAt != nil {
		finished = j.FinishedAt.UnixMilli()
	}
	dry := 0
	if j.DryRun {
		dry = 1
	}
	return []any{j.ID, j.Status, j.Format, dry, j.Rows, j.Processed, j.Created, j.Updated, j.Unchanged, j.Rejected,
		string(errs), j.StartedAt.UnixMilli(), finished, j.Beat.UnixMilli()}, nil
}

// CreateJob implements transfer.Store.
func (s *TransferStore) CreateJob(ctx context.Context, j *transfer.Job) error {
	row, err := transferJobRow(j)
	if err != nil {
		return err
	}
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO import_jobs (`+transferJobColumns+`) VALUES (`+Placeholders(14)+`)`, row...)
		// product.import's audit entry: the job it started (its rows
		// change products in the job's own transactions, under no
		// request: job.info counts them).
		tx.Audit(audit.Target{Kind: "job", ID: j.ID}, map[string]audit.Change{
			"status": {After: j.Status}, "format": {After: j.Format}, "dryRun": {After: j.DryRun}})
		return err
	})
}

// SaveJob implements transfer.Store.
func (s *TransferStore) SaveJob(ctx context.Context, j *transfer.Job) error {
	row, err := transferJobRow(j)
	if err != nil {
		return err
	}
	return s.db.Update(ctx, func(tx *Tx) error { return transferTx{tx}.saveJob(ctx, j.ID, row) })
}

// SaveJob implements transfer.Tx.
func (t transferTx) SaveJob(ctx context.Context, j *transfer.Job) error {
	row, err := transferJobRow(j)
	if err != nil {
		return err
	}
	return t.saveJob(ctx, j.ID, row)
}

func (t transferTx) saveJob(ctx context.Context, id string, row []any) error {
	res, err := t.tx.Exec(ctx, `UPDATE import_jobs SET status = ?, rows = ?, processed = ?, created = ?, updated = ?,
		unchanged = ?, rejected = ?, errors = ?, finished_at = ?, beat_at = ? WHERE id = ? AND status = ?`,
		row[1], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[12], row[13], id, transfer.JobRunning)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return transfer.ErrJobEnded
	}
	return nil
}

// Job implements transfer.Store.
func (s *TransferStore) Job(ctx context.Context, id string) (*transfer.Job, error) {
	j, err := scanTransferJob(s.db.QueryRow(ctx, `SELECT `+transferJobColumns+` FROM import_jobs WHERE id = ?`, id))
	if err != nil {
		return nil, s.db.NotFound(err, transfer.JobNotFound(id))
	}
	return j, nil
}

// scanTransferJob reads a job's row (transferJobColumns).
func scanTransferJob(row interface{ Scan(...any) error }) (*transfer.Job, error) {
	var j transfer.Job
	var dry int
	var errs string
	var started, beat int64
	var finished sql.NullInt64
	err := row.Scan(&j.ID, &j.Status, &j.Format, &dry, &j.Rows, &j.Processed, &j.Created, &j.Updated, &j.Unchanged, &j.Rejected,
		&errs, &started, &finished, &beat)
	if err != nil {
		return nil, err
	}
	j.DryRun = dry == 1
	if err := json.Unmarshal([]byte(errs), &j.Errors); err != nil {
		return nil, fmt.Errorf("job %s errors: %w", j.ID, err)
	}
	j.StartedAt = time.UnixMilli(started).UTC()
	if finished.Valid {
		t := time.UnixMilli(finished.Int64).UTC()
		j.FinishedAt = &t
	}
	j.Beat = time.UnixMilli(beat).UTC()
	return &j, nil
}

// Categories implements transfer.Store.
func (s *TransferStore) Categories(ctx context.Context) ([]*catalog.Category, error) {
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories ORDER BY level, seq`)
	if err != nil {
		return nil, fmt.Errorf("categories: %w", err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("categories: %w", s.db.translate(err))
	}
	return cs, nil
}

// ProductSKUs implements transfer.Store.
func (s *TransferStore) ProductSKUs(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	err := s.pairs(ctx, `SELECT id, sku FROM products WHERE id IN (%s)`, ids, func(rows *sql.Rows) error {
		var id, sku string
		if err := rows.Scan(&id, &sku); err != nil {
			return err
		}
		out[id] = sku
		return nil
	})
	return out, err
}

// Stocks implements transfer.Store.
func (s *TransferStore) Stocks(ctx context.Context, ids []string) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	err := s.pairs(ctx, `SELECT product_id, warehouse_id, quantity FROM stock WHERE product_id IN (%s)`, ids, func(rows *sql.Rows) error {
		var id, wh string
		var q int64
		if err := rows.Scan(&id, &wh, &q); err != nil {
			return err
		}
		if out[id] == nil {
			out[id] = map[string]int64{}
		}
		out[id][wh] = q
		return nil
	})
	return out, err
}

func (s *TransferStore) pairs(ctx context.Context, q string, ids []string, scan func(*sql.Rows) error) error {
	for _, chunk := range catalogChunks(ids) {
		rows, err := s.db.Query(ctx, fmt.Sprintf(q, Placeholders(len(chunk))), catalogArgs(chunk)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return s.db.translate(err)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.db.translate(err)
		}
	}
	return nil
}

func (s *TransferStore) strings(ctx context.Context, q string) ([]string, error) {
	rows, err := s.db.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, v)
	}
	return out, s.db.translate(rows.Err())
}

// Warehouses implements transfer.Store.
func (s *TransferStore) Warehouses(ctx context.Context) ([]string, error) {
	return s.strings(ctx, `SELECT DISTINCT warehouse_id FROM stock ORDER BY warehouse_id`)
}

// Currencies implements transfer.Store.
func (s *TransferStore) Currencies(ctx context.Context) ([]string, error) {
	return s.strings(ctx, `SELECT DISTINCT currency FROM product_prices ORDER BY currency`)
}

// Orders implements transfer.Store.
func (s *TransferStore) Orders(ctx context.Context, f order.Filter) ([]*order.Order, error) {
	return s.orders.Orders(ctx, f)
}

// LockProducts implements transfer.Tx: one query for a batch's products.
func (t transferTx) LockProducts(ctx context.Context, ids []string) (map[string]transfer.Locked, error) {
	out := make(map[string]transfer.Locked, len(ids))
	var ps []*catalog.Product
	for _, chunk := range catalogChunks(ids) {
		rows, err := t.tx.Query(ctx, `SELECT version, doc FROM products WHERE id IN (`+Placeholders(len(chunk))+`)`+t.tx.ForUpdate(), catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("lock products: %w", err)
		}
		for rows.Next() {
			var version int64
			var doc string
			if err := rows.Scan(&version, &doc); err != nil {
				rows.Close()
				return nil, fmt.Errorf("lock products: %w", t.tx.Translate(err))
			}
			p, err := decodeProduct(doc)
			if err != nil {
				rows.Close()
				return nil, err
			}
			ps = append(ps, p)
			out[p.ID] = transfer.Locked{Product: p, Version: version}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("lock products: %w", t.tx.Translate(err))
		}
	}
	if err := catalogFillVariants(ctx, t.tx, ps); err != nil {
		return nil, fmt.Errorf("lock products: variants: %w", err)
	}
	return out, nil
}

// LockStocks implements transfer.Tx.
func (t transferTx) LockStocks(ctx context.Context, ids []string) (map[string]map[string]stock.Stock, error) {
	out := map[string]map[string]stock.Stock{}
	for _, chunk := range catalogChunks(ids) {
		rows, err := t.tx.Query(ctx, `SELECT product_id, warehouse_id, quantity, reserved FROM stock WHERE product_id IN (`+
			Placeholders(len(chunk))+`)`+t.tx.ForUpdate(), catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("lock stock: %w", err)
		}
		for rows.Next() {
			var st stock.Stock
			if err := rows.Scan(&st.ProductID, &st.WarehouseID, &st.Quantity, &st.Reserved); err != nil {
				rows.Close()
				return nil, fmt.Errorf("lock stock: %w", t.tx.Translate(err))
			}
			if out[st.ProductID] == nil {
				out[st.ProductID] = map[string]stock.Stock{}
			}
			out[st.ProductID][st.WarehouseID] = st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("lock stock: %w", t.tx.Translate(err))
		}
	}
	return out, nil
}

// CreateStocks implements transfer.Tx: multi-row inserts.
func (t transferTx) CreateStocks(ctx context.Context, sts []stock.Stock) error {
	rows := make([][]any, len(sts))
	for i, st := range sts {
		rows[i] = []any{st.ProductID, st.WarehouseID, st.Quantity}
	}
	if err := (catalogTx(t)).insertRows(ctx, `INSERT INTO stock (product_id, warehouse_id, quantity) VALUES `, 3, rows); err != nil {
		return fmt.Errorf("create stock: %w", err)
	}
	return nil
}
