package transfer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commercekit/commerce/loader"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

// catalogOf returns every product of a store as product.list answers it,
// by sku, with what differs between two stores holding the same catalog
// made comparable: no product id, categories as title paths, base and
// variants as skus, price ids left out, and media ids left out unless
// withMediaIDs.
func catalogOf(t *testing.T, srv *apitest.Server, withMediaIDs bool) map[string]string {
	t.Helper()
	var cats []struct {
		ID, Title, Parent string
	}
	srv.Get(t, "/catalog/v1/category.list?limit=1000", srv.Admin).Must(t).Decode(t, "data", &cats)
	byID := map[string]struct{ Title, Parent string }{}
	for _, c := range cats {
		byID[c.ID] = struct{ Title, Parent string }{c.Title, c.Parent}
	}
	path := func(id string) string {
		var parts []string
		for c, ok := byID[id]; ok && c.Parent != ""; c, ok = byID[c.Parent] {
			parts = append([]string{c.Title}, parts...)
		}
		return strings.Join(parts, " > ")
	}
	var list []map[string]any
	for skip := 0; ; skip += 1000 {
		var page []map[string]any
		srv.Get(t, "/catalog/v1/product.list?limit=1000&status=ONLINE,DRAFT&skip="+itoa(skip), srv.Admin).Must(t).Decode(t, "data", &page)
		list = append(list, page...)
		if len(page) < 1000 {
			break
		}
	}
	skuOf := map[string]string{}
	for _, p := range list {
		skuOf[p["id"].(string)] = p["sku"].(string)
	}
	out := map[string]string{}
	for _, p := range list {
		delete(p, "id")
		if cs, ok := p["categories"].([]any); ok {
			for i, c := range cs {
				cs[i] = path(c.(string))
			}
		}
		if b, ok := p["base"].(string); ok {
			p["base"] = skuOf[b]
		}
		if vs, ok := p["variants"].([]any); ok {
			for i, v := range vs {
				vs[i] = skuOf[v.(string)]
			}
		}
		if ps, ok := p["prices"].([]any); ok {
			for _, pr := range ps {
				delete(pr.(map[string]any), "id")
			}
		}
		if ms, ok := p["medias"].([]any); ok && !withMediaIDs {
			for _, m := range ms {
				delete(m.(map[string]any), "id")
			}
		}
		b, _ := json.Marshal(p)
		out[p["sku"].(string)] = string(b)
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func sameCatalog(t *testing.T, a, b map[string]string) {
	t.Helper()
	if len(a) != len(b) || len(a) < 983 {
		t.Fatalf("%d products, then %d (want the sample's 983)", len(a), len(b))
	}
	n := 0
	for sku, p := range a {
		if b[sku] != p {
			if n++; n <= 3 {
				t.Errorf("%s differs:\n%s\n%s", sku, p, b[sku])
			}
		}
	}
	if n > 0 {
		t.Errorf("%d products differ", n)
	}
}

// TestRoundTrip exports the MicroBase sample (983 fridges) and imports it
// into an empty store: the catalogs compare equal, and the second store
// exports the same file. JSON Lines carries the category tree with its
// classification definitions, so it goes into an empty store; the CSV
// carries products only, so it goes into a store that has the tree.
func TestRoundTrip(t *testing.T) {
	dir := sample.Dir(t)
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		a := apitest.New(t, db)
		if _, err := loader.Load(t.Context(), dir, loader.Options{URL: a.URL, Token: a.Admin, FixSpelling: true}); err != nil {
			t.Fatalf("load the sample: %v", err)
		}
		want := catalogOf(t, a, true)

		st, ct, jsonl := get(t, a, "/catalog/v1/product.export?format=jsonl", a.Admin)
		if st != 200 || ct != "application/x-ndjson" || strings.Count(jsonl, "\n") < 983 {
			t.Fatalf("export: %d %s, %d lines", st, ct, strings.Count(jsonl, "\n"))
		}
		b := apitest.New(t, testdb.Stores[storeIndex(t)].Open(t))
		j := importFile(t, b, jsonl, nil)
		if j.Status != transfer.JobDone || j.Rejected != 0 || j.Created != j.Rows {
			t.Fatalf("import: %+v", j)
		}
		sameCatalog(t, want, catalogOf(t, b, true))
		if _, _, again := get(t, b, "/catalog/v1/product.export?format=jsonl", b.Admin); again != jsonl {
			t.Errorf("the second store exports another file")
		}
		if j := importFile(t, b, jsonl, nil); j.Unchanged != j.Rows || j.Rows < 983 {
			t.Errorf("re-import: %+v", j)
		}

		// CSV: into a store that has the category tree.
		st, ct, csv := get(t, a, "/catalog/v1/product.export", a.Admin)
		if st != 200 || ct != "text/csv; charset=utf-8" || strings.Count(csv, "\n") < 984 {
			t.Fatalf("CSV export: %d %s", st, ct)
		}
		c := apitest.New(t, testdb.Stores[storeIndex(t)].Open(t))
		cats := t.TempDir()
		raw, err := os.ReadFile(filepath.Join(dir, "dataCategories.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cats, "dataCategories.jsonl"), raw, 0o644)
		if _, err := loader.Load(t.Context(), cats, loader.Options{URL: c.URL, Token: c.Admin}); err != nil {
			t.Fatal(err)
		}
		j = importFile(t, c, csv, nil)
		if j.Status != transfer.JobDone || j.Rejected != 0 || j.Created < 983 {
			t.Fatalf("CSV import: %+v", j)
		}
		sameCatalog(t, catalogOf(t, a, false), catalogOf(t, c, false))
		if _, _, again := get(t, c, "/catalog/v1/product.export", c.Admin); again != csv {
			t.Errorf("the CSV store exports another file")
		}
	})
}

func storeIndex(t *testing.T) int {
	if strings.HasSuffix(t.Name(), "/postgres") {
		return 1
	}
	return 0
}
