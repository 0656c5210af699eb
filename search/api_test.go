package search_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/loader"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
)

// fridge is a product of the sample, as the file has it.
type fridge struct {
	SKU, Title, Brand, Description string
	Categories                     []string
	Prices                         []struct{ Amount json.Number }
}

func readFridges(t *testing.T, path string) []fridge {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fridge
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p fridge
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// oracleFold is the test's own folding of the Spanish text of the sample:
// lower case, the accents of Spanish removed, split at anything but
// letters and digits.
var (
	unaccent   = strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "ñ", "n")
	nonWord    = regexp.MustCompile(`[^\p{L}\p{N}]+`)
	oracleWord = func(s string) []string {
		return strings.Fields(nonWord.ReplaceAllString(unaccent.Replace(strings.ToLower(s)), " "))
	}
)

// oracle returns the skus of the fridges holding every word of q (folded
// by the test's own means), the last one as a prefix.
func oracle(fs []fridge, q string) []string {
	words := oracleWord(q)
	var out []string
	for _, f := range fs {
		have := oracleWord(f.Title + " " + f.Brand + " " + f.SKU + " " + f.Description)
		ok := true
		for i, w := range words {
			if i == len(words)-1 {
				ok = ok && slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) })
			} else {
				ok = ok && slices.Contains(have, w)
			}
		}
		if ok {
			out = append(out, f.SKU)
		}
	}
	slices.Sort(out)
	return out
}

type answer struct {
	Page  commerce.Page `json:"page"`
	Total int           `json:"total"`
	Data  []struct {
		ID, SKU, Title, Brand string
		Status                string
		Prices                []struct{ Amount json.Number }
	} `json:"data"`
	Facets struct {
		Brand []struct {
			Value string
			Count int
		}
		Categories []struct {
			ID, Title string
			Count     int
		}
		Price []struct {
			From  json.Number
			To    *json.Number
			Count int
		}
	} `json:"facets"`
}

