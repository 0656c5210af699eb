package postgres

import (
	"context"
	"strings"

	"github.com/commercekit/commerce/sqldb"
)

// SearchDoc is searchDoc for the tests, with the folding table of tx's
// database: the literal of p's document, or false where the trigger is
// left to build it.
func SearchDoc(ctx context.Context, tx *sqldb.Tx, p sqldb.IndexText) (string, bool, error) {
	fold, err := foldTable(ctx, tx)
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	ok := searchDoc(&b, fold, p)
	return b.String(), ok, nil
}
