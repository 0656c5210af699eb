package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

// catalogScanProducts reads rows of (doc) into products (decodeProduct).
func catalogScanProducts(rows *sql.Rows) ([]*catalog.Product, error) {
	defer rows.Close()
	var out []*catalog.Product
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, err
		}
		p, err := decodeProduct(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// catalogFillVariants sets Variants of the Base products among ps, in one query
// per chunk of bases.
func catalogFillVariants(ctx context.Context, q catalogQuerier, ps []*catalog.Product) error {
	bases := map[string]*catalog.Product{}
	var ids []string
	for _, p := range ps {
		if p.IsBase() {
			p.Variants = []string{}
			if bases[p.ID] == nil {
				ids = append(ids, p.ID)
			}
			bases[p.ID] = p
		}
	}
	for _, chunk := range catalogChunks(ids) {
		rows, err := q.Query(ctx, `SELECT base, id FROM products WHERE base IN (`+Placeholders(len(chunk))+`) ORDER BY seq`, catalogArgs(chunk)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var base, id string
			if err := rows.Scan(&base, &id); err != nil {
				rows.Close()
				return err
			}
			bases[base].Variants = append(bases[base].Variants, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	// The same base may appear twice in ps (several pointers).
	for _, p := range ps {
		if b := bases[p.ID]; b != nil && b != p {
			p.Variants = b.Variants
		}
	}
	return nil
}

// Product returns a product (catalog.Store).
func (s *CatalogStore) Product(ctx context.Context, id string) (*catalog.Product, error) {
	rows, err := s.db.Query(ctx, `SELECT doc FROM products WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("product %s: %w", id, err)
	}
	ps, err := catalogScanProducts(rows)
	if err != nil {
		return nil, fmt.Errorf("product %s: %w", id, s.db.translate(err))
	}
	if len(ps) == 0 {
		return nil, catalog.ProductNotFound(id)
	}
	if err := catalogFillVariants(ctx, s.db, ps); err != nil {
		return nil, fmt.Errorf("product %s: variants: %w", id, err)
	}
	return ps[0], nil
}

// Products returns the products that exist among ids (catalog.Store).
func (s *CatalogStore) Products(ctx context.Context, ids []string) (map[string]*catalog.Product, error) {
	out := make(map[string]*catalog.Product, len(ids))
	var all []*catalog.Product
	for _, chunk := range catalogChunks(ids) {
		rows, err := s.db.Query(ctx, `SELECT doc FROM products WHERE id IN (`+Placeholders(len(chunk))+`)`, catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("products: %w", err)
		}
		ps, err := catalogScanProducts(rows)
		if err != nil {
			return nil, fmt.Errorf("products: %w", s.db.translate(err))
		}
		all = append(all, ps...)
	}
	if err := catalogFillVariants(ctx, s.db, all); err != nil {
		return nil, fmt.Errorf("products: variants: %w", err)
	}
	for _, p := range all {
		out[p.ID] = p
	}
	return out, nil
}

// ProductCategoryPaths returns the category paths of products
// (catalog.Store): their own categories', or their base's when they have
// none.
func (s *CatalogStore) ProductCategoryPaths(ctx context.Context, ids []string) (map[string][]string, error) {
	out := make(map[string][]string, len(ids))
	for _, chunk := range catalogChunks(ids) {
		ph := Placeholders(len(chunk))
		args := catalogArgs(chunk)
		q := `SELECT p.id, NULL FROM products p WHERE p.id IN (` + ph + `)
			UNION ALL
			SELECT p.id, c.path FROM products p
				JOIN product_categories pc ON pc.product_seq = p.seq
				JOIN categories c ON c.id = pc.category_id
				WHERE p.id IN (` + ph + `)
			UNION ALL
			SELECT p.id, c.path FROM products p
				JOIN products b ON b.id = p.base
				JOIN product_categories pc ON pc.product_seq = b.seq
				JOIN categories c ON c.id = pc.category_id
				WHERE p.id IN (` + ph + `)
				AND NOT EXISTS (SELECT 1 FROM product_categories x WHERE x.product_seq = p.seq)`
		rows, err := s.db.Query(ctx, q, append(append(append([]any{}, args...), args...), args...)...)
		if err != nil {
			return nil, fmt.Errorf("product categories: %w", err)
		}
		for rows.Next() {
			var id string
			var path sql.NullString
			if err := rows.Scan(&id, &path); err != nil {
				rows.Close()
				return nil, fmt.Errorf("product categories: %w", s.db.translate(err))
			}
			if path.Valid {
				out[id] = append(out[id], path.String)
			} else if out[id] == nil {
				out[id] = []string{}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("product categories: %w", s.db.translate(err))
		}
	}
	return out, nil
}

// Product reads a product and its version, locked when asked (catalog.Tx).
func (t catalogTx) Product(ctx context.Context, id string, lock bool) (*catalog.Product, int64, error) {
	q := `SELECT version, doc FROM products WHERE id = ?`
	if lock {
		q += t.tx.ForUpdate()
	}
	var version int64
	var doc string
	err := t.tx.QueryRow(ctx, q, id).Scan(&version, &doc)
	if err != nil {
		return nil, 0, t.tx.db.NotFound(err, catalog.ProductNotFound(id))
	}
	p, err := decodeProduct(doc)
	if err != nil {
		return nil, 0, err
	}
	if err := catalogFillVariants(ctx, t.tx, []*catalog.Product{p}); err != nil {
		return nil, 0, fmt.Errorf("product %s variants: %w", id, err)
	}
	return p, version, nil
}

// ProductBases returns the base of each existing product (catalog.Tx).
func (t catalogTx) ProductBases(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, chunk := range catalogChunks(ids) {
		rows, err := t.tx.Query(ctx, `SELECT id, base FROM products WHERE id IN (`+Placeholders(len(chunk))+`)`, catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("product bases: %w", err)
		}
		for rows.Next() {
			var id string
			var base sql.NullString
			if err := rows.Scan(&id, &base); err != nil {
				rows.Close()
				return nil, fmt.Errorf("product bases: %w", t.tx.Translate(err))
			}
			out[id] = base.String
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("product bases: %w", t.tx.Translate(err))
		}
	}
	return out, nil
}

// HasVariants reports whether a product is some product's base (catalog.Tx).
func (t catalogTx) HasVariants(ctx context.Context, id string) (bool, error) {
	var n int
	err := t.tx.QueryRow(ctx, `SELECT CASE WHEN EXISTS (SELECT 1 FROM products WHERE base = ?) THEN 1 ELSE 0 END`, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("product %s variants: %w", id, t.tx.Translate(err))
	}
	return n == 1, nil
}

// catalogProductColumns are the columns of products a write sets: the
// filterable scalars, the version and the stored form (doc).
const catalogProductColumns = `id, sku, status, title, description, brand, tax_code, stock_status, is_net_price, base, version, doc, i18n_title, i18n_text`

// catalogProductRow returns the values of catalogProductColumns for p.
func catalogProductRow(p *catalog.Product, version int64) ([]any, error) {
	doc, err := encodeProduct(p)
	if err != nil {
		return nil, err
	}
	i18nTitle, i18nText := catalogI18n(p)
	return []any{p.ID, p.SKU, p.Status, p.Title, catalogNull(p.Description), catalogNull(p.Brand), p.TaxCode,
		p.StockStatus, p.IsNetPrice, catalogNull(p.Base), version, doc, i18nTitle, i18nText}, nil
}

func catalogSKUDuplicate(err error, sku string) error {
	if commerce.ErrorCode(err) == commerce.EDuplicateKey {
		return &commerce.Error{Code: commerce.EDuplicateKey, Message: err.Error(),
			Data: map[string]any{"index": "sku", "sku": sku}}
	}
	return err
}

// CreateProducts inserts products with multi-row INSERTs (catalog.Tx).
func (t catalogTx) CreateProducts(ctx context.Context, ps []*catalog.Product) error {
	for len(ps) > 0 {
		n := min(len(ps), catalogBatch)
		if err := t.createBatch(ctx, ps[:n]); err != nil {
			return err
		}
		ps = ps[n:]
	}
	return nil
}

func (t catalogTx) createBatch(ctx context.Context, ps []*catalog.Product) error {
	if len(ps) > 1 {
		// Find a duplicate sku first, to name it (a violation of the
		// unique index would not say which).
		skus := make([]string, len(ps))
		seen := map[string]bool{}
		for i, p := range ps {
			if seen[p.SKU] {
				return catalogSKUDuplicate(commerce.NewError(commerce.EDuplicateKey, nil), p.SKU)
			}
			seen[p.SKU] = true
			skus[i] = p.SKU
		}
		var dup string
		err := t.tx.QueryRow(ctx, `SELECT sku FROM products WHERE sku IN (`+Placeholders(len(skus))+`) LIMIT 1`, catalogArgs(skus)...).Scan(&dup)
		if err == nil {
			return catalogSKUDuplicate(commerce.NewError(commerce.EDuplicateKey, nil), dup)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("create products: %w", t.tx.Translate(err))
		}
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO products (` + catalogProductColumns + `) VALUES `)
	args := make([]any, 0, 14*len(ps))
	texts := make([]IndexText, len(ps))
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		row, err := catalogProductRow(p, 1)
		if err != nil {
			return err
		}
		args = append(args, row...)
		// The columns of catalogProductColumns: id, sku, status, title,
		// description, brand, ..., i18n_title, i18n_text.
		texts[i] = IndexText{Title: p.Title, SKU: p.SKU, Description: catalogText(row[4]), Brand: catalogText(row[5]),
			I18nTitle: catalogText(row[12]), I18nText: catalogText(row[13])}
	}
	rows, err := t.tx.Query(ctx, t.tx.db.dialect.Returning(b.String(), "seq, id"), args...)
	if err != nil {
		return fmt.Errorf("create products: %w", catalogSKUDuplicate(err, ps[0].SKU))
	}
	seqs := make(map[string]int64, len(ps))
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			rows.Close()
			return fmt.Errorf("create products: %w", t.tx.Translate(err))
		}
		seqs[id] = seq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("create products: %w", catalogSKUDuplicate(t.tx.Translate(err), ps[0].SKU))
	}
	if err := t.insertSides(ctx, ps, seqs); err != nil {
		return err
	}
	for i, p := range ps {
		texts[i].Seq = seqs[p.ID]
	}
	return t.tx.db.dialect.IndexProducts(ctx, t.tx, texts)
}

// catalogText is the text of a column value of catalogProductRow: "" for
// NULL (catalogNull's nil).
func catalogText(v any) string {
	s, _ := v.(string)
	return s
}

// insertSides writes the category, price and media rows of products.
func (t catalogTx) insertSides(ctx context.Context, ps []*catalog.Product, seqs map[string]int64) error {
	var cats, prices, medias [][]any
	for _, p := range ps {
		seq, ok := seqs[p.ID]
		if !ok {
			return fmt.Errorf("product %s: no seq returned", p.ID)
		}
		for _, c := range p.Categories {
			cats = append(cats, []any{c, seq})
		}
		for _, pr := range p.Prices {
			prices = append(prices, []any{seq, pr.ID, pr.Amount, pr.Currency, catalogNull(pr.Country), catalogNull(pr.CustomerType), catalogNull(pr.Channel)})
		}
		for _, m := range p.Medias {
			medias = append(medias, []any{seq, m.ID})
		}
	}
	err := t.insertRows(ctx, `INSERT INTO product_categories (category_id, product_seq) VALUES `, 2, cats)
	if IsForeignKey(err) {
		// A category was removed after the product was checked.
		var id any
		if len(ps) > 0 && len(ps[0].Categories) > 0 {
			id = ps[0].Categories[0]
		}
		return commerce.NewError(commerce.ECategoryNotFound, id)
	}
	if err != nil {
		return fmt.Errorf("product categories: %w", err)
	}
	if err := t.insertRows(ctx, `INSERT INTO product_prices (product_seq, price_id, amount, currency, country, customer_type, channel) VALUES `, 7, prices); err != nil {
		return fmt.Errorf("product prices: %w", err)
	}
	if err := t.insertRows(ctx, `INSERT INTO product_medias (product_seq, media_id) VALUES `, 2, medias); err != nil {
		return fmt.Errorf("product medias: %w", err)
	}
	var owners []slugOwner
	for _, p := range ps {
		if len(p.Translations) > 0 {
			owners = append(owners, slugOwner{p.ID, p.Translations})
		}
	}
	return t.writeSlugs(ctx, slugKindProduct, owners)
}

// UpdateProduct stores a product under its version (catalog.Tx).
func (t catalogTx) UpdateProduct(ctx context.Context, p *catalog.Product, version int64) error {
	row, err := catalogProductRow(p, version+1)
	if err != nil {
		return err
	}
	var seq int64
	err = t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`UPDATE products SET sku = ?, status = ?, title = ?, description = ?, brand = ?,
		tax_code = ?, stock_status = ?, is_net_price = ?, base = ?, version = ?, doc = ?, i18n_title = ?, i18n_text = ?
		WHERE id = ? AND version = ?`, "seq"), append(row[1:], p.ID, version)...).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return commerce.Errorf(commerce.EProductNotSaved, "product %s changed since version %d", p.ID, version)
	}
	if err != nil {
		return fmt.Errorf("update product: %w", catalogSKUDuplicate(t.tx.Translate(err), p.SKU))
	}
	for _, table := range []string{"product_categories", "product_prices", "product_medias"} {
		if _, err := t.tx.Exec(ctx, `DELETE FROM `+table+` WHERE product_seq = ?`, seq); err != nil {
			return fmt.Errorf("update product: %w", err)
		}
	}
	if err := t.removeSlugs(ctx, slugKindProduct, p.ID); err != nil {
		return err
	}
	return t.insertSides(ctx, []*catalog.Product{p}, map[string]int64{p.ID: seq})
}

// RemoveProduct deletes a product with its side rows and its stock
// records, reservations included (catalog.Tx; stockTx.removeProduct). The
// product's row goes first: a stock.create holding it
// (stock.Tx.LockProduct) commits before the stock is deleted here, and one
// that comes later finds no product.
func (t catalogTx) RemoveProduct(ctx context.Context, id string) error {
	var seq int64
	err := t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`DELETE FROM products WHERE id = ?`, "seq"), id).Scan(&seq)
	if err != nil {
		return t.tx.db.NotFound(err, catalog.ProductNotFound(id))
	}
	for _, table := range []string{"product_categories", "product_prices", "product_medias"} {
		if _, err := t.tx.Exec(ctx, `DELETE FROM `+table+` WHERE product_seq = ?`, seq); err != nil {
			return fmt.Errorf("remove product: %w", err)
		}
	}
	if err := t.removeSlugs(ctx, slugKindProduct, id); err != nil {
		return err
	}
	return stockTx(t).removeProduct(ctx, id)
}
