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

// IndexText is a product just inserted (Dialect.IndexProducts): its seq
// and the values of its text columns as stored ("" for NULL).
type IndexText struct {
	Seq                                                 int64
	Title, Brand, SKU, Description, I18nTitle, I18nText string
}

// SearchMatch is the full-text match of a query (Dialect.SearchMatch):
// the full-text part of product search, which each database does its own
// way; the filters, facets, sorts and paging around the match are
// portable SQL here.
type SearchMatch struct {
	// From is the FROM clause of the products: products p, joined with
	// the index when there are words, unless Facts says otherwise.
	From string
	// Cond is the condition keeping the matching products, with ?
	// placeholders for Args ("" without words).
	Cond string
	Args []any
	// Rank is an expression ordering the matches best first when sorted
	// ascending, with ? placeholders for RankArgs; ties are in creation
	// order (seq). It is RelevanceRank of the same conditions on every
	// database, so that both stores rank the same products the same way
	// for the same query, not only find them.
	Rank     string
	RankArgs []any
	// Facts, when the index holds what a search filters, sorts and counts
	// by, says where in From; nil: From has products p, and they are read
	// from it and its side tables (ProductFacts).
	Facts *SearchFacts
}

// SearchFacts are the expressions, over the From of a SearchMatch, of what
// a search reads of each product besides the match.
type SearchFacts struct {
	// Seq is the product's seq, Brand its brand; Online is a condition
	// true when it is ONLINE.
	Seq, Brand, Online string
	// Price is the product's lowest price in the currency given as its one
	// ? placeholder, NULL when it has none.
	Price string
	// InCategories returns the condition keeping the products directly in
	// one of n categories, given as n ? placeholders.
	InCategories func(n int) string
	// Categories, when not "", is an expression the search carries along
	// with each product found (as the column cats of m) for
	// CategoryCounts.
	Categories string
	// CategoryCounts is a query of (cid, n): for each category, how many
	// products of m (a table of the products found: seq, cats) are
	// directly in it.
	CategoryCounts string
}

// WordMatch is how a Dialect's SearchMatch tells where one word of a query is found:
// conditions true when the product's title, or its brand or sku, holds
// the word (the query's last word also as a prefix, the others as whole
// words), each with its one ? placeholder and argument.
type WordMatch struct {
	Title, BrandSKU       string
	TitleArg, BrandSKUArg any
}

// RelevanceRank returns the rank expression of a search (SearchMatch.Rank)
// from where each word of the query is found, and its arguments: the
// products whose title holds more of the words first, then those whose
// brand or sku holds more (docs/api.md section 21: title matches rank
// first; a title holding every word is first of all). It is a count, the
// same on every database: the databases' own scores (FTS5's bm25,
// PostgreSQL's ts_rank) weigh the frequency and the length of the text
// each its own way, and ranked the same products differently (issue 27:
// PostgreSQL ranked a product whose description mentioned "frigorífico"
// above one whose title began with it).
func RelevanceRank(words []WordMatch) (string, []any) {
	if len(words) == 0 {
		return "0", nil
	}
	// A word in the title outweighs every word in brands and skus.
	titleWeight := strconv.Itoa(len(words) + 1)
	var b strings.Builder
	args := make([]any, 0, 2*len(words))
	b.WriteString("-(")
	for i, w := range words {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteString("CASE WHEN " + w.Title + " THEN " + titleWeight + " ELSE 0 END + CASE WHEN " + w.BrandSKU + " THEN 1 ELSE 0 END")
		args = append(args, w.TitleArg, w.BrandSKUArg)
	}
	b.WriteString(")")
	return b.String(), args
}

// ProductFacts are the facts of a search read from products p and its side
// tables: what a SearchMatch without Facts has. With words, the filters
// are checked on each match's own rows (few to check); without, the
// categories' products come from their memberships.
func ProductFacts(words bool) *SearchFacts {
	f := &SearchFacts{Seq: "p.seq", Brand: "p.brand", Online: "p.status = '" + catalog.StatusOnline + "'",
		// The prices' key starts with product_seq.
		Price: "(SELECT MIN(amount) FROM product_prices x WHERE x.product_seq = p.seq AND x.currency = ?)",
		CategoryCounts: `SELECT pc.category_id AS cid, COUNT(*) AS n FROM product_categories pc
			WHERE pc.product_seq IN (SELECT seq FROM m) GROUP BY pc.category_id`,
	}
	if words {
		f.InCategories = func(n int) string {
			return "EXISTS (SELECT 1 FROM product_categories pc WHERE pc.product_seq = p.seq AND pc.category_id IN (" + Placeholders(n) + "))"
		}
	} else {
		f.InCategories = func(n int) string {
			return "p.seq IN (SELECT product_seq FROM product_categories WHERE category_id IN (" + Placeholders(n) + "))"
		}
	}
	return f
}

