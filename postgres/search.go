package postgres

import (
	"strings"

	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
)

// SearchMatch implements sqldb.Dialect over the table product_search
// (migrations 0015_search.sql, 0020_search_faster.sql and
// 0023_search_fold.sql). The query's words (search.Words, what SQLite's
// store quotes for FTS5) are folded again by the database as the indexed
// text is (product_search_query: character by character as FTS5's
// tokenizer folds text, with the table product_search_chars), as FTS5
// folds each quoted word again, so that both stores look for the same
// words; every word is required, the last one also as a prefix (:*);
// the products whose title holds the most of them first, then those
// whose brand or sku does (sqldb.RelevanceRank: each word looked up with
// the weight of the title, A, and of the brand and sku, B), then in
// creation order. The
// rows also hold what the filters, sorts and facets read (online, brand,
// categories, prices), so that a search reads nothing else of the
// products it finds but the page's.
func (Dialect) SearchMatch(q search.Query) sqldb.SearchMatch {
	m := sqldb.SearchMatch{From: "product_search s", Facts: &sqldb.SearchFacts{
		Seq: "s.product_seq", Brand: "s.brand", Online: "s.online",
		Price:          "CAST(s.prices ->> CAST(? AS TEXT) AS BIGINT)",
		Categories:     "s.categories",
		CategoryCounts: "SELECT u.cid AS cid, COUNT(*) AS n FROM m CROSS JOIN unnest(m.cats) AS u (cid) GROUP BY u.cid",
	}}
	if len(q.Words) == 0 {
		// A category's products from their memberships, not by reading
		// every row.
		m.Facts.InCategories = func(n int) string {
			return "s.product_seq IN (SELECT product_seq FROM product_categories WHERE category_id IN (" + sqldb.Placeholders(n) + "))"
		}
		return m
	}
	m.Facts.InCategories = func(n int) string {
		return "s.categories && CAST(ARRAY[" + sqldb.Placeholders(n) + "] AS TEXT[])"
	}
	text := strings.Join(q.Words, " ")
	// Each tsquery is a scalar subquery, computed once per search (an
	// InitPlan): product_search_query is IMMUTABLE, so that a custom plan
	// computes it from the text while planning, but a statement run often
	// gets a generic plan, where the call was made again for every row
	// ranked and checked (a one-word search matching 2,844 products took
	// 13 ms of the server's CPU, 8.5 ms with the tsquery computed once:
	// BENCHMARKS.md, Search).
	// In a locale other than the default, each word is found as it is or
	// marked with the locale (product_search_query_locale; the marker is
	// letters and digits only, search.LocaleMarker, written in the
	// statement as a literal).
	query := func(weights string) string {
		if q.Marker == "" {
			return "s.doc @@ (SELECT product_search_query(?, '" + weights + "'))"
		}
		return "s.doc @@ (SELECT product_search_query_locale(?, '" + weights + "', '" + q.Marker + "'))"
	}
	m.Cond, m.Args = query(""), []any{text}
	// Each word alone, with the weight of a column: the last one as the
	// prefix product_search_query makes of a query's last word; another
	// as a whole word, written twice ("w w": 'w':A & 'w':*A, true when
	// the whole word is there).
	ranks := make([]sqldb.WordMatch, len(q.Words))
	for i, w := range q.Words {
		word := w
		if i < len(q.Words)-1 {
			word = w + " " + w
		}
		ranks[i] = sqldb.WordMatch{
			Title: query("A"), TitleArg: word,
			BrandSKU: "s.doc @@ (SELECT product_search_query(?, 'B'))", BrandSKUArg: word,
		}
	}
	m.Rank, m.RankArgs = sqldb.RelevanceRank(ranks)
	return m
}

// SearchRebuild implements sqldb.Dialect: every product's row computed
// again (the functions of the migrations), the facts in one pass over each
// side table. The products are locked against writes first (SHARE: reads
// go on; a product's transaction under way is waited for, the next ones
// wait until the rebuild commits). Without the lock, a product committed
// between the DELETE and the INSERT had its row written twice (a
// duplicate key, the reindex failed), and one changed during the INSERT
// could have its old text written over its new.
func (Dialect) SearchRebuild() []string {
	return []string{
		`LOCK TABLE products IN SHARE MODE`,
		`DELETE FROM product_search`,
		`INSERT INTO product_search (product_seq, doc, online, brand, categories, prices)
		SELECT p.seq, product_search_doc(p.title, p.brand, p.sku, p.description, p.i18n_title, p.i18n_text), p.status = 'ONLINE', p.brand,
			coalesce(c.ids, '{}'), coalesce(x.prices, '{}')
		FROM products p
		LEFT JOIN (SELECT product_seq, array_agg(category_id ORDER BY category_id) AS ids FROM product_categories GROUP BY product_seq) c
			ON c.product_seq = p.seq
		LEFT JOIN (SELECT product_seq, jsonb_object_agg(currency, amount) AS prices
				FROM (SELECT product_seq, currency, MIN(amount) AS amount FROM product_prices GROUP BY product_seq, currency) m
				GROUP BY product_seq) x
			ON x.product_seq = p.seq`,
	}
}
