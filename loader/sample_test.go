package loader_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/loader"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
)

// sampleProduct is what the test reads from the sample file itself.
type sampleProduct struct {
	SKU        string   `json:"sku"`
	Title      string   `json:"title"`
	Brand      string   `json:"brand"`
	Status     string   `json:"status"`
	Categories []string `json:"categories"`
}

func readProducts(t *testing.T, path string) []sampleProduct {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []sampleProduct
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p sampleProduct
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ps
}

// countWhere counts the ONLINE sample products (product.list leaves DRAFT out) matching fn.
func countWhere(ps []sampleProduct, fn func(sampleProduct) bool) int {
	n := 0
	for _, p := range ps {
		if p.Status == "ONLINE" && fn(p) {
			n++
		}
	}
	return n
}

// listAll pages through a list operation and returns every record.
func listAll(t *testing.T, srv *apitest.Server, op string, q url.Values) []map[string]any {
	t.Helper()
	var all []map[string]any
	for skip := 0; ; skip += 1000 {
		q.Set("limit", "1000")
		q.Set("skip", fmt.Sprint(skip))
		var page []map[string]any
		srv.Get(t, op+"?"+q.Encode(), srv.API).Must(t).Decode(t, "data", &page)
		all = append(all, page...)
		if len(page) < 1000 {
			return all
		}
	}
}

func categoryByTitle(t *testing.T, srv *apitest.Server, title string) map[string]any {
	t.Helper()
	cats := listAll(t, srv, "/catalog/v1/category.list", url.Values{"title": {"^" + regexp.QuoteMeta(title) + "$"}})
	if len(cats) != 1 {
		t.Fatalf("category %q: found %d, want 1", title, len(cats))
	}
	return cats[0]
}

func describe(f *loader.FileReport) string {
	if f == nil {
		return "(file not in the report)"
	}
	var b strings.Builder
	(&loader.Report{Files: []*loader.FileReport{f}}).WriteSummary(&b)
	return b.String()
}

