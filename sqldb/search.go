package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
)

// TextSearch is the full-text part of product search, which each database
// does its own way (an FTS5 table on SQLite, a tsvector table on
// PostgreSQL, both kept by triggers of their 0015_search.sql migration).
// A Dialect that implements it serves SearchStore; the filters, facets,
// sorts and paging around the match are portable SQL here.
type TextSearch interface {
	// SearchMatch returns how to find the products (the table products,
	// aliased p) holding every word, the last one also as a prefix. The
	// words are folded (search.Words): letters and digits only.
	SearchMatch(words []string) SearchMatch
	// SearchRebuild returns the statements that rebuild the whole index
	// from the products, run in one write transaction.
	SearchRebuild() []string
}

// SearchMatch is the full-text match of a query (TextSearch.SearchMatch).
type SearchMatch struct {
	// From is the FROM clause holding products p and the index, joined.
	From string
	// Cond is the condition keeping the matching products, with ?
	// placeholders for Args.
	Cond string
	Args []any
	// Rank is an expression ordering the matches best first when sorted
	// ascending, with ? placeholders for RankArgs.
	Rank     string
	RankArgs []any
}

// SearchStore is product search over the database (search.Store).
type SearchStore struct {
	db *DB
}

// NewSearchStore returns the product search of db.
func NewSearchStore(db *DB) *SearchStore { return &SearchStore{db: db} }

var _ search.Store = (*SearchStore)(nil)

func (s *SearchStore) text() (TextSearch, error) {
	ts, ok := s.db.dialect.(TextSearch)
	if !ok {
		return nil, fmt.Errorf("product search: the %s dialect has no full-text search", s.db.dialect.Name())
	}
	return ts, nil
}

// searchQuery is the FROM and WHERE of the products a query finds,
// with the arguments of its placeholders in order.
type searchQuery struct {
	from     string
	w        where
	rank     string
	rankArgs []any
}

// String returns "FROM ... WHERE ...".
func (q *searchQuery) String() string { return " FROM " + q.from + q.w.String() }

// build returns the match of q, its filters applied. Category filters
// take the categories given and their descendants (by path).
func (s *SearchStore) build(ctx context.Context, tx *Tx, ts TextSearch, q search.Query) (*searchQuery, error) {
	sq := &searchQuery{from: "products p"}
	if len(q.Words) > 0 {
		m := ts.SearchMatch(q.Words)
		sq.from, sq.rank, sq.rankArgs = m.From, m.Rank, m.RankArgs
		sq.w.add(m.Cond, m.Args...)
	}
	sq.w.add("p.status = ?", catalog.StatusOnline)
	if len(q.Categories) > 0 {
		ids, err := s.descendants(ctx, tx, q.Categories)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			sq.w.add("1 = 0")
		} else if len(q.Words) > 0 {
			// Few matches to check, each on the product's own rows.
			sq.w.add("EXISTS (SELECT 1 FROM product_categories pc WHERE pc.product_seq = p.seq AND pc.category_id IN ("+
				Placeholders(len(ids))+"))", catalogArgs(ids)...)
		} else {
			// The categories' products, from their memberships.
			sq.w.add("p.seq IN (SELECT product_seq FROM product_categories WHERE category_id IN ("+Placeholders(len(ids))+"))", catalogArgs(ids)...)
		}
	}
	sq.w.in("p.brand", q.Brands)
	if q.PriceFrom != nil || q.PriceTo != nil {
		// The product's price: its lowest in the currency.
		var bounds []string
		args := []any{q.Currency}
		if q.PriceFrom != nil {
			bounds, args = append(bounds, "m >= ?"), append(args, *q.PriceFrom)
		}
		if q.PriceTo != nil {
			bounds, args = append(bounds, "m <= ?"), append(args, *q.PriceTo)
		}
		cond := strings.Join(bounds, " AND ")
		if len(q.Words) > 0 {
			// Each match's own prices (their key starts with product_seq).
			sq.w.add("EXISTS (SELECT 1 FROM (SELECT MIN(amount) AS m FROM product_prices x WHERE x.product_seq = p.seq AND x.currency = ?) pm WHERE "+
				cond+")", args...)
		} else {
			sq.w.add("p.seq IN (SELECT product_seq FROM (SELECT product_seq, MIN(amount) AS m FROM product_prices WHERE currency = ? GROUP BY product_seq) pm WHERE "+
				cond+")", args...)
		}
	}
	return sq, nil
}

