package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
)

// CatalogStore is the catalog's storage (catalog.Store). Products keep
// their filterable scalars in columns and the whole record as JSON (doc);
// side tables hold category membership, prices and medias for the list
// filters. Categories keep their fields in columns (level and path of a
// whole subtree change in one statement on a move) and their
// classification definitions as JSON.
type CatalogStore struct {
	db *DB
}

// NewCatalogStore returns the catalog's storage over db.
func NewCatalogStore(db *DB) *CatalogStore {
	return &CatalogStore{db: db}
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
	if catalogAnyRegex(res) {
		err = s.db.RegexView(ctx, func(tx *Tx) error { return run(tx) })
	} else {
		err = run(s.db)
	}
	return catalogRegexError(err, res)
}

// catalogAnyRegex reports whether a regex filter is given.
func catalogAnyRegex(res []catalogRe) bool {
	for _, re := range res {
		if re.pattern != "" {
			return true
		}
	}
	return false
}

var _ catalog.Store = (*CatalogStore)(nil)

// CatalogTx returns the catalog's view of a transaction, for a use case of
// another area that must change or read the catalog atomically with its own
// change.
func CatalogTx(tx *Tx) catalog.Tx { return catalogTx{tx} }

// catalogBatch is how many products one multi-row INSERT writes.
const catalogBatch = 200

// catalogInChunk is how many values one IN list carries at most.
const catalogInChunk = 500

// catalogQuerier is what reads need: a DB or a Tx.
type catalogQuerier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// Update runs fn in a write transaction (catalog.Store).
func (s *CatalogStore) Update(ctx context.Context, fn func(tx catalog.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(catalogTx{tx}) })
}

// catalogRegexes adds the condition matching each given pattern to w
// (DB.Regex). A pattern the database cannot match as RE2 does is a
// validation_error naming the field.
func catalogRegexes(db *DB, w *where, res []catalogRe) error {
	for _, re := range res {
		if re.pattern == "" {
			continue
		}
		cond, arg, err := db.Regex(re.col, re.pattern)
		if err != nil {
			return commerce.Invalid(re.field + ": " + err.Error())
		}
		w.add(cond, arg)
	}
	return nil
}

// catalogRe is a regex filter: the column, the filter's field name and the
// pattern ("" when not given).
type catalogRe struct{ col, field, pattern string }

