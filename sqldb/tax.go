package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/commercekit/commerce"
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

// CreateTax stores a new tax.
func (s *TaxStore) CreateTax(ctx context.Context, t tax.Tax) error {
	return s.db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO taxes (`+taxColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			t.ID, t.Code, t.Class, t.Title, t.Description, t.Rate.String(), t.IsPercentage)
		if err != nil {
			return fmt.Errorf("insert tax: %w", err)
		}
		return nil
	})
}

// Tax returns the tax with the id, or tax_not_found.
func (s *TaxStore) Tax(ctx context.Context, id string) (tax.Tax, error) {
	t, err := scanTax(s.db.QueryRow(ctx, `SELECT `+taxColumns+` FROM taxes WHERE id = ?`, id))
	if err != nil {
		return tax.Tax{}, s.db.NotFound(err, commerce.NewError(commerce.ETaxNotFound, id))
	}
	return t, nil
}

// UpdateTax reads the tax locked, applies change and stores it, in one
// transaction.
func (s *TaxStore) UpdateTax(ctx context.Context, id string, change func(t *tax.Tax) error) (tax.Tax, error) {
	var out tax.Tax
	err := s.db.Update(ctx, func(tx *Tx) error {
		t, err := scanTax(tx.QueryRow(ctx, `SELECT `+taxColumns+` FROM taxes WHERE id = ?`+s.db.ForUpdate(), id))
		if err != nil {
			return s.db.NotFound(err, commerce.NewError(commerce.ETaxNotFound, id))
		}
		if err := change(&t); err != nil {
			return err
		}
		t.ID = id
		_, err = tx.Exec(ctx, `UPDATE taxes SET code = ?, class = ?, title = ?, description = ?, rate = ?, is_percentage = ? WHERE id = ?`,
			t.Code, t.Class, t.Title, t.Description, t.Rate.String(), t.IsPercentage, id)
		if err != nil {
			return fmt.Errorf("update tax: %w", err)
		}
		out = t
		return nil
	})
	if err != nil {
		return tax.Tax{}, err
	}
	return out, nil
}

// RemoveTax deletes the tax and returns it, or tax_not_found.
func (s *TaxStore) RemoveTax(ctx context.Context, id string) (tax.Tax, error) {
	var out tax.Tax
	err := s.db.Update(ctx, func(tx *Tx) error {
		t, err := scanTax(tx.QueryRow(ctx, `DELETE FROM taxes WHERE id = ? RETURNING `+taxColumns, id))
		if err != nil {
			return s.db.NotFound(err, commerce.NewError(commerce.ETaxNotFound, id))
		}
		out = t
		return nil
	})
	if err != nil {
		return tax.Tax{}, err
	}
	return out, nil
}

// Taxes returns the taxes matching f in creation order. The list filters
// and paging run in SQL; the regex filters, when given, run in Go on the
// rows the other filters leave (exact RE2 semantics on both databases),
// and then the paging too.
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
	var match func(tax.Tax) bool
	if f.Title != nil || f.Description != nil {
		match = func(t tax.Tax) bool {
			return (f.Title == nil || f.Title.MatchString(t.Title)) && (f.Description == nil || f.Description.MatchString(t.Description))
		}
	}
	out, err := listPage(ctx, s.db, `SELECT `+taxColumns+` FROM taxes`+w.String()+` ORDER BY seq`,
		w.args, f.Limit, f.Skip, scanTax, match)
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
	if err != nil {
		return nil, fmt.Errorf("taxes by code: %w", err)
	}
	defer rows.Close()
	var out []tax.Tax
	for rows.Next() {
		t, err := scanTax(rows)
		if err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.db.translate(fmt.Errorf("taxes by code: %w", err))
	}
	return out, nil
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