// descendants returns the ids of the existing categories among ids and of
// all their descendants.
func (s *SearchStore) descendants(ctx context.Context, tx *Tx, ids []string) ([]string, error) {
	var paths []string
	rows, err := tx.Query(ctx, `SELECT path FROM categories WHERE id IN (`+Placeholders(len(ids))+`)`, catalogArgs(ids)...)
	if err != nil {
		return nil, err
	}
	paths, err = scanStrings(rows)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	var w where
	for _, p := range paths {
		// Below path: paths starting with path + "." (and before
		// path + "/", "/" being the byte after ".").
		w.add(s.db.dialect.ByteRange("path"), p+".", p+"/")
	}
	rows, err = tx.Query(ctx, `SELECT id FROM categories WHERE id IN (`+Placeholders(len(ids))+`) OR `+strings.Join(w.conds, " OR "),
		append(catalogArgs(ids), w.args...)...)
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}

func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Search finds products (search.Store): the page, then the count with the
// facets asked for (one statement), in one read-only transaction so that
// they agree.
func (s *SearchStore) Search(ctx context.Context, q search.Query) (*search.Result, error) {
	ts, err := s.text()
	if err != nil {
		return nil, err
	}
	res := &search.Result{IDs: []string{}, Products: []*catalog.Product{}}
	err = s.db.View(ctx, func(tx *Tx) error {
		sq, err := s.build(ctx, tx, ts, q)
		if err != nil {
			return err
		}
		if err := s.page(ctx, tx, sq, q, res); err != nil {
			return err
		}
		if err := s.facets(ctx, tx, sq, q, res); err != nil {
			return err
		}
		if res.Total == 0 {
			res.Brands, res.Categories = []search.BrandCount{}, []search.CategoryCount{}
			res.Prices = make([]int, len(q.PriceBounds))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("product search: %w", s.db.translate(err))
	}
	return res, nil
}

// page reads the page's products in the query's order.
func (s *SearchStore) page(ctx context.Context, tx *Tx, sq *searchQuery, q search.Query, res *search.Result) error {
	// The rank and the price are computed in the SELECT list (where each
	// database allows its full-text function), so their arguments come
	// first, and ordered by their names.
	cols, order, args := "p.id, p.doc, 0", "p.seq", slices.Clone(sq.w.args)
	switch q.Sort {
	case search.SortRelevance:
		cols, order = "p.id, p.doc, "+sq.rank+" AS rank", "rank, p.seq"
		args = append(slices.Clone(sq.rankArgs), args...)
	case search.SortPrice, search.SortPriceDesc:
		// Products without a price in the currency last, either way.
		missing, dir := "9223372036854775807", ""
		if q.Sort == search.SortPriceDesc {
			missing, dir = "-1", " DESC"
		}
		cols = "p.id, p.doc, COALESCE((SELECT MIN(amount) FROM product_prices x WHERE x.product_seq = p.seq AND x.currency = ?), " +
			missing + ") AS price"
		order = "price" + dir + ", p.seq"
		args = append([]any{q.Currency}, args...)
	case search.SortNewest:
		order = "p.seq DESC, p.id"
	}
	rows, err := tx.Query(ctx, `SELECT `+cols+sq.String()+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, q.Limit, q.Skip)...)
	if err != nil {
		return fmt.Errorf("page: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, doc string
		var key any
		if err := rows.Scan(&id, &doc, &key); err != nil {
			return fmt.Errorf("page: %w", err)
		}
		p, err := decodeProduct(doc)
		if err != nil {
			return err
		}
		res.IDs = append(res.IDs, id)
		res.Products = append(res.Products, p)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	rows.Close()
	return catalogFillVariants(ctx, tx, res.Products)
}

// Kinds of the rows of the facets query.
const (
	facetTotal = iota
	facetBrand
	facetCategory
	facetPrice
)

// facets counts the match (Total) and the facets asked for, in one
// statement over the match computed once (a MATERIALIZED common table
// expression): five queries each evaluating the full-text match again
// made most of a search's cost, the more so the more it matched. Brands
// come most first, then by brand; categories (those the matched products
// belong to directly) most first, then by title and id; prices by bucket
// of each product's lowest price in the currency.
func (s *SearchStore) facets(ctx context.Context, tx *Tx, sq *searchQuery, q search.Query, res *search.Result) error {
	var b strings.Builder
	b.WriteString(`WITH m AS MATERIALIZED (SELECT p.seq AS seq, p.brand AS brand` + sq.String() + `)
		SELECT ` + strconv.Itoa(facetTotal) + `, CAST(NULL AS TEXT), CAST(NULL AS TEXT), COUNT(*) FROM m`)
	args := slices.Clone(sq.w.args)
	if q.BrandFacet {
		b.WriteString(` UNION ALL SELECT ` + strconv.Itoa(facetBrand) + `, brand, CAST(NULL AS TEXT), COUNT(*)
			FROM m WHERE brand IS NOT NULL GROUP BY brand`)
	}
	if q.CategoryFacet {
		b.WriteString(` UNION ALL SELECT ` + strconv.Itoa(facetCategory) + `, c.id, c.title, f.n
			FROM (SELECT pc.category_id AS cid, COUNT(*) AS n FROM product_categories pc
				WHERE pc.product_seq IN (SELECT seq FROM m) GROUP BY pc.category_id) f
			JOIN categories c ON c.id = f.cid`)
	}
	if q.PriceFacet {
		var bucket strings.Builder
		bucket.WriteString("CASE")
		for i := len(q.PriceBounds) - 1; i > 0; i-- {
			// The bounds are the service's integers: written in the query.
			bucket.WriteString(" WHEN mp >= " + strconv.FormatInt(q.PriceBounds[i], 10) + " THEN " + strconv.Itoa(i))
		}
		bucket.WriteString(" ELSE 0 END")
		b.WriteString(` UNION ALL SELECT ` + strconv.Itoa(facetPrice) + `, CAST(bucket AS TEXT), CAST(NULL AS TEXT), COUNT(*)
			FROM (SELECT ` + bucket.String() + ` AS bucket FROM
				(SELECT MIN(amount) AS mp FROM product_prices WHERE currency = ? AND product_seq IN (SELECT seq FROM m)
				GROUP BY product_seq) mins) buckets GROUP BY bucket`)
		args = append(args, q.Currency)
		res.Prices = make([]int, len(q.PriceBounds))
	}
	if q.BrandFacet {
		res.Brands = []search.BrandCount{}
	}
	if q.CategoryFacet {
		res.Categories = []search.CategoryCount{}
	}
	rows, err := tx.Query(ctx, b.String(), args...)
	if err != nil {
		return fmt.Errorf("count and facets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, n int
		var key, title sql.NullString
		if err := rows.Scan(&kind, &key, &title, &n); err != nil {
			return fmt.Errorf("count and facets: %w", err)
		}
		switch kind {
		case facetTotal:
			res.Total = n
		case facetBrand:
			res.Brands = append(res.Brands, search.BrandCount{Value: key.String, Count: n})
		case facetCategory:
			res.Categories = append(res.Categories, search.CategoryCount{ID: key.String, Title: title.String, Count: n})
		case facetPrice:
			if i, err := strconv.Atoi(key.String); err == nil && i >= 0 && i < len(res.Prices) {
				res.Prices[i] = n
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count and facets: %w", err)
	}
	slices.SortFunc(res.Brands, func(a, b search.BrandCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Value, b.Value)
	})
	slices.SortFunc(res.Categories, func(a, b search.CategoryCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		if c := strings.Compare(a.Title, b.Title); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return nil
}

// Reindex rebuilds the index from the products (search.Store).
func (s *SearchStore) Reindex(ctx context.Context) (int, error) {
	ts, err := s.text()
	if err != nil {
		return 0, err
	}
	var n int
	err = s.db.Update(ctx, func(tx *Tx) error {
		for _, q := range ts.SearchRebuild() {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, `SELECT COUNT(*) FROM products`).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("search reindex: %w", s.db.translate(err))
	}
	return n, nil
}
