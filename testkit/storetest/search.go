package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
)

// Search is the conformance suite of product search (search.Store over
// sqldb.SearchStore): matching, filters, facets, sorts and paging, and the
// index following the products' writes in their transaction.
func Search(t *testing.T, open Opener) {
	t.Run("match, filters, facets, sorts", func(t *testing.T) { searchMatch(t, open(t)) })
	t.Run("title matches rank first", func(t *testing.T) { searchTitleFirst(t, open(t)) })
	t.Run("words typed as the product has them, in any script", func(t *testing.T) { searchScripts(t, open(t)) })
	t.Run("the index follows product writes in their transaction", func(t *testing.T) { searchFollowsWrites(t, open(t)) })
	t.Run("words longer than the index takes", func(t *testing.T) { searchLongWords(t, open(t)) })
	t.Run("reindex rebuilds the index", func(t *testing.T) { searchReindex(t, open(t)) })
	t.Run("reindex while products are written", func(t *testing.T) { searchReindexConcurrent(t, open(t)) })
	t.Run("the migrations index the products there already", func(t *testing.T) { searchMigrations(t, open(t)) })
	t.Run("answers are consistent while products change", func(t *testing.T) { searchConcurrent(t, open(t)) })
	t.Run("kept results are a fresh search's", func(t *testing.T) { searchKept(t, open(t)) })
}

// searchProduct returns a product with the text fields and one USD price
// (major units).
func searchProduct(sku, title, brand, description string, usd int64, categories ...string) *catalog.Product {
	p := newProduct(sku, categories...)
	p.Title, p.Brand, p.Description = title, brand, description
	p.Prices[0].Amount = usd * 100
	return p
}

// searchFixture is the catalog of searchMatch: categories A > A1 and B.
func searchFixture(t *testing.T, db *sqldb.DB) {
	a := newCategory("A", root)
	a1, b := newCategory("A1", a), newCategory("B", root)
	draft := searchProduct("D-1", "Frigorífico Bosch borrador", "Bosch", "", 500, "A1")
	draft.Status = catalog.StatusDraft
	eur := searchProduct("E-1", "Nevera portátil", "", "Para el camping", 0, "B")
	eur.Prices[0].Currency = "EUR"
	eur.Prices[0].Amount = 9900
	seed(t, sqldb.NewCatalogStore(db), []*catalog.Category{a, a1, b},
		searchProduct("BOS-KGN39", "Frigorífico combi Bosch KGN39XI36", "Bosch", "No Frost, acero inoxidable", 799, "A1"),
		searchProduct("BOS-WAN28", "Lavadora Bosch Serie 4", "Bosch", "Carga frontal, 8 kg", 450, "B"),
		searchProduct("FAG-FFK67", "FRIGORIFICO Fagor FFK6735BX", "Fagor", "Clase A+", 1200, "A"),
		draft,
		searchProduct("LIE-CN45", "Congelador Liebherr", "Liebherr", "Cabe junto a un frigorífico Bosch", 899, "A1", "B"),
		eur,
	)
}

// run searches with an input and returns the ids found and the result.
func runSearch(t *testing.T, db *sqldb.DB, in search.SearchInput) ([]string, *search.Result) {
	t.Helper()
	q, _, err := in.Query()
	if err != nil {
		t.Fatalf("input %+v: %v", in, err)
	}
	res, err := searchStoreOf(db).Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	if len(res.IDs) != len(res.Products) {
		t.Fatalf("got %d ids and %d products", len(res.IDs), len(res.Products))
	}
	for i, p := range res.Products {
		if p.ID != res.IDs[i] {
			t.Fatalf("product %d is %s, id %s", i, p.ID, res.IDs[i])
		}
	}
	return res.IDs, res
}

func str(s string) *string { return &s }

func num(s string) *money.Number { n := money.NewNumber(s); return &n }

