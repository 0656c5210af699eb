package sqlite

import (
	"context"
	"strings"

	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
)

// SearchMatch implements sqldb.Dialect over the FTS5 table
// product_search (migrations 0015_search.sql, 0020_search_faster.sql):
// every word quoted (a phrase of one token: no FTS5 syntax gets through),
// the last one a prefix, all of them required; the products whose title
// holds the most of them first, then those whose brand or sku does
// (sqldb.RelevanceRank: each word looked up in the title column, and in
// the brand and sku columns, with a column filter), then in creation
// order. A search in a locale other than the default finds each word in
// the default text or, marked with the locale (search.LocaleMarker), in
// the translated text (i18n_title ranking as the title). The filters,
// sorts and facets read products p and its side
// tables (sqldb.ProductFacts); without words, products p alone.
func (*Dialect) SearchMatch(q search.Query) sqldb.SearchMatch {
	words := q.Words
	if len(words) == 0 {
		return sqldb.SearchMatch{From: "products p"}
	}
	var b strings.Builder
	ranks := make([]sqldb.WordMatch, len(words))
	// Each condition is an uncorrelated IN: its match runs once per
	// search.
	const in = "p.seq IN (SELECT t.rowid FROM product_search t WHERE t.product_search MATCH ?)"
	quote := func(w string, last bool) string {
		phrase := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		if last {
			phrase += "*"
		}
		return phrase
	}
	titles := "title"
	if q.Marker != "" {
		titles = "{title i18n_title}"
	}
	for i, w := range words {
		if i > 0 && q.Marker != "" {
			b.WriteString(" AND ")
		} else if i > 0 {
			b.WriteByte(' ')
		}
		last := i == len(words)-1
		phrase := quote(w, last)
		term := phrase
		if q.Marker != "" {
			// The word in the default text, or marked in the locale's
			// (docs/api.md section 27).
			term = "(" + phrase + " OR " + quote(q.Marker+w, last) + ")"
		}
		b.WriteString(term)
		ranks[i] = sqldb.WordMatch{Title: in, TitleArg: titles + " : " + term, BrandSKU: in, BrandSKUArg: "{brand sku} : " + phrase}
	}
	m := sqldb.SearchMatch{
		From: "product_search JOIN products p ON p.seq = product_search.rowid",
		Cond: "product_search MATCH ?",
		Args: []any{b.String()},
	}
	m.Rank, m.RankArgs = sqldb.RelevanceRank(ranks)
	return m
}

// SearchRebuild implements sqldb.Dialect: FTS5's rebuild reads every
// product again.
func (*Dialect) SearchRebuild() []string {
	return []string{`INSERT INTO product_search (product_search) VALUES ('rebuild')`}
}

// IndexProducts implements sqldb.Dialect: nothing to do, the FTS5 table's
// triggers index a product as its row is written, at little cost.
func (*Dialect) IndexProducts(context.Context, *sqldb.Tx, []sqldb.IndexText) error { return nil }
