// Package storetest holds the store conformance suites: the behaviour every
// storage adapter (sqlite, postgres, and any added later) must show, run
// against real databases. Each adapter package runs them all with
//
//	func TestStore(t *testing.T) { storetest.Run(t, opener) }
//
// The suites of the storage core (event log, dialect, regex limits) are
// here; each area adds its own in <area>.go and one line in Run.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
)

// Opener returns a fresh migrated database for one test, closed (and
// dropped, for a server database) when the test ends. It skips the test
// when the database is not configured.
type Opener func(t *testing.T) *sqldb.DB

// Run runs every suite as a subtest, each on fresh databases from open.
func Run(t *testing.T, open Opener) {
	t.Run("events", func(t *testing.T) { Events(t, open) })
	t.Run("dialect", func(t *testing.T) { Dialect(t, open) })
	t.Run("writes", func(t *testing.T) { Writes(t, open) })
	t.Run("regex", func(t *testing.T) { Regex(t, open) })
	t.Run("catalog", func(t *testing.T) { Catalog(t, open) })
	t.Run("versions", func(t *testing.T) { Versions(t, open) })
	// Areas: one line each, t.Run("<area>", func(t *testing.T) { <Area>(t, open) }).
	t.Run("stock", func(t *testing.T) { Stock(t, open) })
	t.Run("cart", func(t *testing.T) { Cart(t, open) })
	t.Run("promotion", func(t *testing.T) { Promotion(t, open) })
	t.Run("tax", func(t *testing.T) { Tax(t, open) })
	t.Run("shipping", func(t *testing.T) { Shipping(t, open) })
	t.Run("webhook", func(t *testing.T) { Webhook(t, open) })
	t.Run("order", func(t *testing.T) { Order(t, open) })
	t.Run("returns", func(t *testing.T) { Returns(t, open) })
	t.Run("search", func(t *testing.T) { Search(t, open) })
	t.Run("customer", func(t *testing.T) { Customer(t, open) })
	t.Run("coupon", func(t *testing.T) { Coupon(t, open) })
	t.Run("staff", func(t *testing.T) { Staff(t, open) })
	t.Run("admin", func(t *testing.T) { Admin(t, open) })
	t.Run("mail", func(t *testing.T) { Mail(t, open) })
	t.Run("pricelist", func(t *testing.T) { PriceList(t, open) })
	t.Run("media", func(t *testing.T) { Media(t, open) })
	t.Run("transfer", func(t *testing.T) { Transfer(t, open) })
}

// exec runs statements in one write transaction, failing the test on an
// error.
func exec(t *testing.T, db *sqldb.DB, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range stmts {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// count returns the integer a one-value query returns.
func count(t *testing.T, db *sqldb.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// QueryPlan returns the rows of explain+q (explain is the database's own
// EXPLAIN prefix), joined by newlines, run in a read transaction after the
// setup statements (planner settings): for tests that check which index a
// query uses.
func QueryPlan(t *testing.T, db *sqldb.DB, setup []string, explain, q string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	var plan []string
	err := db.View(ctx, func(tx *sqldb.Tx) error {
		for _, s := range setup {
			if _, err := tx.Exec(ctx, s); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, explain+q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			var line []string
			for _, v := range vals {
				line = append(line, v.String)
			}
			plan = append(plan, strings.Join(line, " "))
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