func searchMatch(t *testing.T, db *sqldb.DB) {
	searchFixture(t, db)
	const (
		kgn, wan, ffk, cn = "p-BOS-KGN39", "p-BOS-WAN28", "p-FAG-FFK67", "p-LIE-CN45"
	)
	for _, tc := range []struct {
		name    string
		in      search.SearchInput
		want    []string // in order
		ordered bool
	}{
		{"every word, title matches first", search.SearchInput{Q: str("frigorifico bosch")}, []string{kgn, cn}, true},
		{"accents in the query", search.SearchInput{Q: str("FRIGORÍFICO  bósch")}, []string{kgn, cn}, true},
		{"invalid UTF-8 separates words", search.SearchInput{Q: str("frigorifico\xc3bosch")}, []string{kgn, cn}, true},
		{"the last word as a prefix", search.SearchInput{Q: str("frigo")}, []string{kgn, ffk, cn}, false},
		{"other words whole", search.SearchInput{Q: str("frigo bosch")}, nil, false},
		{"sku", search.SearchInput{Q: str("kgn39")}, []string{kgn}, true},
		{"sku word prefix", search.SearchInput{Q: str("ffk67")}, []string{ffk}, true},
		{"description", search.SearchInput{Q: str("carga frontal")}, []string{wan}, true},
		{"draft never found", search.SearchInput{Q: str("borrador")}, nil, false},
		{"punctuation only: everything", search.SearchInput{Q: str(" -,. ")}, []string{kgn, wan, ffk, cn, "p-E-1"}, true},
		{"category with descendants", search.SearchInput{Categories: []string{"A"}}, []string{kgn, ffk, cn}, true},
		{"categories and words", search.SearchInput{Q: str("bosch"), Categories: []string{"B"}}, []string{wan, cn}, false},
		{"unknown category", search.SearchInput{Categories: []string{"nope"}}, nil, false},
		{"brand", search.SearchInput{Brand: []string{"Bosch", "Fagor"}}, []string{kgn, wan, ffk}, true},
		{"price range inclusive", search.SearchInput{PriceFrom: num("450"), PriceTo: num("799")}, []string{kgn, wan}, true},
		{"price from", search.SearchInput{PriceFrom: num("899.00")}, []string{ffk, cn}, true},
		{"price in EUR", search.SearchInput{PriceTo: num("99"), Currency: str("EUR")}, []string{"p-E-1"}, true},
		{"sort price", search.SearchInput{Sort: str("price")}, []string{wan, kgn, cn, ffk, "p-E-1"}, true},
		{"sort -price", search.SearchInput{Sort: str("-price")}, []string{ffk, cn, kgn, wan, "p-E-1"}, true},
		{"sort newest", search.SearchInput{Sort: str("newest"), Q: str("bosch")}, []string{cn, wan, kgn}, true},
		{"relevance without words: creation order", search.SearchInput{Sort: str("relevance")}, []string{kgn, wan, ffk, cn, "p-E-1"}, true},
		{"page", search.SearchInput{Sort: str("price"), PageArgs: page(2, 1)}, []string{kgn, cn}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res := runSearch(t, db, tc.in)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if !tc.ordered {
				got = slices.Sorted(slices.Values(got))
				want = slices.Sorted(slices.Values(want))
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			if tc.in.Limit == nil && res.Total != len(want) {
				t.Errorf("got total %d, want %d", res.Total, len(want))
			}
		})
	}
	_, res := runSearch(t, db, search.SearchInput{Sort: str("price"), PageArgs: page(2, 1)})
	if res.Total != 5 {
		t.Errorf("page: got total %d, want 5 (the whole match)", res.Total)
	}

	// Facets over the whole match, not the page.
	_, res = runSearch(t, db, search.SearchInput{Q: str("bosch"), Facets: []string{"brand", "categories", "price"}, PageArgs: page(1, 0)})
	if res.Total != 3 {
		t.Fatalf("got total %d, want 3", res.Total)
	}
	if want := []search.BrandCount{{Value: "Bosch", Count: 2}, {Value: "Liebherr", Count: 1}}; !reflect.DeepEqual(res.Brands, want) {
		t.Errorf("got brands %+v, want %+v", res.Brands, want)
	}
	if want := []search.CategoryCount{{ID: "A1", Title: "Category A1", Count: 2}, {ID: "B", Title: "Category B", Count: 2}}; !reflect.DeepEqual(res.Categories, want) {
		t.Errorf("got categories %+v, want %+v", res.Categories, want)
	}
	bounds := search.PriceBuckets(2)
	want := make([]int, len(bounds))
	for _, usd := range []int64{799, 450, 899} {
		want[slices.IndexFunc(bounds, func(b int64) bool { return b > usd*100 })-1]++
	}
	if !slices.Equal(res.Prices, want) {
		t.Errorf("got price buckets %v, want %v", res.Prices, want)
	}

	// No match: empty facets.
	_, res = runSearch(t, db, search.SearchInput{Q: str("zzz"), Facets: []string{"brand", "categories", "price"}})
	if res.Total != 0 || len(res.Brands) != 0 || len(res.Categories) != 0 || slices.Max(res.Prices) != 0 {
		t.Errorf("no match: got %+v", res)
	}
}

