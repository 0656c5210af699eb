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
// holds them all first, then by bm25 with the title weighing most. The
// filters, sorts and facets read products p and its side tables
// (sqldb.ProductFacts); without words, products p alone.
func (*Dialect) SearchMatch(q search.Query) sqldb.SearchMatch {
	words := q.Words
	if len(words) == 0 {
		return sqldb.SearchMatch{From: "products p"}
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"`)
	}
	b.WriteByte('*')
	match := b.String()
	return sqldb.SearchMatch{
		From: "product_search JOIN products p ON p.seq = product_search.rowid",
		Cond: "product_search MATCH ?",
		Args: []any{match},
		// bm25 is lower for better matches; weights by column: title,
		// brand, sku, description.
		Rank: "bm25(product_search, 10.0, 4.0, 4.0, 1.0)",
		// The same words in the title column alone (a column filter),
		// matched once for the whole query.
		Title:     "p.seq IN (SELECT t.rowid FROM product_search t WHERE t.product_search MATCH ?)",
		TitleArgs: []any{"title : (" + match + ")"},
	}
}

// SearchRebuild implements sqldb.TextSearch: FTS5's rebuild reads every
// product again.
func (*Dialect) SearchRebuild() []string {
	return []string{`INSERT INTO product_search (product_search) VALUES ('rebuild')`}
}
