package loader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeService is a small stand-in for the commerce service: categories
// in memory, products accepted unless their sku is "bad", a missing
// operation per test, and a token check.
type fakeService struct {
	token   string
	missing map[string]bool // operations answered with 404 operation_not_found

	mu         sync.Mutex
	categories []map[string]any
	bodies     map[string][]map[string]any // received bodies per operation
	lists      atomic.Int32                // category.list calls
	listQuery  []string
}

func newFake(t *testing.T) (*fakeService, *httptest.Server) {
	f := &fakeService{token: "good", missing: map[string]bool{}, bodies: map[string][]map[string]any{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeService) reply(w http.ResponseWriter, status int, v map[string]any) {
	if status != 200 {
		v["ok"] = false
	} else {
		v["ok"] = true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	if f.missing[op] {
		f.reply(w, 404, map[string]any{"error": "operation_not_found"})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		f.reply(w, 401, map[string]any{"error": "invalid_token"})
		return
	}
	var body map[string]any
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			f.reply(w, 400, map[string]any{"error": "validation_error", "data": []string{err.Error()}})
			return
		}
		f.mu.Lock()
		f.bodies[op] = append(f.bodies[op], body)
		f.mu.Unlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch op {
	case "event.list":
		f.reply(w, 200, map[string]any{"data": []any{}})
	case "category.list":
		f.lists.Add(1)
		pattern := r.URL.Query().Get("title")
		f.listQuery = append(f.listQuery, pattern)
		re, err := regexp.Compile("(?i)" + pattern)
		if err != nil {
			f.reply(w, 400, map[string]any{"error": "validation_error"})
			return
		}
		data := []any{}
		for _, c := range f.categories {
			if re.MatchString(c["title"].(string)) {
				data = append(data, c)
			}
		}
		f.reply(w, 200, map[string]any{"data": data})
	case "category.create":
		for _, c := range f.categories {
			if c["slug"] == body["slug"] && c["parent"] == body["parent"] {
				f.reply(w, 409, map[string]any{"error": "duplicate_key", "data": map[string]any{"index": "parent_slug"}})
				return
			}
		}
		c := map[string]any{"id": fmt.Sprintf("cat%d", len(f.categories)+1), "title": body["title"], "slug": body["slug"], "parent": body["parent"]}
		f.categories = append(f.categories, c)
		f.reply(w, 200, map[string]any{"category": c})
	case "product.create":
		if body["sku"] == "bad" {
			f.reply(w, 400, map[string]any{"error": "price_invalid", "data": map[string]any{"amount": -1}})
			return
		}
		f.reply(w, 200, map[string]any{"product": body})
	default:
		if strings.HasSuffix(op, ".list") {
			f.reply(w, 200, map[string]any{"data": []any{}})
			return
		}
		f.reply(w, 200, map[string]any{"record": body})
	}
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolverCachesAndPicksExactTitle(t *testing.T) {
	f, srv := newFake(t)
	f.categories = []map[string]any{
		{"id": "A", "title": "RUNNING"},
		{"id": "B", "title": "Running"},
		{"id": "C", "title": "Combi (A+) 1.5"},
	}
	r := newResolver(newClient(srv.URL, "good", nil, 1))
	ctx := context.Background()

	for _, tc := range []struct {
		name, title, want, code string
	}{
		{"exact title wins over a case variant", "Running", "B", ""},
		{"case variant only", "running", "A", ""},
		{"regex metacharacters escaped", "Combi (A+) 1.5", "C", ""},
		{"not found", "Zapatillas", "", codeCategoryNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := r.categoryID(ctx, tc.title)
			var ae *APIError
			switch {
			case tc.code == "" && (err != nil || id != tc.want):
				t.Errorf("got %q, %v; want %q", id, err, tc.want)
			case tc.code != "" && (!errors.As(err, &ae) || ae.Code != tc.code):
				t.Errorf("got %q, %v; want %s", id, err, tc.code)
			}
		})
	}
	if f.listQuery[2] != `^Combi \(A\+\) 1\.5$` {
		t.Errorf("title filter sent %q", f.listQuery[2])
	}

	// Every answer, a miss too, is remembered; concurrent askers share one request.
	before := f.lists.Load()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			r.categoryID(ctx, "Running")
			r.categoryID(ctx, "Zapatillas")
		})
	}
	wg.Wait()
	if n := f.lists.Load() - before; n != 0 {
		t.Errorf("cached titles cost %d more category.list calls, want 0", n)
	}
	r.add("Zapatillas", "Z")
	if id, err := r.categoryID(ctx, "Zapatillas"); id != "Z" || err != nil {
		t.Errorf("after add: got %q, %v; want Z", id, err)
	}
	r.add("Running", "B2") // a second category with a known title
	if id, _ := r.categoryID(ctx, "Running"); id != "B" {
		t.Errorf("after a second Running: got %q, want the first one, B", id)
	}
	if _, err := r.categoryID(ctx, "Deportes"); err == nil || f.lists.Load()-before != 1 {
		t.Errorf("an unknown title must ask the service once")
	}
}