// searchTitleFirst: the products whose title holds every word come first,
// however often the words fill the other fields (a weighted rank alone
// does not promise it), then the others by rank (sqldb.RelevanceRank).
func searchTitleFirst(t *testing.T, db *sqldb.DB) {
	many := strings.Repeat("frigorífico bosch ", 12)
	seed(t, sqldb.NewCatalogStore(db), nil,
		searchProduct("T-DESC", "Nevera", "Bosch", many+"aeg", 100),
		searchProduct("T-BOTH", "Frigorífico combi de acero inoxidable, 201 cm, No Frost, cajón de frescos y dispensador de agua, Bosch Serie 6", "", "", 100),
		searchProduct("T-BRAND", "Nevera frigorífico", "Bosch", many, 100),
		searchProduct("T-SHORT", "Bosch frigorífico", "", "", 100),
		searchProduct("T-SKU", "AEG frigorífico", "", "", 100),
	)
	for _, tc := range []struct {
		q           string
		first, rest []string // first in any order, then rest in any order
	}{
		{"frigorifico bosch", []string{"p-T-BOTH", "p-T-SHORT"}, []string{"p-T-DESC", "p-T-BRAND"}},
		{"bosch frigo", []string{"p-T-BOTH", "p-T-SHORT"}, []string{"p-T-DESC", "p-T-BRAND"}},
		{"a", []string{"p-T-BOTH", "p-T-SKU"}, []string{"p-T-DESC"}},
	} {
		ids, _ := runSearch(t, db, search.SearchInput{Q: str(tc.q)})
		if len(ids) != len(tc.first)+len(tc.rest) {
			t.Errorf("%q: got %v, want %v then %v", tc.q, ids, tc.first, tc.rest)
			continue
		}
		head, tail := slices.Sorted(slices.Values(ids[:len(tc.first)])), slices.Sorted(slices.Values(ids[len(tc.first):]))
		if !slices.Equal(head, slices.Sorted(slices.Values(tc.first))) || !slices.Equal(tail, slices.Sorted(slices.Values(tc.rest))) {
			t.Errorf("%q: got %v, want %v first, then %v", tc.q, ids, tc.first, tc.rest)
		}
	}

	// Issue 27: a word every description has, and a word of some titles.
	// The order is exact, the same on every store: the most words in the
	// title first, then in the brand or sku, then creation order, however
	// often the description repeats the words.
	seed(t, sqldb.NewCatalogStore(db), nil,
		searchProduct("R-DESC1", "Lavadora", "", "silencioso, junto al frigorífico", 100),
		searchProduct("R-DESC2", "Nevera grande", "", "silencioso "+strings.Repeat("frigorífico ", 20), 100),
		searchProduct("R-TITLE", "Frigorífico americano", "", "silencioso", 100),
		searchProduct("R-BRAND", "Combi", "Frigoríficos García", "silencioso", 100),
		searchProduct("R-BOTH", "Frigorífico silencioso", "", "silencioso", 100),
	)
	want := []string{"p-R-BOTH", "p-R-TITLE", "p-R-BRAND", "p-R-DESC1", "p-R-DESC2"}
	for _, q := range []string{"silencioso frigorifico", "SILENCIOSO frigo"} {
		if ids, _ := runSearch(t, db, search.SearchInput{Q: str(q)}); !slices.Equal(ids, want) {
			t.Errorf("%q: got %v, want %v", q, ids, want)
		}
	}
}

