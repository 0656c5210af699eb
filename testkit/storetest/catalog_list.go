package storetest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
)

// pat returns a pattern argument.
func pat(s string) *commerce.Pattern {
	p := commerce.Pattern(s)
	return &p
}

func catalogListProducts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	c1, c2 := newCategory("c1", root), newCategory("c2", root)
	a := newProduct("A", c1.ID)
	a.Title, a.Brand, a.Description, a.Modifiers = "Frigorífico No Frost", "Bosch", "Cold and quiet", []string{"size"}
	a.Prices = []catalog.Price{{ID: "pa", Amount: 100, Currency: "USD", Country: "US", CustomerType: "VIP", Channel: "WEB"}}
	a.Medias = []catalog.Media{{ID: "img1", URL: "u"}}
	b := newProduct("B", c2.ID)
	b.Title, b.Brand, b.IsNetPrice, b.TaxCode, b.StockStatus = "Frigorífico combi", "BOSCH", true, "reduced", catalog.StockUnlimited
	b.Prices = []catalog.Price{{ID: "pb", Amount: 100, Currency: "EUR", Country: "ES", Channel: "MOBILE"}}
	c := newProduct("C", c1.ID, c2.ID)
	c.Title, c.Brand, c.StockStatus = "Zapatilla", "Nike", catalog.StockDiscontinued
	c.Prices = []catalog.Price{{ID: "pc1", Amount: 100, Currency: "USD", CustomerType: "B2B"}, {ID: "pc2", Amount: 100, Currency: "EUR"}}
	d := newProduct("D", c1.ID)
	d.Status = catalog.StatusDraft
	v := newProduct("V")
	v.Base, v.Variations = a.ID, []catalog.Variation{{ID: "size", Value: "L"}}
	seed(t, store, []*catalog.Category{c1, c2}, a, b, c, d, v)

	f := func(change func(f *catalog.ProductFilter)) catalog.ProductFilter {
		f := catalog.ProductFilter{Statuses: []string{catalog.StatusOnline}, Limit: 10}
		change(&f)
		return f
	}
	tests := []struct {
		name string
		f    catalog.ProductFilter
		want []*catalog.Product
	}{
		{"online", f(func(f *catalog.ProductFilter) {}), []*catalog.Product{a, b, c, v}},
		{"draft", f(func(f *catalog.ProductFilter) { f.Statuses = []string{catalog.StatusDraft} }), []*catalog.Product{d}},
		{"both", f(func(f *catalog.ProductFilter) { f.Statuses = append(f.Statuses, catalog.StatusDraft) }), []*catalog.Product{a, b, c, d, v}},
		{"ids", f(func(f *catalog.ProductFilter) { f.IDs = []string{c.ID, a.ID, "nope", d.ID} }), []*catalog.Product{a, c}},
		{"skus", f(func(f *catalog.ProductFilter) { f.SKUs = []string{"B", "C"} }), []*catalog.Product{b, c}},
		{"title", f(func(f *catalog.ProductFilter) { f.Title = pat("frigorífico") }), []*catalog.Product{a, b}},
		{"title anchored", f(func(f *catalog.ProductFilter) { f.Title = pat("^frigorífico combi$") }), []*catalog.Product{b}},
		{"description", f(func(f *catalog.ProductFilter) { f.Description = pat("QUIET") }), []*catalog.Product{a}},
		{"brand", f(func(f *catalog.ProductFilter) { f.Brand = pat("^bosch$") }), []*catalog.Product{a, b}},
		{"empty pattern", f(func(f *catalog.ProductFilter) { f.Brand = pat("") }), []*catalog.Product{a, b, c, v}},
		{"tax codes", f(func(f *catalog.ProductFilter) { f.TaxCodes = []string{"reduced"} }), []*catalog.Product{b}},
		{"stock statuses", f(func(f *catalog.ProductFilter) { f.StockStatuses = []int{1, 2} }), []*catalog.Product{b, c}},
		{"net prices", f(func(f *catalog.ProductFilter) { f.IsNetPrice = new(true) }), []*catalog.Product{b}},
		{"gross prices", f(func(f *catalog.ProductFilter) { f.IsNetPrice = new(false) }), []*catalog.Product{a, c, v}},
		{"bases", f(func(f *catalog.ProductFilter) { f.Bases = []string{a.ID} }), []*catalog.Product{v}},
		{"one category", f(func(f *catalog.ProductFilter) { f.Categories = []string{c2.ID} }), []*catalog.Product{b, c}},
		{"categories", f(func(f *catalog.ProductFilter) { f.Categories = []string{c2.ID, c1.ID} }), []*catalog.Product{a, b, c}},
		{"price currency", f(func(f *catalog.ProductFilter) { f.PriceCurrencies = []string{"EUR"} }), []*catalog.Product{b, c}},
		{"price id", f(func(f *catalog.ProductFilter) { f.PriceIDs = []string{"pc2"} }), []*catalog.Product{c}},
		{"price country", f(func(f *catalog.ProductFilter) { f.PriceCountries = []string{"ES", "US"} }), []*catalog.Product{a, b}},
		{"price customer type", f(func(f *catalog.ProductFilter) { f.PriceCustomerTypes = []string{"B2B"} }), []*catalog.Product{c}},
		{"price channel", f(func(f *catalog.ProductFilter) { f.PriceChannels = []string{"WEB", "MOBILE"} }), []*catalog.Product{a, b}},
		// The price filters apply to one and the same price: c has a USD
		// price and an EUR price, neither of them a USD B2C one.
		{"one price matches all price filters", f(func(f *catalog.ProductFilter) {
			f.PriceCurrencies, f.PriceCustomerTypes = []string{"EUR"}, []string{"B2B"}
		}), nil},
		{"medias", f(func(f *catalog.ProductFilter) { f.MediaIDs = []string{"img1"} }), []*catalog.Product{a}},
		{"everything at once", f(func(f *catalog.ProductFilter) {
			f.Categories, f.Brand, f.PriceCurrencies, f.StockStatuses = []string{c1.ID, c2.ID}, pat("bosch"), []string{"EUR"}, []int{1}
		}), []*catalog.Product{b}},
		{"limit", f(func(f *catalog.ProductFilter) { f.Limit = 2 }), []*catalog.Product{a, b}},
		{"skip", f(func(f *catalog.ProductFilter) { f.Limit, f.Skip = 2, 1 }), []*catalog.Product{b, c}},
		{"skip in one category", f(func(f *catalog.ProductFilter) { f.Categories, f.Skip = []string{c1.ID}, 1 }), []*catalog.Product{c}},
		{"past the end", f(func(f *catalog.ProductFilter) { f.Skip = 10 }), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := store.ListProducts(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Error("got nil, want a list (possibly empty)")
			}
			if ids, want := productIDs(got), productIDs(tc.want); !slices.Equal(ids, want) {
				t.Errorf("got %v, want %v", ids, want)
			}
		})
	}
	t.Run("Variants filled in", func(t *testing.T) {
		got, err := store.ListProducts(ctx, f(func(f *catalog.ProductFilter) { f.IDs = []string{a.ID} }))
		if err != nil || len(got) != 1 || !slices.Equal(got[0].Variants, []string{v.ID}) {
			t.Errorf("got %v, %v", got, err)
		}
	})
}

