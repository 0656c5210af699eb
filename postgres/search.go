package postgres

import (
	"strings"

	"github.com/commercekit/commerce/sqldb"
)

var _ sqldb.TextSearch = Dialect{}

// SearchMatch implements sqldb.TextSearch over the tsvector table
// product_search (migration 0015_search.sql): the words as the lexemes the
// table holds (cast, not parsed: they are folded already), all of them
// required, the last one a prefix (:*); ranked by ts_rank with the weights
// of the columns (title A, brand and sku B, description C).
func (Dialect) SearchMatch(words []string) sqldb.SearchMatch {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString("'" + strings.ReplaceAll(strings.ReplaceAll(w, `\`, `\\`), "'", "''") + "'")
	}
	b.WriteString(":*")
	q := b.String()
	return sqldb.SearchMatch{
		From: "product_search s JOIN products p ON p.seq = s.product_seq",
		Cond: "s.doc @@ CAST(? AS tsquery)",
		Args: []any{q},
		// ts_rank is higher for better matches; the weights are of D, C,
		// B and A.
		Rank:     "-ts_rank('{0.1, 0.25, 0.4, 1.0}', s.doc, CAST(? AS tsquery))",
		RankArgs: []any{q},
	}
}

// SearchRebuild implements sqldb.TextSearch: every product's document
// computed again.
func (Dialect) SearchRebuild() []string {
	return []string{
		`DELETE FROM product_search`,
		`INSERT INTO product_search (product_seq, doc)
			SELECT seq, product_search_doc(title, brand, sku, description) FROM products`,
	}
}
