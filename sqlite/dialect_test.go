package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestRegexComplexAnswered: patterns that PostgreSQL refuses as too
// complex (or compiles for minutes) are answered on SQLite, whose REGEXP
// is Go's linear-time RE2.
func TestRegexComplexAnswered(t *testing.T) {
	db := testdb.SQLite(t)
	db.SetRegexTimeout(5 * time.Second)
	store := sqldb.NewCatalogStore(db)
	ctx := context.Background()
	for _, f := range []catalog.ProductFilter{
		{Title: new(commerce.Pattern(`(?:(?:[a-z]|\b){30}){30}`)), Limit: 10},
		{Brand: new(commerce.Pattern(`(?:a?b?c?d?){255}`)), Limit: 10},
	} {
		if _, err := store.ListProducts(ctx, f); err != nil {
			t.Errorf("%+v: got %v, want an answer", f, err)
		}
	}
	if _, err := store.ListCategories(ctx, catalog.CategoryFilter{Description: new(commerce.Pattern(`(?:(?:[a-z]|\b){30}){30}`)), Limit: 10}); err != nil {
		t.Errorf("categories: got %v, want an answer", err)
	}
}

// TestByteRangeUsesIndex checks that the prefix predicate (the category
// subtree's) is one the categories_path index serves.
func TestByteRangeUsesIndex(t *testing.T) {
	db := testdb.SQLite(t)
	cond, args := sqldb.CatalogPathPrefix(db.Dialect(), "ROOT.x.")
	plan := storetest.QueryPlan(t, db, nil, `EXPLAIN QUERY PLAN `, `SELECT id, title FROM categories WHERE `+cond, args...)
	if !strings.Contains(plan, "categories_path") {
		t.Errorf("the plan does not use categories_path:\n%s", plan)
	}
}