func TestLoadAgainstFake(t *testing.T) {
	f, srv := newFake(t)
	f.missing["tax.create"] = true
	dir := writeDir(t, map[string]string{
		"dataCategories.jsonl": `{"parent": "ROOT","title": "Deportes"}
{"parent": "categoryIdByTitle(Deportes)","title": "Running"}
{"parent": "categoryIdByTitle(Nope)","title": "Orphan"}
{"parent": "ROOT","title": "Deportes"}
`,
		"dataTaxes.jsonl": `{"code":"default","class":"default","title":"IVA","rate":21}`,
		"dataProductsA.jsonl": `{"sku":"1","title":"Shoe","categories":["categoryIdByTitle(Running)"]}
not json
{"sku":"bad","title":"Broken","categories":["categoryIdByTitle(Running)"]}
{"sku":"3","title":"Kept","categories":[],"stockStatus":2}`,
		"dataProductsB.jsonl":  `{"sku":"4","title":"Other","categories":["categoryIdByTitle(Deportes)"]}`,
		"dataPromotions.jsonl": `{"title":"p","if":{"category":{"id":"categoryIdByTitle(Running)","quantity":3}},"then":{"category":{"id":"categoryIdByTitle(Running)","quantity":3,"discount":{"rate":10,"isPercentaje":true}}}}`,
		"README.md":            "ignored",
	})
	var progress strings.Builder
	rep, err := Load(context.Background(), dir, Options{URL: srv.URL, Token: "good", StockStatus: 1, FixSpelling: true, Workers: 3, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, fr := range rep.Files {
		order = append(order, fr.File)
	}
	if got, want := strings.Join(order, ","), "dataCategories.jsonl,dataTaxes.jsonl,dataProductsA.jsonl,dataProductsB.jsonl,dataPromotions.jsonl"; got != want {
		t.Errorf("file order %s, want %s", got, want)
	}

	cats := rep.File("dataCategories.jsonl")
	// Line 4 repeats line 1 (the same slug under ROOT): already there.
	if cats.Loaded != 2 || len(cats.Rejected) != 1 || cats.Existing != 1 ||
		cats.Rejected[0].Line != 3 || cats.Rejected[0].Code != codeCategoryNotFound || string(cats.Rejected[0].Data) != `"Nope"` {
		t.Errorf("categories: %+v", cats)
	}
	if f.categories[1]["parent"] != "cat1" || f.categories[1]["slug"] != "running" {
		t.Errorf("child category stored as %v, want parent cat1 and slug running", f.categories[1])
	}
	if taxes := rep.File("dataTaxes.jsonl"); taxes.Skipped != "tax.create is not available on this server yet, skipped" {
		t.Errorf("taxes: %+v", taxes)
	}
	prods := rep.File("dataProductsA.jsonl")
	if prods.Loaded != 2 || len(prods.Rejected) != 2 ||
		prods.Rejected[0].Line != 2 || prods.Rejected[0].Code != codeInvalidJSON ||
		prods.Rejected[1].Line != 3 || prods.Rejected[1].Record != `sku "bad"` || prods.Rejected[1].Code != "price_invalid" ||
		string(prods.Rejected[1].Data) != `{"amount":-1}` {
		t.Errorf("products: %+v", prods)
	}
	stock := map[any]any{}
	for _, b := range f.bodies["product.create"] {
		stock[b["sku"]] = b["stockStatus"]
		if b["sku"] == "1" && b["categories"].([]any)[0] != "cat2" {
			t.Errorf("product categories sent as %v, want [cat2]", b["categories"])
		}
	}
	if stock["1"] != 1.0 || stock["3"] != 2.0 {
		t.Errorf("stockStatus sent %v, want the flag's 1 for sku 1 and the record's 2 for sku 3", stock)
	}
	if promos := rep.File("dataPromotions.jsonl"); promos.Loaded != 1 || promos.Misspelled != 0 {
		t.Errorf("promotions: %+v", promos)
	}
	if d := f.bodies["promotion.create"][0]["then"].(map[string]any)["category"].(map[string]any)["discount"].(map[string]any); d["isPercentage"] != true || d["isPercentaje"] != nil {
		t.Errorf("discount sent as %v", d)
	}
	// Running, Nope, Deportes (duplicate) are resolved through category.list
	// at most once each; created categories come from the cache.
	if n := f.lists.Load(); n > 1 {
		t.Errorf("category.list called %d times, want at most 1 (Nope)", n)
	}
	if !strings.Contains(progress.String(), "\r["+strings.Repeat("=", 30)+"] 4/4 products\n") {
		t.Errorf("progress: %q", progress.String())
	}

	var sum strings.Builder
	rep.WriteSummary(&sum)
	for _, want := range []string{
		"categories (dataCategories.jsonl): loaded 2, rejected 1, already there 1\n",
		`  line 3 (title "Orphan"): category_not_found "Nope"` + "\n",
		"taxes: tax.create is not available on this server yet, skipped\n",
		`  line 3 (sku "bad"): price_invalid {"amount":-1}` + "\n",
		"products (dataProductsB.jsonl): loaded 1, rejected 0\n",
		"promotions (dataPromotions.jsonl): loaded 1, rejected 0\n",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

func TestLoadWithoutFixSpellingHints(t *testing.T) {
	// A service that rejects the misspelling as the real one does.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "promotion.create") {
			b, _ := io.ReadAll(r.Body)
			if strings.Contains(string(b), "isPercentaje") {
				w.WriteHeader(400)
				io.WriteString(w, `{"ok":false,"error":"validation_error","data":["then.product.discount.isPercentaje: unknown property"]}`)
				return
			}
		}
		io.WriteString(w, `{"ok":true,"data":[]}`)
	}))
	defer srv.Close()
	dir := writeDir(t, map[string]string{"dataPromotions.jsonl": `{"title":"p","then":{"product":{"discount":{"rate":10,"isPercentaje":true}}}}`})
	rep, err := Load(context.Background(), dir, Options{URL: srv.URL, Token: "good"})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.File("dataPromotions.jsonl")
	if p.Loaded != 0 || len(p.Rejected) != 1 || p.Rejected[0].Code != "validation_error" || p.Misspelled != 1 {
		t.Fatalf("promotions: %+v", p)
	}
	var sum strings.Builder
	rep.WriteSummary(&sum)
	if !strings.Contains(sum.String(), `hint: 1 record(s) spell "isPercentaje"; --fix-spelling sends "isPercentage" instead`) {
		t.Errorf("summary lacks the hint:\n%s", sum.String())
	}
}