// searchScripts: a word typed as the product has it is found, in any
// script (Korean syllables, numbers such as ² or ½, NFD accents), and both
// stores fold the same way: what SQLite's tokenizer (unicode61
// remove_diacritics 2) keeps, PostgreSQL keeps too (ß, æ, œ, ligatures,
// Greek accents and ё are not spelled out or stripped), so that a query
// spelled otherwise finds the product on neither.
func searchScripts(t *testing.T, db *sqldb.DB) {
	products := []*catalog.Product{
		searchProduct("DE-1", "Kühlschrank Größe XL, Straße", "Liebherr", "Œuvre d'art, ﬁn, Æther", 100),
		searchProduct("RU-1", "Холодильник Русский ёж", "Бирюса", "", 100),
		searchProduct("EL-1", "Ψυγείο Ελληνικά", "", "", 100),
		searchProduct("KO-1", "냉장고 삼성 제품", "", "", 100),
		searchProduct("NUM-1", "Nevera 2 m² ½ Ⅻ", "", "", 100),
		searchProduct("NFD-1", "Frigori\u0301fico combi", "", "", 100),
		searchProduct("TR-1", "İstanbul ılık", "", "", 100),
	}
	seed(t, sqldb.NewCatalogStore(db), nil, products...)
	for _, tc := range []struct{ q, want string }{
		{"Straße", "p-DE-1"}, {"größe", "p-DE-1"}, {"kuhlschrank", "p-DE-1"}, {"œuvre", "p-DE-1"}, {"ﬁn", "p-DE-1"}, {"ÆTHER", "p-DE-1"},
		{"Русский", "p-RU-1"}, {"холодильник русск", "p-RU-1"}, {"ёж", "p-RU-1"}, {"бирюса", "p-RU-1"},
		{"Ελληνικά", "p-EL-1"}, {"ψυγείο", "p-EL-1"}, {"ΕΛΛΗΝΙΚΆ", "p-EL-1"},
		{"삼성 제품", "p-KO-1"}, {"냉장고", "p-KO-1"},
		{"m²", "p-NUM-1"}, {"m² nevera", "p-NUM-1"}, {"½", "p-NUM-1"}, {"Ⅻ", "p-NUM-1"},
		{"frigorífico", "p-NFD-1"}, {"frigorifico combi", "p-NFD-1"}, {"Frigori\u0301fico", "p-NFD-1"},
		{"istanbul", "p-TR-1"}, {"ılık", "p-TR-1"},
		// Spelled otherwise: found on neither store.
		{"strasse", ""}, {"GRÖSSE", ""}, {"grosse xl", ""}, {"oeuvre", ""}, {"fin art", ""}, {"aether", ""},
		{"ελληνικα", ""}, {"ψυγειο ελλ", ""}, {"еж", ""},
	} {
		ids, _ := runSearch(t, db, search.SearchInput{Q: str(tc.q)})
		want := []string{}
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%q: got %v, want %v", tc.q, ids, want)
		}
	}
}