func get(t *testing.T, srv *apitest.Server, v url.Values) answer {
	t.Helper()
	r := srv.Get(t, "/catalog/v1/product.search?"+v.Encode(), srv.API).Must(t)
	var a answer
	if err := json.Unmarshal(r.Raw, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func skus(a answer) []string {
	out := []string{}
	for _, p := range a.Data {
		out = append(out, p.SKU)
	}
	slices.Sort(out)
	return out
}

// TestSearchSample loads the MicroBase sample (983 fridges) and searches it
// through the API on both stores, against what the file says; both stores
// find the same products.
func TestSearchSample(t *testing.T) {
	dir := sample.Dir(t)
	fridges := readFridges(t, sample.File(t, "dataProductsFridges.jsonl"))
	var mu sync.Mutex
	found := map[string]map[string][]string{} // store -> query -> skus
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		if _, err := loader.Load(t.Context(), dir, loader.Options{URL: srv.URL, Token: srv.Admin, FixSpelling: true}); err != nil {
			t.Fatalf("load the sample: %v", err)
		}
		mine := map[string][]string{}
		for _, q := range []string{"frigorifico bosch", "frigo", "frigorífico BOSCH", "FRIGORIFICO Bósch", "líebhérr", "liebherr",
			"combi no fr", "congelador vertical", "a+", "inoxidable", "kgn", "smeg fab"} {
			a := get(t, srv, url.Values{"q": {q}, "limit": {"1000"}, "fields": {"sku"}})
			want := oracle(fridges, q)
			if got := skus(a); !slices.Equal(got, want) {
				t.Errorf("%q: got %d products, want %d:\ngot  %v\nwant %v", q, len(got), len(want), got, want)
			}
			if a.Total != len(want) {
				t.Errorf("%q: got total %d, want %d", q, a.Total, len(want))
			}
			mine[q] = skus(a)
		}
		// Title matches first: in relevance order, no product whose title
		// holds every word comes after one whose title does not.
		for _, q := range []string{"frigorifico bosch", "frigo", "liebherr", "combi no fr", "inoxidable", "a+", "congelador vertical", "no frost", "acero"} {
			a := get(t, srv, url.Values{"q": {q}, "limit": {"1000"}, "fields": {"sku,title"}})
			inTitle := map[string]bool{}
			for _, f := range fridges {
				if len(oracle([]fridge{{SKU: f.SKU, Title: f.Title}}, q)) == 1 {
					inTitle[f.SKU] = true
				}
			}
			other := ""
			for _, p := range a.Data {
				if !inTitle[p.SKU] {
					other = p.SKU
				} else if other != "" {
					t.Errorf("%q: %s (%q) holds every word in its title but comes after %s", q, p.SKU, p.Title, other)
					break
				}
			}
		}
		mu.Lock()
		found[t.Name()[strings.LastIndex(t.Name(), "/")+1:]] = mine
		mu.Unlock()

		// The Bosch fridges: all of them, all Bosch, titles first.
		a := get(t, srv, url.Values{"q": {"frigorifico bosch"}, "limit": {"1000"}})
		if a.Total < 10 {
			t.Fatalf("frigorifico bosch: only %d found", a.Total)
		}
		for i, p := range a.Data {
			if p.Status != "ONLINE" {
				t.Errorf("%s: status %s", p.SKU, p.Status)
			}
			if i < 5 && (p.Brand != "Bosch" || !strings.Contains(p.Title, "Bosch")) {
				t.Errorf("result %d: %s %q (%s), want a Bosch title first", i, p.SKU, p.Title, p.Brand)
			}
		}
		// Accents either way: the same products.
		if x, y := mine["frigorifico bosch"], mine["FRIGORIFICO Bósch"]; !slices.Equal(x, y) || len(x) == 0 {
			t.Errorf("accents: %d vs %d products", len(x), len(y))
		}
		if x, y := mine["líebhérr"], mine["liebherr"]; !slices.Equal(x, y) || len(x) != 171 {
			t.Errorf("accents in the query: %d vs %d products, want 171", len(x), len(y))
		}
		// A prefix finds by prefix: frigo finds every Frigorífico.
		if n := len(mine["frigo"]); n < 700 {
			t.Errorf("frigo: %d products", n)
		}

		// Facets add up to the total (every fridge has a brand and a USD price).
		a = get(t, srv, url.Values{"q": {"frigo"}, "facets": {"brand,price,categories"}, "limit": {"1"}})
		brands, prices, cats := 0, 0, 0
		for _, b := range a.Facets.Brand {
			brands += b.Count
		}
		for _, b := range a.Facets.Price {
			prices += b.Count
			if b.To == nil || b.Count == 0 {
				t.Errorf("bucket %+v", b)
			}
		}
		for _, c := range a.Facets.Categories {
			cats += c.Count
		}
		if brands != a.Total || prices != a.Total || cats != a.Total || len(a.Data) != 1 || a.Total != len(mine["frigo"]) {
			t.Errorf("frigo: total %d, brands add up to %d, prices to %d, categories to %d; %d on the page", a.Total, brands, prices, cats, len(a.Data))
		}
		if len(a.Facets.Brand) < 5 || len(a.Facets.Price) < 2 {
			t.Errorf("facets: %+v", a.Facets)
		}
		// The price buckets hold what the file says.
		for _, b := range a.Facets.Price {
			pa := get(t, srv, url.Values{"q": {"frigo"}, "priceFrom": {b.From.String()}, "priceTo": {b.To.String() + ".00"}, "limit": {"1"}})
			atTo := get(t, srv, url.Values{"q": {"frigo"}, "priceFrom": {b.To.String()}, "priceTo": {b.To.String()}})
			if pa.Total-atTo.Total != b.Count {
				t.Errorf("bucket %s-%s: %d counted, the filter finds %d (%d at its end)", b.From, b.To, b.Count, pa.Total, atTo.Total)
			}
		}

		// Categories include their descendants.
		var cs []struct{ ID, Title string }
		srv.Get(t, "/catalog/v1/category.list?limit=100", srv.API).Must(t).Decode(t, "data", &cs)
		byTitle := map[string]string{}
		for _, c := range cs {
			byTitle[c.Title] = c.ID
		}
		for title, want := range map[string]int{"Elecrodomésticos": 983, "Frigoríficos y Congeladores": 983, "Frigoríficos combi": 400, "Deportes": 0} {
			a := get(t, srv, url.Values{"categories": {byTitle[title]}, "limit": {"1"}})
			if a.Total != want {
				t.Errorf("category %s: got %d, want %d", title, a.Total, want)
			}
		}
		a = get(t, srv, url.Values{"q": {"bosch"}, "categories": {byTitle["Frigoríficos combi"]}, "brand": {"Bosch"}, "facets": {"categories"}})
		if len(a.Facets.Categories) != 1 || a.Facets.Categories[0].Title != "Frigoríficos combi" || a.Facets.Categories[0].Count != a.Total || a.Total == 0 {
			t.Errorf("bosch combi: total %d, categories %+v", a.Total, a.Facets.Categories)
		}

		// Sort by price over the whole match, paging, fields.
		a = get(t, srv, url.Values{"q": {"frigo"}, "sort": {"price"}, "limit": {"5"}, "skip": {"3"}, "fields": {"title,prices"}})
		if a.Page != (commerce.Page{Limit: 5, Skip: 3}) || len(a.Data) != 5 || a.Data[0].SKU != "" || a.Data[0].Title == "" {
			t.Errorf("page: %+v", a)
		}
		for i := 1; i < len(a.Data); i++ {
			if x, y := a.Data[i-1].Prices[0].Amount, a.Data[i].Prices[0].Amount; len(x) > len(y) || len(x) == len(y) && x > y {
				t.Errorf("price order: %s before %s", x, y)
			}
		}
	})
	if lite, pg := found["sqlite"], found["postgres"]; lite != nil && pg != nil {
		for q, want := range lite {
			if !slices.Equal(pg[q], want) {
				t.Errorf("%q: SQLite found %d, PostgreSQL %d", q, len(want), len(pg[q]))
			}
		}
	}
}

