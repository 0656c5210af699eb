package postgres_test

import (
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestStore runs the store conformance suites on PostgreSQL (a fresh
// database per test); it skips, saying so, when COMMERCE_TEST_POSTGRES_URL
// is not set.
func TestStore(t *testing.T) {
	testdb.SkipWithoutPostgres(t)
	storetest.Run(t, func(t *testing.T) *sqldb.DB { return testdb.Postgres(t) })
}