func catalogListCategories(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	desc := "Home appliances"
	ap := newCategory("ap", root)
	ap.Title, ap.Description = "Electrodomésticos", &desc
	fr, fz := newCategory("fr", ap), newCategory("fz", ap)
	fr.Title, fr.Slug, fz.Title = "Frigoríficos combi", "combi", "Congeladores"
	sp := newCategory("sp", root)
	sp.Slug = "combi" // the same slug under another parent
	seed(t, store, []*catalog.Category{ap, fr, fz, sp})
	tests := []struct {
		name string
		f    catalog.CategoryFilter
		want []string
	}{
		{"all, ROOT first", catalog.CategoryFilter{}, []string{catalog.RootID, "ap", "fr", "fz", "sp"}},
		{"ids", catalog.CategoryFilter{IDs: []string{"fz", "nope", "ap"}}, []string{"ap", "fz"}},
		{"slugs", catalog.CategoryFilter{Slugs: []string{"combi"}}, []string{"fr", "sp"}},
		{"parents", catalog.CategoryFilter{Parents: []string{"ap"}}, []string{"fr", "fz"}},
		{"title", catalog.CategoryFilter{Title: pat("^frigor")}, []string{"fr"}},
		{"description", catalog.CategoryFilter{Description: pat("HOME")}, []string{"ap"}},
		{"path at the start", catalog.CategoryFilter{Path: pat(`ROOT\.ap\.`)}, []string{"fr", "fz"}},
		{"path not at the start", catalog.CategoryFilter{Path: pat(`ap`)}, nil},
		{"path alternatives stay anchored", catalog.CategoryFilter{Path: pat(`ROOT\.sp|ap`)}, []string{"sp"}},
		{"filters together", catalog.CategoryFilter{Slugs: []string{"combi"}, Parents: []string{"ap", "ROOT"}, Title: pat("combi")}, []string{"fr"}},
		{"page", catalog.CategoryFilter{Limit: 2, Skip: 1}, []string{"ap", "fr"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Limit == 0 {
				tc.f.Limit = 10
			}
			got, err := store.ListCategories(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if ids := categoryIDs(got); !slices.Equal(ids, append([]string{}, tc.want...)) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
		})
	}
}

// regexTitles are product and category titles for the regex tests: word
// boundaries, case variants beyond ASCII (Kelvin sign, long s, É), lines,
// punctuation that PostgreSQL's regex syntax and RE2 read differently,
// astral characters.
var regexTitles = []string{
	"the fridge", "thefridge", "Fridge-XL", "FRIDGE 2000", "fridge_x", "éfridge",
	"Kühlschrank", "ÉCLAIR", "éclair", "Straße", "ΣΊΣΥΦΟΣ", "kelvin \u212a", "long \u017f",
	"a\nb", "line one\nfridge two", "a.b", "a+b", "[x]", "tab\there", "party 🎉",
	`back\slash`, "price $5", "^caret", "x y", "aaaa", "123", "a1b2c3",
}

// regexPatterns are RE2 patterns every store must match exactly as Go's
// regexp does (docs/api.md section 4).
var regexPatterns = []string{
	// word boundaries: \b is a backspace in PostgreSQL's syntax
	`\bfridge`, `fridge\b`, `\Bfridge`, `\bx\b`, `\b\d+\b`,
	// anchors, \A and \z, (?m) and (?s)
	`^fridge`, `fridge$`, `^the fridge$`, `\Afridge`, `fridge\z`, `(?m)^fridge`, `(?m)a$`, `^a.b$`, `(?s)^a.b$`, `a\nb`,
	// classes, negations, POSIX and Unicode classes, folding
	`^[a-z ]+$`, `[^a-z\s]`, `^\w+$`, `\W`, `\d{3}`, `\D`, `[[:upper:]]{5}`, `[[:^alpha:]]`, `\pL+ \pL+`, `\p{Greek}`,
	`^\PL`, `\pN$`, `\p{Lu}`, `[\p{Han}\p{Greek}]`, `\x{1F389}`, `[\x{1F300}-\x{1F5FF}]`, `^[^\x00-\x{10FFFF}]`,
	`k`, `s`, `é`, `STRASSE|straße`, `σίσυφος`, `(?-i)FRIDGE`, `(?-i:f)ridge`, `x(?i)Y`, `(?i:É)clair`,
	// alternation, groups, repetition, laziness
	`fri(dge|end)`, `(?P<word>fri)dge`, `^(?:the|a) `, `a+b`, `a{4}`, `^a{2,3}$`, `a{3,}`, `(a|b){2}`, `a+?b`, `(?U)a+b`,
	`^(\d)+$`, `^(?:[a-c]\d){3}$`, `a{0}fridge`, `(?:)fridge`, `fridge|`, `x*`, `^(?:a?){300}$`, `a{256}`,
	// punctuation and escapes
	`\.`, `a\+b`, `\[x\]`, `\\`, `\$5`, `\^`, `\t`, `\Qa.b\E`, `-`, `[-+]`, `[\]\[]`,
}

func catalogRegexRE2(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	cat := seedTexts(t, store, regexTitles, func(p *catalog.Product, c *catalog.Category, text string) {
		p.Title, c.Title = text, text
	})
	for _, pattern := range regexPatterns {
		t.Run(pattern, func(t *testing.T) {
			re := regexp.MustCompile("(?i)" + pattern)
			var want []string // in creation order
			for _, title := range regexTitles {
				if re.MatchString(title) {
					want = append(want, title)
				}
			}
			cs, err := store.ListCategories(ctx, catalog.CategoryFilter{Title: pat(pattern), Parents: []string{cat.ID}, Limit: 1000})
			if err != nil {
				t.Fatalf("categories: %v", err)
			}
			var got []string
			for _, c := range cs {
				got = append(got, c.Title)
			}
			if !slices.Equal(got, want) {
				t.Errorf("categories: got %q, want %q", got, want)
			}
			ps, err := store.ListProducts(ctx, catalog.ProductFilter{Title: pat(pattern), Statuses: []string{catalog.StatusOnline}, Limit: 1000})
			if err != nil {
				t.Fatalf("products: %v", err)
			}
			got = got[:0]
			for _, p := range ps {
				got = append(got, p.Title)
			}
			if !slices.Equal(got, want) {
				t.Errorf("products: got %q, want %q", got, want)
			}
		})
	}
}

// regexProblem fails unless err is a validation_error listing, for each
// field, the problem "<field>: <prefix>...", and nothing of the database.
func regexProblem(t *testing.T, err error, prefix string, fields ...string) {
	t.Helper()
	if code := commerce.ErrorCode(err); code != commerce.EValidation {
		t.Fatalf("got %v (%s), want validation_error", err, code)
	}
	data, _ := commerce.ErrorData(err).([]string)
	if len(data) != len(fields) {
		t.Fatalf("got problems %q, want one for each of %v", data, fields)
	}
	for i, f := range fields {
		if !strings.HasPrefix(data[i], f+": "+prefix) || strings.Contains(data[i], "SQLSTATE") {
			t.Errorf("got problem %q, want %q...", data[i], f+": "+prefix)
		}
	}
}

// catalogRegexRefused: a valid RE2 pattern that a database cannot run (it
// rejects it as too complex, or compiles it for longer than the time
// limit) is a validation_error naming the field, with nothing of the
// database in it; a database that can run it answers.
func catalogRegexRefused(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	db.SetRegexTimeout(300 * time.Millisecond)
	c := newCategory("c", root)
	seed(t, store, []*catalog.Category{c}, newProduct("P1", c.ID))
	tests := []struct {
		name    string
		filter  catalog.ProductFilter
		cfilter *catalog.CategoryFilter
		field   string
	}{
		{"rejected by the database", catalog.ProductFilter{Title: pat(`(?:(?:[a-z]|\b){30}){30}`)}, nil, "title"},
		{"slower than the time limit", catalog.ProductFilter{Brand: pat(`(?:a?b?c?d?){255}`)}, nil, "brand"},
		{"category description", catalog.ProductFilter{}, &catalog.CategoryFilter{Description: pat(`(?:(?:[a-z]|\b){30}){30}`)}, "description"},
		{"category path", catalog.ProductFilter{}, &catalog.CategoryFilter{Path: pat(`(?:(?:[a-z]|\b){30}){30}`)}, "path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.cfilter != nil {
				f := *tc.cfilter
				f.Limit = 10
				_, err = store.ListCategories(ctx, f)
			} else {
				f := tc.filter
				f.Statuses, f.Limit = []string{catalog.StatusOnline}, 10
				_, err = store.ListProducts(ctx, f)
			}
			if err == nil {
				return // this database runs it
			}
			regexProblem(t, err, "", tc.field)
		})
	}
	t.Run("longer than any filter takes", func(t *testing.T) {
		long := strings.Repeat("a", commerce.MaxPatternLen+100)
		_, err := store.ListProducts(ctx, catalog.ProductFilter{Brand: pat(long), Statuses: []string{catalog.StatusOnline}, Limit: 10})
		regexProblem(t, err, "must be a regular expression of at most", "brand")
	})
}