// SearchStore is product search over the database (search.Store).
type SearchStore struct {
	db    *DB
	cache searchCache
}

// NewSearchStore returns the product search of db.
func NewSearchStore(db *DB) *SearchStore { return &SearchStore{db: db} }

var _ search.Store = (*SearchStore)(nil)

// searchQuery is the FROM and WHERE of the products a query finds,
// with the arguments of its placeholders in order.
type searchQuery struct {
	SearchMatch
	facts *SearchFacts
	w     where
}

// String returns "FROM ... WHERE ...".
func (q *searchQuery) String() string { return " FROM " + q.From + q.w.String() }

// build returns the match of q, its filters applied. Category filters
// take the categories given and their descendants (by path).
func (s *SearchStore) build(ctx context.Context, tx *Tx, q search.Query) (*searchQuery, error) {
	sq := &searchQuery{SearchMatch: s.db.dialect.SearchMatch(q)}
	sq.facts = sq.Facts
	if sq.facts == nil {
		sq.facts = ProductFacts(len(q.Words) > 0)
	}
	if sq.Cond != "" {
		sq.w.add(sq.Cond, sq.Args...)
	}
	sq.w.add(sq.facts.Online)
	if len(q.Categories) > 0 {
		ids, err := s.descendants(ctx, tx, q.Categories)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			sq.w.add("1 = 0")
		} else {
			sq.w.add(sq.facts.InCategories(len(ids)), catalogArgs(ids)...)
		}
	}
	sq.w.in(sq.facts.Brand, q.Brands)
	switch {
	case q.PriceFrom != nil && q.PriceTo != nil:
		sq.w.add(sq.facts.Price+" BETWEEN ? AND ?", q.Currency, *q.PriceFrom, *q.PriceTo)
	case q.PriceFrom != nil:
		sq.w.add(sq.facts.Price+" >= ?", q.Currency, *q.PriceFrom)
	case q.PriceTo != nil:
		sq.w.add(sq.facts.Price+" <= ?", q.Currency, *q.PriceTo)
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

// Search finds products (search.Store): the page, the count and the
// facets asked for in one statement over the match computed once (a
// common table expression, MATERIALIZED: Dialect.Materialized), so that
// they agree and the full-text match runs once. Separate statements for
// the page and the count each evaluated the match again, and the page's,
// ordered and limited, let PostgreSQL's planner pick a parallel scan of
// the whole index for matches of a few hundred products (BENCHMARKS.md,
// Search).
func (s *SearchStore) Search(ctx context.Context, q search.Query) (*search.Result, error) {
	// The first pages of a query are kept per catalog version
	// (search_cache.go).
	key, cached := searchKey(q)
	cached = cached && q.Skip+q.Limit <= searchCacheHead
	var res *search.Result
	err := s.db.View(ctx, func(tx *Tx) error {
		res = &search.Result{IDs: []string{}, Products: []*catalog.Product{}}
		var version int64
		if cached {
			if err := tx.QueryRow(ctx, versionQuery, versionCatalog).Scan(&version); err != nil {
				return fmt.Errorf("catalog version: %w", err)
			}
			if e := s.cache.get(version, key); e != nil {
				if err := pageBySeq(ctx, tx, e.fill(q, res), res); err != nil {
					return err
				}
				return catalogFillVariants(ctx, tx, res.Products)
			}
		}
		sq, err := s.build(ctx, tx, q)
		if err != nil {
			return err
		}
		head, err := s.run(ctx, tx, sq, q, res, cached)
		if err != nil {
			return err
		}
		if cached {
			s.cache.put(version, key, newSearchEntry(res, head))
		}
		return catalogFillVariants(ctx, tx, res.Products)
	})
	if err != nil {
		return nil, fmt.Errorf("product search: %w", s.db.translate(err))
	}
	return res, nil
}

// Kinds of the rows of a search's statement.
const (
	rowTotal = iota
	rowBrand
	rowCategory
	rowPrice
	rowPage
)

// stmt is a statement being written: its text and the arguments of its
// placeholders, in the order of the text.
type stmt struct {
	b    strings.Builder
	args []any
}

func (st *stmt) add(sql string, args ...any) {
	st.b.WriteString(sql)
	st.args = append(st.args, args...)
}

// statement returns the statement of a search: the match as the common
// table expression m (seq, brand, and the keys the order and the facets
// need), then one UNION ALL branch for the count, each facet asked for
// and the page. A row is (kind, key, title, n, doc): the count (n); a
// brand (key, n); a category (key = id, title, n; doc = its translations
// for a reader of a locale other than the default); a price bucket (key =
// its index, n); a product of the page (key = id, title = its seq, n =
// its place, doc). With head, the page branch gives the first
// searchCacheHead products, with the doc of those of q's page only.
func (s *SearchStore) statement(sq *searchQuery, q search.Query, head bool) *stmt {
	st := &stmt{}
	// The price in the currency, when the sort or the facet needs it: the
	// product's lowest (its prices' key starts with product_seq).
	needPrice := q.PriceFacet || q.Sort == search.SortPrice || q.Sort == search.SortPriceDesc
	f := sq.facts
	d := s.db.dialect
	st.add(`WITH m AS ` + d.Materialized() + `(SELECT ` + f.Seq + ` AS seq, ` + f.Brand + ` AS brand`)
	if q.CategoryFacet && f.Categories != "" {
		st.add(`, ` + f.Categories + ` AS cats`)
	}
	var order string
	switch q.Sort {
	case search.SortRelevance:
		if sq.Rank == "" { // no words: nothing to rank
			order = "seq"
			break
		}
		// The products whose title holds the most words first
		// (RelevanceRank), then in creation order.
		st.add(`, `+sq.Rank+` AS rank`, sq.RankArgs...)
		order = "rank, seq"
	case search.SortPrice:
		// Products without a price in the currency last, either way.
		order = "COALESCE(mp, 9223372036854775807), seq"
	case search.SortPriceDesc:
		order = "COALESCE(mp, -1) DESC, seq"
	case search.SortNewest:
		order = "seq DESC"
	default:
		order = "seq"
	}
	if needPrice {
		st.add(`, `+f.Price+` AS mp`, q.Currency)
	}
	st.add(sq.String()+`)
		SELECT `+strconv.Itoa(rowTotal)+`, `+d.CastText("NULL")+`, `+d.CastText("NULL")+`, COUNT(*), `+d.CastText("NULL")+` FROM m`, sq.w.args...)
	if q.BrandFacet {
		st.add(` UNION ALL SELECT ` + strconv.Itoa(rowBrand) + `, brand, NULL, COUNT(*), NULL
			FROM m WHERE brand IS NOT NULL GROUP BY brand`)
	}
	if q.CategoryFacet {
		// A reader of a locale other than the default (Marker) gets the
		// category's translations too (doc), for its title in the locale.
		trs := "NULL"
		if q.Marker != "" {
			trs = "c.translations"
		}
		st.add(` UNION ALL SELECT ` + strconv.Itoa(rowCategory) + `, c.id, c.title, f.n, ` + trs + `
			FROM (` + f.CategoryCounts + `) f JOIN categories c ON c.id = f.cid`)
	}
	if q.PriceFacet {
		var bucket strings.Builder
		bucket.WriteString("CASE")
		for i := len(q.PriceBounds) - 1; i > 0; i-- {
			// The bounds are the service's integers: written in the query.
			bucket.WriteString(" WHEN mp >= " + strconv.FormatInt(q.PriceBounds[i], 10) + " THEN " + strconv.Itoa(i))
		}
		bucket.WriteString(" ELSE 0 END")
		st.add(` UNION ALL SELECT ` + strconv.Itoa(rowPrice) + `, ` + d.CastText("bucket") + `, NULL, COUNT(*), NULL
			FROM (SELECT ` + bucket.String() + ` AS bucket FROM m WHERE mp IS NOT NULL) buckets GROUP BY bucket`)
	}
	// The page: its products in order, numbered (UNION ALL keeps no order).
	lo, hi, limit, offset := 0, q.Limit, q.Limit, q.Skip
	if head {
		lo, hi, limit, offset = q.Skip, q.Skip+q.Limit, searchCacheHead, 0
	}
	st.add(` UNION ALL SELECT `+strconv.Itoa(rowPage)+`, p.id, `+d.CastText("p.seq")+`, pg.n, CASE WHEN pg.n > ? AND pg.n <= ? THEN p.doc END`, lo, hi)
	st.add(` FROM (SELECT seq, ROW_NUMBER() OVER (ORDER BY `+order+`) AS n
			FROM (SELECT * FROM m ORDER BY `+order+` LIMIT ? OFFSET ?) x) pg
		JOIN products p ON p.seq = pg.seq`, limit, offset)
	return st
}

// run runs the statement of a search into res. Brands come most first,
// then by brand; categories (titled in the reader's locale, else in the
// default) most first, then by title and id; prices by bucket of each
// product's lowest price in the currency. With head, it also returns the
// seqs of the first searchCacheHead products in order.
func (s *SearchStore) run(ctx context.Context, tx *Tx, sq *searchQuery, q search.Query, res *search.Result, head bool) ([]int64, error) {
	if q.BrandFacet {
		res.Brands = []search.BrandCount{}
	}
	if q.CategoryFacet {
		res.Categories = []search.CategoryCount{}
	}
	if q.PriceFacet {
		res.Prices = make([]int, len(q.PriceBounds))
	}
	st := s.statement(sq, q, head)
	rows, err := tx.Query(ctx, st.b.String(), st.args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	type pageRow struct {
		n   int
		seq int64
		id  string
		p   *catalog.Product
	}
	var page, first []pageRow
	for rows.Next() {
		var kind, n int
		var key, title, doc sql.NullString
		if err := rows.Scan(&kind, &key, &title, &n, &doc); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		switch kind {
		case rowTotal:
			res.Total = n
		case rowBrand:
			res.Brands = append(res.Brands, search.BrandCount{Value: key.String, Count: n})
		case rowCategory:
			t := title.String
			if doc.Valid {
				tr, err := decodeTranslations(doc.String)
				if err != nil {
					return nil, fmt.Errorf("search: category %s: %w", key.String, err)
				}
				if lt := tr[q.Locale].Title; lt != "" {
					t = lt
				}
			}
			res.Categories = append(res.Categories, search.CategoryCount{ID: key.String, Title: t, Count: n})
		case rowPrice:
			if i, err := strconv.Atoi(key.String); err == nil && i >= 0 && i < len(res.Prices) {
				res.Prices[i] = n
			}
		case rowPage:
			seq, err := strconv.ParseInt(title.String, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("search: product seq %q: %w", title.String, err)
			}
			r := pageRow{n: n, seq: seq, id: key.String}
			first = append(first, r)
			if !doc.Valid {
				break // before or after the page (head)
			}
			if r.p, err = decodeProduct(doc.String); err != nil {
				return nil, err
			}
			page = append(page, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	slices.SortFunc(page, func(a, b pageRow) int { return a.n - b.n })
	var seqs []int64
	if head {
		slices.SortFunc(first, func(a, b pageRow) int { return a.n - b.n })
		seqs = make([]int64, len(first))
		for i, r := range first {
			seqs[i] = r.seq
		}
	}
	for _, r := range page {
		res.IDs = append(res.IDs, r.id)
		res.Products = append(res.Products, r.p)
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
	return seqs, nil
}

// Reindex rebuilds the index from the products (search.Store).
func (s *SearchStore) Reindex(ctx context.Context) (int, error) {
	var n int
	err := s.db.Update(ctx, func(tx *Tx) error {
		for _, q := range s.db.dialect.SearchRebuild() {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM products`).Scan(&n); err != nil {
			return err
		}
		// The results searches keep were computed from the index
		// before (search_cache.go): a rebuild is a change.
		return bumpVersion(ctx, tx, versionCatalog)
	})
	if err != nil {
		return 0, fmt.Errorf("search reindex: %w", s.db.translate(err))
	}
	return n, nil
}