// TestSearchAPI checks who may search and the answers to bad input.
func TestSearchAPI(t *testing.T) {
	srv := apitest.New(t, testdb.SQLite(t))
	const path = "/catalog/v1/product.search"
	srv.Get(t, path, "").Expect(t, http.StatusUnauthorized, commerce.EInvalidToken)
	srv.Get(t, path, "not-a-token").Expect(t, http.StatusUnauthorized, commerce.EInvalidToken)
	r := srv.Post(t, path, srv.API, map[string]any{"q": "x"}).Must(t)
	if string(r.Body["total"]) != "0" || string(r.Body["data"]) != "[]" || string(r.Body["facets"]) != "{}" ||
		string(r.Body["page"]) != `{"limit":10,"skip":0}` {
		t.Errorf("empty answer: %s", r.Raw)
	}
	srv.Get(t, path+"?facets=brand,price", srv.Admin).Must(t)
	for _, tc := range []struct {
		body     string
		problems []string
	}{
		{`{"sort":"cheap"}`, []string{"sort: must be one of relevance, price, -price, newest"}},
		{`{"facets":["brand","colour"]}`, []string{"facets[1]: must be one of brand, categories, price"}},
		{`{"currency":"XXY","priceFrom":1}`, []string{"currency: must be an ISO 4217 currency code"}},
		{`{"priceTo":"a"}`, []string{"priceTo: must be a number"}},
		{`{"priceFrom":-1,"sort":"x"}`, []string{"priceFrom: must not be negative", "sort: must be one of relevance, price, -price, newest"}},
		{`{"priceFrom":10.001}`, nil},
		{`{"priceFrom":20,"priceTo":10}`, []string{"priceTo: must not be below priceFrom"}},
		{`{"limit":0}`, []string{"limit: must be between 1 and 1000"}},
		{`{"q":"` + strings.Repeat("a ", 40) + `"}`, []string{"q: at most 32 words"}},
		{`{"qq":"x"}`, nil},
	} {
		r := srv.Post(t, path, srv.API, tc.body).Expect(t, http.StatusBadRequest, commerce.EValidation)
		var got []string
		r.Decode(t, "data", &got)
		if tc.problems != nil && !slices.Equal(got, tc.problems) {
			t.Errorf("%s: got problems %q, want %q", tc.body, got, tc.problems)
		}
	}
}