func TestLoadFatal(t *testing.T) {
	_, srv := newFake(t)
	dir := writeDir(t, map[string]string{"dataProducts.jsonl": strings.Repeat(`{"sku":"1","categories":[]}`+"\n", 50)})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		io.WriteString(w, "<html>not here</html>")
	}))
	defer html.Close()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(403)
		io.WriteString(w, `{"ok":false,"error":"forbidden"}`)
	}))
	defer forbidden.Close()
	// The token is taken by event.list but refused mid-load (it expired).
	var calls atomic.Int32
	expires := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 5 {
			w.WriteHeader(401)
			io.WriteString(w, `{"ok":false,"error":"invalid_token"}`)
			return
		}
		io.WriteString(w, `{"ok":true,"product":{}}`)
	}))
	defer expires.Close()

	for _, tc := range []struct {
		name, url, token, dir, want string
	}{
		{"unreachable", closed.URL, "good", dir, "cannot reach the service"},
		{"not the service", html.URL, "good", dir, "is not the service's JSON envelope"},
		{"bad token", srv.URL, "wrong", dir, "refused the token"},
		{"not admin", forbidden.URL, "good", dir, "lacks the admin scope"},
		{"token refused mid-load", expires.URL, "good", dir, "refused the token"},
		{"no data files", srv.URL, "good", t.TempDir(), "holds none of"},
		{"missing dir", srv.URL, "good", filepath.Join(dir, "nope"), "no such file"},
		{"bad url", "localhost:8080", "good", dir, "want an http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(context.Background(), tc.dir, Options{URL: tc.url, Token: tc.token})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestLoadSkipsWhenResolutionIsUnavailable(t *testing.T) {
	f, srv := newFake(t)
	f.missing["category.list"] = true
	dir := writeDir(t, map[string]string{
		"dataProducts.jsonl": strings.Repeat(`{"sku":"1","categories":["categoryIdByTitle(Running)"]}`+"\n", 20),
	})
	rep, err := Load(context.Background(), dir, Options{URL: srv.URL, Token: "good"})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.File("dataProducts.jsonl")
	if p.Skipped != "category.list is not available on this server yet, skipped" || p.Loaded != 0 || len(p.Rejected) != 0 {
		t.Errorf("products: %+v", p)
	}
	if n := len(f.bodies["product.create"]); n != 0 {
		t.Errorf("%d products sent, want 0", n)
	}
}