// catalogRegexTimeout: a pathological pattern over enough rows runs into
// the store's time limit on every database (PostgreSQL takes minutes to
// compile it, Go's RE2 in SQLite milliseconds a row): product and
// category lists answer validation_error "<field>: pattern took too long
// to match", for each regex field given, instead of running on.
func catalogRegexTimeout(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	db.SetRegexTimeout(200 * time.Millisecond)
	SeedSlowCatalog(t, store)
	online := []string{catalog.StatusOnline}
	tests := []struct {
		name   string
		list   func() error
		fields []string
	}{
		{"product description", func() error {
			_, err := store.ListProducts(ctx, catalog.ProductFilter{Description: pat(slowPattern), Statuses: online, Limit: 10})
			return err
		}, []string{"description"}},
		{"two regex fields: both named", func() error {
			_, err := store.ListProducts(ctx, catalog.ProductFilter{Description: pat(slowPattern), Brand: pat("acme|"), Statuses: online, Limit: 10})
			return err
		}, []string{"description", "brand"}},
		{"category title", func() error {
			_, err := store.ListCategories(ctx, catalog.CategoryFilter{Title: pat(slowPattern), Limit: 10})
			return err
		}, []string{"title"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.list()
			if !errors.Is(err, sqldb.ErrPatternTimeout) {
				t.Errorf("got %v, want the pattern time-out in the chain", err)
			}
			regexProblem(t, err, sqldb.ErrPatternTimeout.Error(), tc.fields...)
		})
	}
	t.Run("the store answers afterwards", func(t *testing.T) {
		// A limit no ordinary query reaches even on a loaded machine: this
		// checks the store still serves, not how fast a plain pattern is.
		db.SetRegexTimeout(time.Minute)
		got, err := store.ListProducts(ctx, catalog.ProductFilter{Description: pat("lazy dog"), Statuses: online, Limit: 5})
		if err != nil || len(got) != 5 {
			t.Errorf("got %d products, %v; want 5", len(got), err)
		}
	})
}

