package postgres_test

import (
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestSearchLocaleC runs the search conformance suite on databases created
// with the C locale (LC_COLLATE and LC_CTYPE 'C', where lower() and
// [[:alnum:]] know ASCII alone): the index folds text the same whatever
// the database's locale, so Cyrillic, Greek and Korean products are found
// as on any other database.
func TestSearchLocaleC(t *testing.T) {
	testdb.SkipWithoutPostgres(t)
	storetest.Search(t, func(t *testing.T) *sqldb.DB {
		return testdb.PostgresAt(t, testdb.PostgresURLWith(t, "TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'"))
	})
}