// catalogArgs turns strings into query arguments.
func catalogArgs[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// catalogChunks splits ids into chunks of at most catalogInChunk.
func catalogChunks(ids []string) [][]string {
	var out [][]string
	for len(ids) > catalogInChunk {
		out = append(out, ids[:catalogInChunk])
		ids = ids[catalogInChunk:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}

// catalogFKViolation reports a foreign key violation (as the dialect
// classifies it).
func catalogFKViolation(err error) bool { return IsForeignKey(err) }

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
		msg = "pattern took too long to match"
	case errors.Is(err, ErrPatternRejected):
		msg = "the regular expression is too complex for this database"
	default:
		return err
	}
	var ps []string
	for _, re := range res {
		if re.pattern != "" {
			ps = append(ps, re.field+": "+msg)
		}
	}
	if len(ps) == 0 {
		return err
	}
	e := commerce.Invalid(ps...)
	e.Message = err.Error()
	e.Err = err
	return e
}

// ---- products: reads ----

// catalogScanProducts reads rows of (doc) into products.
func catalogScanProducts(rows *sql.Rows) ([]*catalog.Product, error) {
	defer rows.Close()
	var out []*catalog.Product
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, err
		}
		p := new(catalog.Product)
		if err := json.Unmarshal([]byte(doc), p); err != nil {
			return nil, fmt.Errorf("product doc: %w", err)
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
		return nil, commerce.NewError(commerce.EProductNotFound, id)
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
	res := []catalogRe{{"p.title", "title", f.Title}, {"p.description", "description", f.Description}, {"p.brand", "brand", f.Brand}}
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

// ---- categories: reads ----

const catalogCategoryColumns = `id, parent, slug, title, description, level, path, classifications`

func catalogScanCategories(rows *sql.Rows) ([]*catalog.Category, error) {
	defer rows.Close()
	var out []*catalog.Category
	for rows.Next() {
		c := new(catalog.Category)
		var parent, description sql.NullString
		var classifications string
		if err := rows.Scan(&c.ID, &parent, &c.Slug, &c.Title, &description, &c.Level, &c.Path, &classifications); err != nil {
			return nil, err
		}
		c.Parent = parent.String
		if description.Valid {
			c.Description = &description.String
		}
		if err := json.Unmarshal([]byte(classifications), &c.Classifications); err != nil {
			return nil, fmt.Errorf("category %s classifications: %w", c.ID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Category returns a category (catalog.Store).
func (s *CatalogStore) Category(ctx context.Context, id string) (*catalog.Category, error) {
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("category %s: %w", id, err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("category %s: %w", id, s.db.translate(err))
	}
	if len(cs) == 0 {
		return nil, commerce.NewError(commerce.ECategoryNotFound, id)
	}
	return cs[0], nil
}

// CatalogPathPrefix returns the condition (and its arguments) that selects
// the categories whose path starts with prefix, written so that the
// categories_path index serves it: a bytewise range of the path
// (Dialect.ByteRange), prefix <= path < prefix with its last byte
// incremented. prefix must not be empty and must not end with byte 0xFF
// (paths are ids and dots).
func CatalogPathPrefix(d Dialect, prefix string) (cond string, args []any) {
	upper := []byte(prefix)
	upper[len(upper)-1]++
	return d.ByteRange("path"), []any{prefix, string(upper)}
}

// Descendants returns the subtree below c (catalog.Store).
func (s *CatalogStore) Descendants(ctx context.Context, c *catalog.Category) ([]*catalog.Category, error) {
	cond, args := CatalogPathPrefix(s.db.dialect, c.Path+".")
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE `+cond+` ORDER BY level, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("category %s descendants: %w", c.ID, err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("category %s descendants: %w", c.ID, s.db.translate(err))
	}
	return cs, nil
}

// Children returns the direct children of category id (catalog.Store), on
// the (parent, slug) index.
func (s *CatalogStore) Children(ctx context.Context, id string) ([]*catalog.Category, error) {
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE parent = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("category %s children: %w", id, err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("category %s children: %w", id, s.db.translate(err))
	}
	if cs == nil {
		cs = []*catalog.Category{}
	}
	return cs, nil
}

// ListCategories returns a page of categories (catalog.Store).
func (s *CatalogStore) ListCategories(ctx context.Context, f catalog.CategoryFilter) ([]*catalog.Category, error) {
	var w where
	w.in("id", f.IDs)
	w.in("slug", f.Slugs)
	w.in("parent", f.Parents)
	res := []catalogRe{{"title", "title", f.Title}, {"description", "description", f.Description}}
	if f.Path != "" {
		res = append(res, catalogRe{"path", "path", "^(?:" + f.Path + ")"})
	}
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

// ---- the transaction ----

// catalogTx is catalog.Tx over a Tx.
type catalogTx struct{ tx *Tx }

// Emit queues an event (catalog.Tx).
func (t catalogTx) Emit(e event.Event) { t.tx.Emit(e) }

// LockTree locks the ROOT category's row (catalog.Tx): every change of the
// tree takes it first, so they run one at a time across processes (SQLite
// serialises all writes already).
func (t catalogTx) LockTree(ctx context.Context) error {
	var id string
	err := t.tx.QueryRow(ctx, `SELECT id FROM categories WHERE id = ?`+t.tx.ForUpdate(), catalog.RootID).Scan(&id)
	if err != nil {
		return fmt.Errorf("lock category tree: %w", t.tx.db.NotFound(err, commerce.NewError(commerce.ECategoryNotFound, catalog.RootID)))
	}
	return nil
}

// Categories returns the categories that exist among ids (catalog.Tx).
func (t catalogTx) Categories(ctx context.Context, ids []string) (map[string]*catalog.Category, error) {
	out := make(map[string]*catalog.Category, len(ids))
	for _, chunk := range catalogChunks(ids) {
		rows, err := t.tx.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE id IN (`+Placeholders(len(chunk))+`)`, catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("categories: %w", err)
		}
		cs, err := catalogScanCategories(rows)
		if err != nil {
			return nil, fmt.Errorf("categories: %w", t.tx.Translate(err))
		}
		for _, c := range cs {
			out[c.ID] = c
		}
	}
	return out, nil
}

// CategoryUse reports children and products of a category (catalog.Tx).
func (t catalogTx) CategoryUse(ctx context.Context, id string) (children, products bool, err error) {
	var c, p int
	err = t.tx.QueryRow(ctx, `SELECT
		CASE WHEN EXISTS (SELECT 1 FROM categories WHERE parent = ?) THEN 1 ELSE 0 END,
		CASE WHEN EXISTS (SELECT 1 FROM product_categories WHERE category_id = ?) THEN 1 ELSE 0 END`, id, id).Scan(&c, &p)
	if err != nil {
		return false, false, fmt.Errorf("category %s use: %w", id, t.tx.Translate(err))
	}
	return c == 1, p == 1, nil
}

func catalogSlugDuplicate(err error, c *catalog.Category) error {
	if commerce.ErrorCode(err) == commerce.EDuplicateKey {
		return &commerce.Error{Code: commerce.EDuplicateKey, Message: err.Error(),
			Data: map[string]any{"index": "parent_slug", "parent": c.Parent, "slug": c.Slug}}
	}
	return err
}

func catalogNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func catalogDescription(d *string) any {
	if d == nil {
		return nil
	}
	return *d
}

// CreateCategory inserts a category (catalog.Tx).
func (t catalogTx) CreateCategory(ctx context.Context, c *catalog.Category) error {
	defs, err := json.Marshal(catalogDefs(c.Classifications))
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO categories (`+catalogCategoryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, catalogNull(c.Parent), c.Slug, c.Title, catalogDescription(c.Description), c.Level, c.Path, string(defs))
	if catalogFKViolation(err) {
		return commerce.NewError(commerce.EParentCategoryNotFound, c.Parent)
	}
	if err != nil {
		return fmt.Errorf("create category: %w", catalogSlugDuplicate(err, c))
	}
	return nil
}

func catalogDefs(d []catalog.ClassificationDef) []catalog.ClassificationDef {
	if d == nil {
		return []catalog.ClassificationDef{}
	}
	return d
}

// UpdateCategory stores a category and moves its subtree (catalog.Tx).
func (t catalogTx) UpdateCategory(ctx context.Context, old, c *catalog.Category) error {
	defs, err := json.Marshal(catalogDefs(c.Classifications))
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `UPDATE categories SET parent = ?, slug = ?, title = ?, description = ?, level = ?, path = ?, classifications = ? WHERE id = ?`,
		catalogNull(c.Parent), c.Slug, c.Title, catalogDescription(c.Description), c.Level, c.Path, string(defs), c.ID)
	if catalogFKViolation(err) {
		return commerce.NewError(commerce.EParentCategoryNotFound, c.Parent)
	}
	if err != nil {
		return fmt.Errorf("update category: %w", catalogSlugDuplicate(err, c))
	}
	if c.Path != old.Path {
		oldPrefix, newPrefix := old.Path+".", c.Path+"."
		cond, args := CatalogPathPrefix(t.tx.db.dialect, oldPrefix)
		_, err = t.tx.Exec(ctx, `UPDATE categories SET path = CAST(? AS TEXT) || substr(path, ?), level = level + ?
			WHERE `+cond, append([]any{newPrefix, len(oldPrefix) + 1, c.Level - old.Level}, args...)...)
		if err != nil {
			return fmt.Errorf("move category subtree: %w", err)
		}
	}
	return nil
}

// RemoveCategory deletes a category (catalog.Tx).
func (t catalogTx) RemoveCategory(ctx context.Context, id string) error {
	r, err := t.tx.Exec(ctx, `DELETE FROM categories WHERE id = ?`, id)
	if catalogFKViolation(err) {
		return commerce.NewError(commerce.ECategoryNotEmpty, id)
	}
	if err != nil {
		return fmt.Errorf("remove category: %w", err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return fmt.Errorf("remove category: rows affected: %w", err)
	}
	if n == 0 {
		return commerce.NewError(commerce.ECategoryNotFound, id)
	}
	return nil
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
		return nil, 0, t.tx.db.NotFound(err, commerce.NewError(commerce.EProductNotFound, id))
	}
	p := new(catalog.Product)
	if err := json.Unmarshal([]byte(doc), p); err != nil {
		return nil, 0, fmt.Errorf("product %s doc: %w", id, err)
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

// catalogProductDoc is the JSON stored for a product: Variants are computed on
// read, never stored.
func catalogProductDoc(p *catalog.Product) (string, error) {
	c := *p
	c.Variants = nil
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("product %s doc: %w", p.ID, err)
	}
	return string(b), nil
}

// catalogProductRow returns the columns of products after seq, in the order of
// catalogProductColumns.
const catalogProductColumns = `id, sku, status, title, description, brand, tax_code, stock_status, is_net_price, base, version, doc`

func catalogProductRow(p *catalog.Product, version int64) ([]any, error) {
	doc, err := catalogProductDoc(p)
	if err != nil {
		return nil, err
	}
	return []any{p.ID, p.SKU, p.Status, p.Title, catalogNull(p.Description), catalogNull(p.Brand), p.TaxCode,
		p.StockStatus, p.IsNetPrice, catalogNull(p.Base), version, doc}, nil
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
	args := make([]any, 0, 12*len(ps))
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		row, err := catalogProductRow(p, 1)
		if err != nil {
			return err
		}
		args = append(args, row...)
	}
	b.WriteString(` RETURNING seq, id`)
	rows, err := t.tx.Query(ctx, b.String(), args...)
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
	return t.insertSides(ctx, ps, seqs)
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
	if catalogFKViolation(err) {
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
	return nil
}

// insertRows runs head with the rows as multi-row VALUES, a few hundred
// rows per statement.
func (t catalogTx) insertRows(ctx context.Context, head string, cols int, rows [][]any) error {
	tuple := "(" + Placeholders(cols) + ")"
	per := max(1, 2000/cols)
	for len(rows) > 0 {
		n := min(len(rows), per)
		var b strings.Builder
		b.WriteString(head)
		args := make([]any, 0, n*cols)
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple)
			args = append(args, r...)
		}
		if _, err := t.tx.Exec(ctx, b.String(), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// UpdateProduct stores a product under its version (catalog.Tx).
func (t catalogTx) UpdateProduct(ctx context.Context, p *catalog.Product, version int64) error {
	row, err := catalogProductRow(p, version+1)
	if err != nil {
		return err
	}
	var seq int64
	err = t.tx.QueryRow(ctx, `UPDATE products SET sku = ?, status = ?, title = ?, description = ?, brand = ?,
		tax_code = ?, stock_status = ?, is_net_price = ?, base = ?, version = ?, doc = ?
		WHERE id = ? AND version = ? RETURNING seq`, append(row[1:], p.ID, version)...).Scan(&seq)
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
	return t.insertSides(ctx, []*catalog.Product{p}, map[string]int64{p.ID: seq})
}

// RemoveProduct deletes a product with its side rows (catalog.Tx).
func (t catalogTx) RemoveProduct(ctx context.Context, id string) error {
	var seq int64
	err := t.tx.QueryRow(ctx, `DELETE FROM products WHERE id = ? RETURNING seq`, id).Scan(&seq)
	if err != nil {
		return t.tx.db.NotFound(err, commerce.NewError(commerce.EProductNotFound, id))
	}
	for _, table := range []string{"product_categories", "product_prices", "product_medias"} {
		if _, err := t.tx.Exec(ctx, `DELETE FROM `+table+` WHERE product_seq = ?`, seq); err != nil {
			return fmt.Errorf("remove product: %w", err)
		}
	}
	return nil
}
