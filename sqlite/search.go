package sqlite

import (
	"strings"

	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
)

var _ sqldb.TextSearch = (*Dialect)(nil)

// SearchMatch implements sqldb.TextSearch over the FTS5 table
// product_search (migrations 0015_search.sql, 0020_search_faster.sql):
// every word quoted (a phrase of one token: no FTS5 syntax gets through),
// the last one a prefix, all of them required; the products whose title
// holds the most of them first, then those whose brand or sku does
// (sqldb.RelevanceRank: each word looked up in the title column, and in
// the brand and sku columns, with a column filter), then in creation
// order. The filters, sorts and facets read products p and its side
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
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		phrase := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		if i == len(words)-1 {
			phrase += "*"
		}
		b.WriteString(phrase)
		ranks[i] = sqldb.WordMatch{Title: in, TitleArg: "title : " + phrase, BrandSKU: in, BrandSKUArg: "{brand sku} : " + phrase}
	}
	m := sqldb.SearchMatch{
		From: "product_search JOIN products p ON p.seq = product_search.rowid",
		Cond: "product_search MATCH ?",
		Args: []any{b.String()},
	}
	m.Rank, m.RankArgs = sqldb.RelevanceRank(ranks)
	return m
}

// SearchRebuild implements sqldb.TextSearch: FTS5's rebuild reads every
// product again.
func (*Dialect) SearchRebuild() []string {
	return []string{`INSERT INTO product_search (product_search) VALUES ('rebuild')`}
}
