package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/tax"
)

// TaxStore keeps the taxes (tax.Store).
type TaxStore struct {
	db *DB
}

// NewTaxStore returns the tax store of db.
func NewTaxStore(db *DB) *TaxStore { return &TaxStore{db: db} }

var _ tax.Store = (*TaxStore)(nil)

const taxColumns = `id, code, class, title, description, rate, is_percentage`

var taxTable = newRecordTable("tax", "taxes", taxColumns, scanTax, tax.NotFound)

// Update implements tax.Store; it moves the taxes' version.
func (s *TaxStore) Update(ctx context.Context, fn func(tx tax.Tx) error) error {
	return s.db.updateVersioned(ctx, versionTaxes, func(tx *Tx) error { return fn(taxTx{tx}) })
}

// Version implements tax.Store.
func (s *TaxStore) Version(ctx context.Context) (int64, error) {
	return s.db.areaVersion(ctx, versionTaxes)
}

// Tax implements tax.Store.
func (s *TaxStore) Tax(ctx context.Context, id string) (tax.Tax, error) {
	return taxTable.get(ctx, s.db, id)
}

// taxTx implements tax.Tx over a transaction.
type taxTx struct{ tx *Tx }

// Emit implements tax.Tx.
func (t taxTx) Emit(e event.Event) { t.tx.Emit(e) }

// Tax implements tax.Tx: SELECT ... FOR UPDATE on PostgreSQL (SQLite
// serialises its writers).
func (t taxTx) Tax(ctx context.Context, id string) (tax.Tax, error) {
	return taxTable.lock(ctx, t.tx, id)
}

// CreateTax implements tax.Tx.
func (t taxTx) CreateTax(ctx context.Context, v tax.Tax) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO taxes (`+taxColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		v.ID, v.Code, v.Class, v.Title, v.Description, v.Rate.String(), v.IsPercentage)
	if err != nil {
		return fmt.Errorf("insert tax: %w", err)
	}
	return nil
}

// UpdateTax implements tax.Tx.
func (t taxTx) UpdateTax(ctx context.Context, v tax.Tax) error {
	res, err := t.tx.Exec(ctx, `UPDATE taxes SET code = ?, class = ?, title = ?, description = ?, rate = ?, is_percentage = ? WHERE id = ?`,
		v.Code, v.Class, v.Title, v.Description, v.Rate.String(), v.IsPercentage, v.ID)
	return taxTable.updated(t.tx, v.ID, res, err)
}

// RemoveTax implements tax.Tx.
func (t taxTx) RemoveTax(ctx context.Context, id string) (tax.Tax, error) {
	return taxTable.remove(ctx, t.tx, id)
}

// Taxes implements tax.Store: every filter, the regex ones included, and
// the paging run in SQL.
func (s *TaxStore) Taxes(ctx context.Context, f tax.Filter) ([]tax.Tax, error) {
	var w where
	w.in("id", f.IDs)
	w.in("code", f.Codes)
	w.in("class", f.Classes)
	if f.Rate != nil {
		w.add(`rate = ?`, f.Rate.String())
	}
	if f.IsPercentage != nil {
		w.add(`is_percentage = ?`, *f.IsPercentage)
	}
	out, err := listPage(ctx, s.db, `SELECT `+taxColumns+` FROM taxes`, `ORDER BY seq`, &w, []regexFilter{
		{col: `title`, field: `title`, pattern: pattern(f.Title)},
		{col: `description`, field: `description`, pattern: pattern(f.Description)},
	}, f.Limit, f.Skip, scanTax)
	if err != nil {
		return nil, fmt.Errorf("list taxes: %w", err)
	}
	return out, nil
}

// TaxesByCode returns the taxes of the codes in creation order, in one
// query (index taxes_code).
func (s *TaxStore) TaxesByCode(ctx context.Context, codes []string) ([]tax.Tax, error) {
	if len(codes) == 0 {
		return nil, nil
	}
	args := make([]any, len(codes))
	for i, c := range codes {
		args[i] = c
	}
	rows, err := s.db.Query(ctx, `SELECT `+taxColumns+` FROM taxes WHERE code IN (`+Placeholders(len(codes))+`) ORDER BY seq`, args...)
	return scanAll(s.db, "taxes by code", nil, rows, err, scanTax)
}

// scanTax reads a row of taxColumns; sql.ErrNoRows is returned as is for
// NotFound.
func scanTax(row rowScanner) (tax.Tax, error) {
	var t tax.Tax
	var rate string
	if err := row.Scan(&t.ID, &t.Code, &t.Class, &t.Title, &t.Description, &rate, &t.IsPercentage); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return tax.Tax{}, err
		}
		return tax.Tax{}, fmt.Errorf("scan tax: %w", err)
	}
	d, err := money.ParseDecimal(rate)
	if err != nil {
		return tax.Tax{}, fmt.Errorf("tax %s: stored rate %q: %w", t.ID, rate, err)
	}
	t.Rate = d
	return t, nil
}
