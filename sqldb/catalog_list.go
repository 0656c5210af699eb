package sqldb

import (
	"context"
	"database/sql"
	"fmt"

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
	res := []regexFilter{{"p.title", "title", pattern(f.Title)},
		{"p.description", "description", pattern(f.Description)}, {"p.brand", "brand", pattern(f.Brand)}}
	regex, err := w.regexes(s.db, res)
	if err != nil {
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
	err = s.listQuery(ctx, q, append(w.args, f.Limit, f.Skip), regex, res, func(rows *sql.Rows) (err error) {
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
	res := []regexFilter{{"title", "title", pattern(f.Title)},
		{"description", "description", pattern(f.Description)}, {"path", "path", path}}
	regex, err := w.regexes(s.db, res)
	if err != nil {
		return nil, err
	}
	var cs []*catalog.Category
	q := `SELECT ` + catalogCategoryColumns + ` FROM categories` + w.String() + ` ORDER BY seq LIMIT ? OFFSET ?`
	err = s.listQuery(ctx, q, append(w.args, f.Limit, f.Skip), regex, res, func(rows *sql.Rows) (err error) {
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

// listQuery runs a list query and hands its rows to scan, as listPage
// does (DB.listRead: in RegexView when regex conditions were added).
func (s *CatalogStore) listQuery(ctx context.Context, q string, args []any, regex bool, res []regexFilter, scan func(*sql.Rows) error) error {
	return s.db.listRead(ctx, regex, res, func(query queryFunc) error {
		rows, err := query(ctx, q, args...)
		if err != nil {
			return err
		}
		return s.db.translate(scan(rows))
	})
}