// searchLongWords: a word longer than PostgreSQL's tsvector takes (2,047
// bytes) does not stop a product from being saved, updated or reindexed,
// nor a search: the product is found by its other words, by the long
// word's start, and by the whole word (each store cuts the words it indexes
// and searches for alike).
func searchLongWords(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	long := strings.Repeat("a", 5000)
	cyrillic := strings.Repeat("я", 3000) // 6,000 bytes
	p := searchProduct("LONG-1", "Nevera "+long+" grande", "Bosch", "Descripción "+cyrillic+" final", 100)
	seed(t, store, nil, p)
	find := func(text string) []string {
		t.Helper()
		q := search.Query{Words: search.Words(text), Text: text, Currency: search.DefaultCurrency, Sort: search.SortRelevance, Limit: 10}
		res, err := sqldb.NewSearchStore(db).Search(ctx, q)
		if err != nil {
			t.Fatalf("search %.40q...: %v", text, err)
		}
		return res.IDs
	}
	for _, tc := range []struct {
		name, q string
		found   bool
	}{
		{"its other words", "nevera grande", true},
		{"the description's", "descripcion final", true},
		{"a long word's start", "nevera " + long[:3000], true},
		{"a long word whole", long + " grande", true},
		{"a long word in another script, whole", strings.ToUpper(cyrillic) + " nevera", true},
		{"a long word that is not there", strings.Repeat("b", 5000), false},
		{"a long word that is not there, first", strings.Repeat("b", 5000) + " nevera", false},
	} {
		if got := find(tc.q); tc.found != slices.Equal(got, []string{p.ID}) || !tc.found && len(got) != 0 {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
	err := store.Update(ctx, func(tx catalog.Tx) error {
		cur, v, err := tx.Product(ctx, p.ID, true)
		if err != nil {
			return err
		}
		cur.Title = "Congelador " + strings.Repeat("z", 4000)
		return tx.UpdateProduct(ctx, cur, v)
	})
	if err != nil {
		t.Fatalf("update with a long word: %v", err)
	}
	if got := find("congelador zzz"); !slices.Equal(got, []string{p.ID}) {
		t.Errorf("updated: got %v", got)
	}
	if n, err := sqldb.NewSearchStore(db).Reindex(ctx); err != nil || n != 1 {
		t.Fatalf("reindex: got %d, %v; want 1", n, err)
	}
	if got := find("congelador " + strings.Repeat("z", 4000)); !slices.Equal(got, []string{p.ID}) {
		t.Errorf("reindexed: got %v", got)
	}
}

func page(limit, skip int) commerce.PageArgs {
	return commerce.PageArgs{Limit: &limit, Skip: &skip}
}

func searchFollowsWrites(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	find := func(q string) []string {
		t.Helper()
		ids, _ := runSearch(t, db, search.SearchInput{Q: &q})
		return ids
	}
	p := searchProduct("SKU-1", "Frigorífico Balay", "Balay", "", 600)

	// Created in a transaction that rolls back: not in the index.
	err := store.Update(ctx, func(tx catalog.Tx) error {
		if err := tx.CreateProducts(ctx, []*catalog.Product{p}); err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("got %v, want the rollback", err)
	}
	if got := find("balay"); len(got) != 0 {
		t.Fatalf("rolled-back product found: %v", got)
	}
	seed(t, store, []*catalog.Category{newCategory("F1", root), newCategory("F2", root)}, p)
	if got := find("balay"); !slices.Equal(got, []string{p.ID}) {
		t.Fatalf("created: got %v", got)
	}

	update := func(change func(p *catalog.Product), commit bool) {
		t.Helper()
		err := store.Update(ctx, func(tx catalog.Tx) error {
			cur, v, err := tx.Product(ctx, p.ID, true)
			if err != nil {
				return err
			}
			change(cur)
			if err := tx.UpdateProduct(ctx, cur, v); err != nil {
				return err
			}
			if !commit {
				return errRollback
			}
			return nil
		})
		if commit && err != nil || !commit && err != errRollback {
			t.Fatal(err)
		}
	}
	// Renamed, rolled back: still under the old name.
	update(func(p *catalog.Product) { p.Title = "Nevera grande" }, false)
	if got := find("frigorifico"); !slices.Equal(got, []string{p.ID}) {
		t.Fatalf("rename rolled back: got %v", got)
	}
	update(func(p *catalog.Product) { p.Title = "Nevera grande" }, true)
	if got, old := find("nevera"), find("frigorifico"); !slices.Equal(got, []string{p.ID}) || len(old) != 0 {
		t.Fatalf("renamed: got %v for the new name, %v for the old", got, old)
	}
	// Brand, sku and description follow too.
	update(func(p *catalog.Product) { p.Brand, p.SKU, p.Description = "Teka", "TK-77", "Silenciosa" }, true)
	for _, q := range []string{"teka", "tk", "77", "silenciosa"} {
		if got := find(q); !slices.Equal(got, []string{p.ID}) {
			t.Errorf("%q after the update: got %v", q, got)
		}
	}
	if got := find("balay"); len(got) != 0 {
		t.Errorf("old brand still found: %v", got)
	}
	// What a search filters, sorts and counts by follows too: the brand,
	// the prices, the categories.
	update(func(p *catalog.Product) {
		p.Prices = append(p.Prices, catalog.Price{ID: "eur", Amount: 4550, Currency: "EUR"}, catalog.Price{ID: "eur2", Amount: 4000, Currency: "EUR", Country: "ES"})
		p.Categories = []string{"F2"}
	}, true)
	for _, tc := range []struct {
		name string
		in   search.SearchInput
		want int
	}{
		{"new brand", search.SearchInput{Brand: []string{"Teka"}}, 1},
		{"old brand", search.SearchInput{Brand: []string{"Balay"}}, 0},
		{"new category", search.SearchInput{Categories: []string{"F2"}}, 1},
		{"no category before", search.SearchInput{Categories: []string{"F1"}}, 0},
		{"new price, its lowest", search.SearchInput{Currency: str("EUR"), PriceFrom: num("40"), PriceTo: num("40")}, 1},
		{"not its lowest", search.SearchInput{Currency: str("EUR"), PriceFrom: num("45.50")}, 0},
		{"the USD price still", search.SearchInput{PriceFrom: num("600"), PriceTo: num("600")}, 1},
	} {
		in := tc.in
		in.Q = str("silenciosa")
		in.Facets = []string{"brand", "categories", "price"}
		if ids, res := runSearch(t, db, in); len(ids) != tc.want {
			t.Errorf("%s: got %v", tc.name, ids)
		} else if tc.want == 1 && (len(res.Brands) != 1 || res.Brands[0].Value != "Teka" || len(res.Categories) != 1 || res.Categories[0].ID != "F2") {
			t.Errorf("%s: got facets %+v %+v", tc.name, res.Brands, res.Categories)
		}
	}
	update(func(p *catalog.Product) { p.Categories = []string{"F1"}; p.Prices = p.Prices[:1] }, true)
	if ids, _ := runSearch(t, db, search.SearchInput{Q: str("silenciosa"), Categories: []string{"F1"}}); len(ids) != 1 {
		t.Errorf("category changed back: got %v", ids)
	}
	if ids, _ := runSearch(t, db, search.SearchInput{Q: str("silenciosa"), Currency: str("EUR"), PriceTo: num("1000")}); len(ids) != 0 {
		t.Errorf("EUR prices removed: got %v", ids)
	}
	// DRAFT: not found; ONLINE again: found.
	update(func(p *catalog.Product) { p.Status = catalog.StatusDraft }, true)
	if got := find("nevera"); len(got) != 0 {
		t.Fatalf("draft found: %v", got)
	}
	update(func(p *catalog.Product) { p.Status = catalog.StatusOnline }, true)
	if got := find("nevera"); !slices.Equal(got, []string{p.ID}) {
		t.Fatalf("online again: got %v", got)
	}
	// Removed, rolled back: still found; removed: gone, index row too.
	remove := func(commit bool) error {
		return store.Update(ctx, func(tx catalog.Tx) error {
			if err := tx.RemoveProduct(ctx, p.ID); err != nil || commit {
				return err
			}
			return errRollback
		})
	}
	if err := remove(false); err != errRollback {
		t.Fatal(err)
	}
	if got := find("nevera"); !slices.Equal(got, []string{p.ID}) {
		t.Fatalf("remove rolled back: got %v", got)
	}
	if err := remove(true); err != nil {
		t.Fatal(err)
	}
	if got := find("nevera"); len(got) != 0 {
		t.Fatalf("removed product found: %v", got)
	}
	n, err := sqldb.NewSearchStore(db).Reindex(ctx)
	if err != nil || n != 0 {
		t.Fatalf("reindex after the removal: got %d, %v; want 0", n, err)
	}
}

func searchReindex(t *testing.T, db *sqldb.DB) {
	searchFixture(t, db)
	ctx := context.Background()
	all := search.SearchInput{Q: str("frigo"), Facets: []string{"brand", "categories", "price"}}
	before, was := runSearch(t, db, all)
	// Emptied behind the products' back (a restored backup without it, a
	// bug), the index finds nothing until rebuilt.
	empty := map[string]string{"sqlite": `INSERT INTO product_search (product_search) VALUES ('delete-all')`,
		"postgres": `DELETE FROM product_search`}[db.Dialect().Name()]
	if empty == "" {
		t.Fatalf("no way to empty the index of %s", db.Dialect().Name())
	}
	if err := db.Update(ctx, func(tx *sqldb.Tx) error { _, err := tx.Exec(ctx, empty); return err }); err != nil {
		t.Fatal(err)
	}
	// A fresh store: the emptying, behind the catalog's back, bumped no
	// version, and the suite's store answers what it kept.
	q, _, err := all.Query()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := sqldb.NewSearchStore(db).Search(ctx, q); err != nil || len(res.IDs) != 0 {
		t.Fatalf("emptied index: found %v (%v)", res, err)
	}
	n, err := sqldb.NewSearchStore(db).Reindex(ctx)
	if err != nil || n != 6 {
		t.Fatalf("got %d, %v; want 6 products", n, err)
	}
	after, is := runSearch(t, db, all)
	if len(before) != 3 || !slices.Equal(before, after) {
		t.Errorf("before the rebuild %v, after %v, want the same 3", before, after)
	}
	was.IDs, was.Products, is.IDs, is.Products = nil, nil, nil, nil
	if !reflect.DeepEqual(was, is) {
		t.Errorf("facets before the rebuild %+v, after %+v", was, is)
	}
	// The filters read what the rebuild wrote.
	if ids, _ := runSearch(t, db, search.SearchInput{Categories: []string{"A"}, Brand: []string{"Bosch"}, PriceTo: num("800")}); len(ids) != 1 {
		t.Errorf("filters after the rebuild: got %v", ids)
	}
}

// searchReindexConcurrent: a reindex while other transactions create and
// rename products ends without an error, and leaves every product indexed
// as it is in the end (PostgreSQL: the reindex's rows and a product's
// written at the end of its transaction would collide, or the reindex
// would write a product's old text over its new).
func searchReindexConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	searches := sqldb.NewSearchStore(db)
	var seeded []*catalog.Product
	for i := range 300 {
		seeded = append(seeded, searchProduct(fmt.Sprintf("S-%d", i), "Lavadora sembrada", "Balay", "", 100))
	}
	seed(t, store, nil, seeded...)
	done := make(chan struct{})
	// The reindexes start once a product is committed, however slow the
	// machine, so that they run while products are written.
	first := make(chan struct{})
	var firstOnce sync.Once
	var writers sync.WaitGroup
	created, renamed := make([]int, 2), make([]int, 2)
	for w := range 2 {
		writers.Go(func() {
			defer firstOnce.Do(func() { close(first) })
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				p := searchProduct(fmt.Sprintf("R%d-%d", w, i), "Frigorífico reindexado", "Bosch", "", 100)
				err := store.Update(ctx, func(tx catalog.Tx) error {
					if err := tx.CreateProducts(ctx, []*catalog.Product{p}); err != nil {
						return err
					}
					if i%2 == 0 {
						return nil
					}
					prev, v, err := tx.Product(ctx, fmt.Sprintf("p-R%d-%d", w, i-1), true)
					if err != nil {
						return err
					}
					prev.Title = "Nevera renombrada"
					return tx.UpdateProduct(ctx, prev, v)
				})
				if err != nil {
					t.Error(err)
					return
				}
				created[w]++
				if i%2 == 1 {
					renamed[w]++
				}
				firstOnce.Do(func() { close(first) })
			}
		})
	}
	<-first
	reindexed := 0
	for range 8 {
		n, err := searches.Reindex(ctx)
		if err != nil {
			t.Errorf("reindex: %v", err)
			break
		}
		if n < len(seeded) {
			t.Errorf("reindex: %d products, want at least %d", n, len(seeded))
		}
		reindexed++
	}
	close(done)
	writers.Wait()
	total := func(q string) int {
		_, res := runSearch(t, db, search.SearchInput{Q: str(q), PageArgs: page(1, 0)})
		return res.Total
	}
	c, r := created[0]+created[1], renamed[0]+renamed[1]
	if got := total("frigorifico reindexado"); got != c-r {
		t.Errorf("%d products under their first title, want %d (%d created, %d renamed)", got, c-r, c, r)
	}
	if got := total("nevera renombrada"); got != r {
		t.Errorf("%d products renamed, want %d", got, r)
	}
	if got := total("lavadora sembrada"); got != len(seeded) {
		t.Errorf("%d seeded products, want %d", got, len(seeded))
	}
	if reindexed == 0 || c == 0 {
		t.Errorf("%d reindexes, %d products created: the test proves nothing", reindexed, c)
	}
}

// searchMigrations takes the index away as if its migrations had not run
// yet, then runs them: they index the products there already.
func searchMigrations(t *testing.T, db *sqldb.DB) {
	searchFixture(t, db)
	ctx := context.Background()
	all := search.SearchInput{Q: str("frigo"), Facets: []string{"brand", "categories", "price"}}
	before, was := runSearch(t, db, all)
	undo := map[string][]string{
		"sqlite": {`DROP TRIGGER product_search_insert`, `DROP TRIGGER product_search_update`, `DROP TRIGGER product_search_delete`,
			`DROP TABLE product_search`},
		"postgres": {`DROP TRIGGER product_search_write ON products`, `DROP TRIGGER product_search_remove ON products`,
			`DROP TABLE product_search`, `DROP FUNCTION product_search_write()`, `DROP FUNCTION product_search_remove()`,
			`DROP FUNCTION product_search_doc(text, text, text, text)`, `DROP FUNCTION product_search_words(text, text, text[])`,
			`DROP FUNCTION product_search_map(text)`, `DROP FUNCTION product_search_fold(text, text[])`,
			`DROP FUNCTION product_search_cut(text)`, `DROP TABLE product_search_chars`,
			`DROP FUNCTION product_search_categories(bigint)`, `DROP FUNCTION product_search_prices(bigint)`,
			`DROP FUNCTION product_search_query(text, text)`},
	}[db.Dialect().Name()]
	if undo == nil {
		t.Fatalf("no way to take the index of %s away", db.Dialect().Name())
	}
	undo = append(undo, `DELETE FROM schema_migrations WHERE version LIKE '%search%'`)
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range undo {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	after, is := runSearch(t, db, all)
	was.IDs, was.Products, is.IDs, is.Products = nil, nil, nil, nil
	if len(before) != 3 || !slices.Equal(before, after) || !reflect.DeepEqual(was, is) {
		t.Errorf("before %v %+v, after the migrations %v %+v", before, was, after, is)
	}
	// And the index follows the writes again.
	seed(t, sqldb.NewCatalogStore(db), nil, searchProduct("NEW-1", "Frigorífico nuevo", "Balay", "", 100))
	if ids, _ := runSearch(t, db, search.SearchInput{Q: str("frigorifico nuev"), Brand: []string{"Balay"}}); !slices.Equal(ids, []string{"p-NEW-1"}) {
		t.Errorf("created after the migrations: got %v", ids)
	}
}

// searchConcurrent searches while other goroutines create and remove
// products: each answer's total, page and facets come from one snapshot,
// so the facets add up to the total and the page holds min(total, limit)
// products, whatever commits in between.
func searchConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	searches := sqldb.NewSearchStore(db)
	done := make(chan struct{})
	// The readers start once a product is committed, however slow the
	// machine, so that they search a catalog that changes.
	first := make(chan struct{})
	var firstOnce sync.Once
	var writers sync.WaitGroup
	for w := range 2 {
		writers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				p := searchProduct(fmt.Sprintf("W%d-%d", w, i), "Frigorífico concurrente", []string{"Bosch", "Balay"}[i%2], "", int64(100+i))
				err := store.Update(ctx, func(tx catalog.Tx) error {
					if err := tx.CreateProducts(ctx, []*catalog.Product{p}); err != nil {
						return err
					}
					if i%3 == 2 { // and remove the previous one
						return tx.RemoveProduct(ctx, fmt.Sprintf("p-W%d-%d", w, i-1))
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					firstOnce.Do(func() { close(first) })
					return
				}
				firstOnce.Do(func() { close(first) })
			}
		})
	}
	<-first
	q, _, err := search.SearchInput{Q: str("frigorifico concu"), Facets: []string{"brand", "price"}, PageArgs: page(1000, 0)}.Query()
	if err != nil {
		t.Fatal(err)
	}
	var readers sync.WaitGroup
	seen := make([]int, 2)
	for r := range 2 {
		readers.Go(func() {
			for range 40 {
				res, err := searches.Search(ctx, q)
				if err != nil {
					t.Error(err)
					return
				}
				brands, prices := 0, 0
				for _, b := range res.Brands {
					brands += b.Count
				}
				for _, n := range res.Prices {
					prices += n
				}
				if brands != res.Total || prices != res.Total || len(res.IDs) != res.Total {
					t.Errorf("total %d, %d on the page, brands add up to %d, prices to %d", res.Total, len(res.IDs), brands, prices)
					return
				}
				seen[r] = max(seen[r], res.Total)
			}
		})
	}
	readers.Wait()
	close(done)
	writers.Wait()
	if seen[0] == 0 && seen[1] == 0 {
		t.Error("the readers never saw a product: the test proves nothing")
	}
}
