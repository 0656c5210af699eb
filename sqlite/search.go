package sqlite

import (
	"strings"

	"github.com/commercekit/commerce/sqldb"
)

var _ sqldb.TextSearch = (*Dialect)(nil)

// SearchMatch implements sqldb.TextSearch over the FTS5 table
// product_search (migration 0015_search.sql): every word quoted (a phrase
// of one token: no FTS5 syntax gets through), the last one a prefix, all of
// them required; ranked by bm25 with the title weighing most.
func (*Dialect) SearchMatch(words []string) sqldb.SearchMatch {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"`)
	}
	b.WriteByte('*')
	return sqldb.SearchMatch{
		From: "product_search JOIN products p ON p.seq = product_search.rowid",
		Cond: "product_search MATCH ?",
		Args: []any{b.String()},
		// bm25 is lower for better matches; weights by column: title,
		// brand, sku, description.
		Rank: "bm25(product_search, 10.0, 4.0, 4.0, 1.0)",
	}
}

// SearchRebuild implements sqldb.TextSearch: FTS5's rebuild reads every
// product again.
func (*Dialect) SearchRebuild() []string {
	return []string{`INSERT INTO product_search (product_search) VALUES ('rebuild')`}
}
