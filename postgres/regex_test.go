package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/storetest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestTranslateRegex checks the ARE printed for some patterns
// (what the database receives), and the patterns it refuses.
func TestTranslateRegex(t *testing.T) {
	word := `[0-9A-Za-z_]`
	tests := []struct {
		pattern, want string
	}{
		{`\bfridge`, `(?cw)(?:(?<!` + word + `)(?=` + word + `)|(?<=` + word + `)(?!` + word + `))[Ff][Rr][Ii][Dd][Gg][Ee]`},
		{`^a.b$`, `(?cw)\A[Aa][^\u000a][Bb]\Z`},
		{`(?m)^1$`, `(?cw)^1$`},
		{`(?s)1.2`, `(?cw)1.2`},
		{`(?P<n>1|2)+`, `(?cw)(?:[12])+`},
		{`(?P<n>12|34)+`, `(?cw)(?:12|34)+`},
		{`1(2)3`, `(?cw)1(?:2)3`},
		{`1{2,3}?`, `(?cw)1{2,3}`},
		{`1{300}`, `(?cw)1{255}1{45}`},
		{`1{0,600}`, `(?cw)1{0,255}1{0,255}1{0,90}`},
		{`1\z`, `(?cw)1\Z`},
		{`\.\$`, `(?cw)\u002e\u0024`},
		{`[^\x00-\x{10FFFF}]`, `(?cw)(?!)`},
		{`(?-i)\x{1F389}`, `(?cw)\U0001f389`},
		{`[^a]`, `(?cw)[^Aa]`},
		{`\PN`, ``}, // checked below: a negated bracket
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			got, err := postgres.TranslateRegex(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if !strings.HasPrefix(got, "(?cw)[^") {
					t.Errorf("got %s, want a negated bracket expression", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{`(`, strings.Repeat(`\pL`, 10)} {
		t.Run("refused "+bad[:min(len(bad), 10)], func(t *testing.T) {
			if got, err := postgres.TranslateRegex(bad); err == nil {
				t.Errorf("got %.40s..., want an error", got)
			}
		})
	}
}

// TestRegexTooComplex: valid RE2 patterns that PostgreSQL cannot run (it
// rejects the first and third as too complex, and compiles the second for
// longer than the regex time limit) are a validation_error naming the
// field, with nothing of the database in it.
func TestRegexTooComplex(t *testing.T) {
	tests := []struct {
		name    string
		filter  catalog.ProductFilter
		cfilter *catalog.CategoryFilter
		limit   time.Duration
		want    string
	}{
		{"rejected", catalog.ProductFilter{Title: new(commerce.Pattern(`(?:(?:[a-z]|\b){30}){30}`))}, nil, 10 * time.Second, "title: the regular expression is too complex for this database"},
		{"slower than the time limit", catalog.ProductFilter{Brand: new(commerce.Pattern(`(?:a?b?c?d?){255}`))}, nil, 300 * time.Millisecond, "brand: pattern took too long to match"},
		{"category description", catalog.ProductFilter{}, &catalog.CategoryFilter{Description: new(commerce.Pattern(`(?:(?:[a-z]|\b){30}){30}`))}, 10 * time.Second, "description: the regular expression is too complex for this database"},
	}
	db := testdb.Postgres(t)
	store := sqldb.NewCatalogStore(db)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db.SetRegexTimeout(tc.limit)
			var err error
			if tc.cfilter != nil {
				f := *tc.cfilter
				f.Limit = 10
				_, err = store.ListCategories(ctx, f)
			} else {
				f := tc.filter
				f.Limit = 10
				_, err = store.ListProducts(ctx, f)
			}
			if code := commerce.ErrorCode(err); code != commerce.EValidation {
				t.Fatalf("got %v, want validation_error", err)
			}
			data, _ := commerce.ErrorData(err).([]string)
			if len(data) != 1 || data[0] != tc.want {
				t.Errorf("got data %q, want [%q]", data, tc.want)
			}
		})
	}
}

// TestByteRangeUsesIndex checks that the prefix predicate (the category
// subtree's) is one the categories_path index (text_pattern_ops) serves.
func TestByteRangeUsesIndex(t *testing.T) {
	db := testdb.Postgres(t)
	cond, args := sqldb.CatalogPathPrefix(db.Dialect(), "ROOT.x.")
	plan := storetest.QueryPlan(t, db, []string{`SET LOCAL enable_seqscan = off`}, `EXPLAIN `, `SELECT id, title FROM categories WHERE `+cond, args...)
	if !strings.Contains(plan, "categories_path") {
		t.Errorf("the plan does not use categories_path:\n%s", plan)
	}
}