// TestLoadSample loads the MicroBase sample into the whole service and checks
// the catalog through product.list against counts read from the file.
func TestLoadSample(t *testing.T) {
	dir := sample.Dir(t)
	sample := readProducts(t, filepath.Join(dir, "dataProductsFridges.jsonl"))
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		ctx := context.Background()
		var progress bytes.Buffer
		rep, err := loader.Load(ctx, dir, loader.Options{URL: srv.URL, Token: srv.Admin, Progress: &progress})
		if err != nil {
			t.Fatalf("load: %v", err)
		}

		cats := rep.File("dataCategories.jsonl")
		if cats == nil || cats.Skipped != "" || cats.Loaded != 13 || len(cats.Rejected) != 0 {
			t.Fatalf("categories: want 13 loaded, 0 rejected; got\n%s", describe(cats))
		}
		prods := rep.File("dataProductsFridges.jsonl")
		if prods == nil || prods.Skipped != "" || prods.Loaded != len(sample) || len(prods.Rejected) != 0 || len(sample) != 983 {
			t.Fatalf("products: want %d (983) loaded, 0 rejected; got\n%s", len(sample), describe(prods))
		}
		if !strings.Contains(progress.String(), "] 983/983 products\n") {
			t.Errorf("no final progress bar for the products in %q", progress.String())
		}

		// The tree: slugs derived from titles, parents resolved by title.
		parent := categoryByTitle(t, srv, "Frigoríficos y Congeladores")
		combi := categoryByTitle(t, srv, "Frigoríficos combi")
		if combi["slug"] != "frigorificos-combi" || combi["parent"] != parent["id"] {
			t.Errorf("Frigoríficos combi: slug %v parent %v, want frigorificos-combi and %v", combi["slug"], combi["parent"], parent["id"])
		}
		if z := categoryByTitle(t, srv, "Zapatillas"); z["parent"] != categoryByTitle(t, srv, "Running")["id"] {
			t.Errorf("Zapatillas parent %v, want Running's id", z["parent"])
		}

		noFrost := regexp.MustCompile(`(?i)no frost`)
		bosch := regexp.MustCompile(`(?i)^bosch$`)
		for _, tc := range []struct {
			name  string
			query url.Values
			want  int
		}{
			{"all", url.Values{}, len(sample)},
			{"category Frigoríficos combi", url.Values{"categories": {combi["id"].(string)}},
				countWhere(sample, func(p sampleProduct) bool {
					return slices.Contains(p.Categories, "categoryIdByTitle(Frigoríficos combi)")
				})},
			{"brand ^bosch$", url.Values{"brand": {"^bosch$"}},
				countWhere(sample, func(p sampleProduct) bool { return bosch.MatchString(p.Brand) })},
			{"title no frost", url.Values{"title": {"no frost"}},
				countWhere(sample, func(p sampleProduct) bool { return noFrost.MatchString(p.Title) })},
			{"combi and bosch", url.Values{"categories": {combi["id"].(string)}, "brand": {"^bosch$"}},
				countWhere(sample, func(p sampleProduct) bool {
					return bosch.MatchString(p.Brand) && slices.Contains(p.Categories, "categoryIdByTitle(Frigoríficos combi)")
				})},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.want == 0 {
					t.Fatal("the sample has no such product: the case tests nothing")
				}
				if got := len(listAll(t, srv, "/catalog/v1/product.list", tc.query)); got != tc.want {
					t.Errorf("product.list?%s: got %d, want %d", tc.query.Encode(), got, tc.want)
				}
			})
		}

		// Products got stockStatus 0 (NORMAL) and their category by id.
		got := listAll(t, srv, "/catalog/v1/product.list", url.Values{"sku": {sample[0].SKU}})
		if len(got) != 1 || got[0]["stockStatus"] != 0.0 || !slices.Contains(got[0]["categories"].([]any), combi["id"]) {
			t.Errorf("product %s: %v, want stockStatus 0 in %v", sample[0].SKU, got, combi["id"])
		}

		// Areas landed by other issues: checked once their operations exist.
		if f := rep.File("dataTaxes.jsonl"); f.Skipped != "" {
			t.Logf("taxes: %s", f.Skipped)
		} else if f.Loaded != 3 || len(f.Rejected) != 1 || f.Rejected[0].Line != 4 ||
			f.Rejected[0].Record != `code "ca-on-pm"` || f.Rejected[0].Code != "validation_error" {
			t.Errorf("taxes: want 3 loaded, ca-on-pm (line 4) rejected with validation_error; got\n%s", describe(f))
		}
		if f := rep.File("dataShipping.jsonl"); f.Skipped != "" {
			t.Logf("shipping: %s", f.Skipped)
		} else if f.Loaded != 2 || len(f.Rejected) != 0 {
			t.Errorf("shipping: want 2 loaded; got\n%s", describe(f))
		}
		if f := rep.File("dataPromotions.jsonl"); f.Skipped != "" {
			t.Logf("promotions: %s", f.Skipped)
		} else {
			if f.Loaded != 0 || len(f.Rejected) != 1 || f.Rejected[0].Code != "validation_error" || f.Misspelled != 1 {
				t.Errorf("promotions without --fix-spelling: want the record rejected with validation_error; got\n%s", describe(f))
			}
			// Again with the spelling fixed: only the promotions file.
			only := t.TempDir()
			raw, err := os.ReadFile(filepath.Join(dir, "dataPromotions.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(only, "dataPromotions.jsonl"), raw, 0o644)
			rep, err := loader.Load(ctx, only, loader.Options{URL: srv.URL, Token: srv.Admin, FixSpelling: true})
			if err != nil {
				t.Fatal(err)
			}
			if f := rep.File("dataPromotions.jsonl"); f.Loaded != 1 || len(f.Rejected) != 0 {
				t.Errorf("promotions with --fix-spelling: want 1 loaded; got\n%s", describe(f))
			}
		}
	})
}