// seedTexts creates, under a new category, a product and a category for
// each text, set by set (in the order of texts), and returns the parent
// (once per database: its id is fixed).
func seedTexts(t *testing.T, store catalog.Store, texts []string, set func(p *catalog.Product, c *catalog.Category, text string)) *catalog.Category {
	t.Helper()
	parent := newCategory("texts", root)
	cats := []*catalog.Category{parent}
	var products []*catalog.Product
	for i, text := range texts {
		p := newProduct(fmt.Sprintf("%s-%03d", parent.ID, i), parent.ID)
		c := newCategory(fmt.Sprintf("%s-%03d", parent.ID, i), parent)
		set(p, c, text)
		products = append(products, p)
		cats = append(cats, c)
	}
	seed(t, store, cats, products...)
	return parent
}

// SeedSlowCatalog creates 400 ONLINE products whose description and 400
// categories whose title are a kilobyte of text each: enough rows for
// SlowPattern to run into any regex time limit on every database.
func SeedSlowCatalog(t *testing.T, store catalog.Store) {
	t.Helper()
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 23)
	seedTexts(t, store, slices.Repeat([]string{text}, 400), func(p *catalog.Product, c *catalog.Category, text string) {
		p.Description, c.Title = text, text
	})
}

// SlowPattern is a valid pattern of at most commerce.MaxPatternLen bytes
// that runs far beyond any regex time limit over a few hundred rows of a
// kilobyte on every database (see slowPattern): for tests of the time
// limit through the services and the API.
var SlowPattern = slowPattern
