package sqlite_test

import (
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestStore runs the store conformance suites on SQLite (a temp file per
// test).
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *sqldb.DB { return testdb.SQLite(t) })
}
