package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

// ListProducts returns a page of products (catalog.Store).
func (s *CatalogStore) ListProducts(ctx context.Context, f catalog.ProductFilter) ([]*catalog.Product, error) {
	var w where
	w.in("p.id", f.IDs)
	w.in("p.sku", f.SKUs)
	w.in("p.status", f.Statuses)
	w.in("p.tax_code", f.TaxCodes)
	w.in("p.base", f.Bases)
	if len(f.StockStatuses) > 0 {
		w.add("p.stock_status IN ("+Placeholders(len(f.StockStatuses))+")", catalogArgs(f.StockStatuses)...)
	}
	if f.IsNetPrice != nil {
		w.add("p.is_net_price = ?", *f.IsNetPrice)
	}
	res := catalogRegexFilters(catalogRe{"p.title", "title", pattern(f.Title)},
		catalogRe{"p.description", "description", pattern(f.Description)}, catalogRe{"p.brand", "brand", pattern(f.Brand)})
	if err := catalogRegexes(s.db, &w, res); err != nil {
		return nil, err
	}
	from, order := `products p`, `p.seq`
	switch {
	case len(f.Categories) == 1:
		// One category (a storefront page): walk its memberships in
		// creation order on the (category_id, product_seq) key and stop at
		// the page's end, instead of sorting all of them.
		from, order = `product_categories pc JOIN products p ON p.seq = pc.product_seq`, `pc.product_seq`
		w.add("pc.category_id = ?", f.Categories[0])
	case len(f.Categories) > 1:
		w.add("p.seq IN (SELECT product_seq FROM product_categories WHERE category_id IN ("+Placeholders(len(f.Categories))+"))", catalogArgs(f.Categories)...)
	}
	var pw where
	pw.in("price_id", f.PriceIDs)
	pw.in("currency", f.PriceCurrencies)
	pw.in("country", f.PriceCountries)
	pw.in("customer_type", f.PriceCustomerTypes)
	pw.in("channel", f.PriceChannels)
	if len(pw.conds) > 0 {
		w.add("p.seq IN (SELECT product_seq FROM product_prices"+pw.String()+")", pw.args...)
	}
	if len(f.MediaIDs) > 0 {
		w.add("p.seq IN (SELECT product_seq FROM product_medias WHERE media_id IN ("+Placeholders(len(f.MediaIDs))+"))", catalogArgs(f.MediaIDs)...)
	}
	q := `SELECT p.doc FROM ` + from + w.String() + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	var ps []*catalog.Product
	err := s.listQuery(ctx, q, append(w.args, f.Limit, f.Skip), res, func(rows *sql.Rows) (err error) {
		ps, err = catalogScanProducts(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list products: %w", err)
	}
	if err := catalogFillVariants(ctx, s.db, ps); err != nil {
		return nil, fmt.Errorf("list products: variants: %w", err)
	}
	if ps == nil {
		ps = []*catalog.Product{}
	}
	return ps, nil
}

// ListCategories returns a page of categories (catalog.Store).
func (s *CatalogStore) ListCategories(ctx context.Context, f catalog.CategoryFilter) ([]*catalog.Category, error) {
	var w where
	w.in("id", f.IDs)
	w.in("slug", f.Slugs)
	w.in("parent", f.Parents)
	path := pattern(f.Path)
	if path != "" {
		path = "^(?:" + path + ")" // at the start of the path only
	}
	res := catalogRegexFilters(catalogRe{"title", "title", pattern(f.Title)},
		catalogRe{"description", "description", pattern(f.Description)}, catalogRe{"path", "path", path})
	if err := catalogRegexes(s.db, &w, res); err != nil {
		return nil, err
	}
	var cs []*catalog.Category
	q := `SELECT ` + catalogCategoryColumns + ` FROM categories` + w.String() + ` ORDER BY seq LIMIT ? OFFSET ?`
	err := s.listQuery(ctx, q, append(w.args, f.Limit, f.Skip), res, func(rows *sql.Rows) (err error) {
		cs, err = catalogScanCategories(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list categories: %w", err)
	}
	if cs == nil {
		cs = []*catalog.Category{}
	}
	return cs, nil
}

// listQuery runs a list query and hands its rows to scan. With regex
// filters the query runs in RegexView (its own small pool, under the
// database's regex time limit); its errors, and those of scan, are turned
// into validation_error by catalogRegexError where the pattern is to blame.
func (s *CatalogStore) listQuery(ctx context.Context, q string, args []any, res []catalogRe, scan func(*sql.Rows) error) error {
	run := func(qr catalogQuerier) error {
		rows, err := qr.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		return s.db.translate(scan(rows))
	}
	var err error
	if len(res) > 0 {
		err = s.db.RegexView(ctx, func(tx *Tx) error { return run(tx) })
	} else {
		err = run(s.db)
	}
	return catalogRegexError(err, res)
}

// catalogRe is a regex filter: the column, the filter's field name and the
// pattern ("" when not given).
type catalogRe struct{ col, field, pattern string }

// catalogRegexFilters returns the regex filters that are given.
func catalogRegexFilters(all ...catalogRe) []catalogRe {
	var out []catalogRe
	for _, re := range all {
		if re.pattern != "" {
			out = append(out, re)
		}
	}
	return out
}

// pattern returns the text of a pattern, "" when not given (an empty
// pattern filters nothing out either).
func pattern(p *commerce.Pattern) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// catalogRegexes adds the condition matching each given pattern to w
// (DB.Regex). A pattern the database cannot match as RE2 does is a
// validation_error naming the field.
func catalogRegexes(db *DB, w *where, res []catalogRe) error {
	for _, re := range res {
		cond, arg, err := db.Regex(re.col, re.pattern)
		if err != nil {
			return commerce.Invalid(re.field + ": " + err.Error())
		}
		w.add(cond, arg)
	}
	return nil
}

// catalogRegexError turns a regex read stopped at the time limit
// (ErrPatternTimeout) or a pattern the database refused to compile
// (ErrPatternRejected, e.g. PostgreSQL's "regular expression is too
// complex") into a validation_error naming the regex fields given (the
// store cannot tell which of several patterns is to blame); the database's
// message goes no further than the error's Message (the log).
func catalogRegexError(err error, res []catalogRe) error {
	var msg string
	switch {
	case errors.Is(err, ErrPatternTimeout):
		msg = ErrPatternTimeout.Error()
	case errors.Is(err, ErrPatternRejected):
		msg = "the regular expression is too complex for this database"
	default:
		return err
	}
	if len(res) == 0 {
		return err
	}
	var ps commerce.Problems
	for _, re := range res {
		ps.Add(re.field, "%s", msg)
	}
	e := commerce.Invalid(ps...)
	e.Message = err.Error()
	e.Err = err
	return e
}
