// Package search is product search (docs/api.md section 21,
// product.search): the words of a query matched against the title, brand,
// sku and description of the ONLINE products, case- and accent-
// insensitively, the last word also as a prefix (search as you type);
// filters, facets over the whole match, four sort orders and paging.
//
// The index lives in the database, next to the products, and changes in the
// product's own transaction: an FTS5 table on SQLite, a tsvector table with
// a GIN index on PostgreSQL (their 0015_search.sql migrations, the query
// side in sqldb/search.go). The Store interface is the seam where an
// external engine would replace it (see Store).
//
// Layout (CONVENTIONS.md): search.go the query, the result and the
// folding of words; input.go the operation's argument; store.go the Store;
// service.go the use cases.
package search

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
)

// Sort orders of a search.
const (
	// SortRelevance is best match first (title matches before others),
	// then creation order; without words it is creation order.
	SortRelevance = "relevance"
	// SortPrice is the lowest price in the query's currency, ascending,
	// then creation order; products without a price in it come last.
	SortPrice = "price"
	// SortPriceDesc is SortPrice descending (products without a price in
	// the currency still last).
	SortPriceDesc = "-price"
	// SortNewest is the newest product first, ties by id ascending.
	SortNewest = "newest"
	// SortCreation is creation order: the default without words.
	SortCreation = ""
)

// Facet names.
const (
	FacetBrand      = "brand"
	FacetCategories = "categories"
	FacetPrice      = "price"
)

// DefaultCurrency is the currency of price filters, buckets and sorting
// when the query names none.
const DefaultCurrency = "USD"

// MaxWords is how many words a query may hold (more is validation_error).
const MaxWords = 32

// MaxQueryBytes is the longest query text (more is validation_error).
const MaxQueryBytes = 1000

// Query is what a store searches for. It is valid when it reaches the
// store: words folded (Words), currency known, prices in its minor units.
type Query struct {
	// Words are the folded words every product found must contain (in
	// its title, brand, sku or description), the last one as a prefix;
	// none: every ONLINE product.
	Words []string
	// Text is q as given, for a store whose index folds text its own way
	// (an external engine's analyzers); the database's stores search for
	// Words.
	Text string
	// Locale is the reader's locale; Marker, when not "", its
	// LocaleMarker: the words are then found in the default text or,
	// marked, in that locale's (a locale other than the default).
	Locale, Marker string
	// Categories keeps the products in one of these categories or one of
	// their descendants (any of them); none: no category filter.
	Categories []string
	// Brands keeps the products whose brand is one of these, exactly.
	Brands []string
	// Currency is the currency of PriceFrom, PriceTo, the price buckets
	// and the price sort. A product's price in it is its lowest price in
	// that currency (whatever the price's country, customer type, channel
	// or dates).
	Currency string
	// PriceFrom and PriceTo, in minor units of Currency, keep the
	// products whose price is within them (inclusive); nil: no bound.
	// A bound given leaves out the products without a price in Currency.
	PriceFrom, PriceTo *int64
	// BrandFacet, CategoryFacet and PriceFacet ask for those facets.
	BrandFacet, CategoryFacet, PriceFacet bool
	// PriceBounds are the lower bounds of the price buckets, ascending,
	// in minor units of Currency (PriceBuckets); the last bucket is open.
	PriceBounds []int64
	// Sort is one of the Sort constants.
	Sort        string
	Limit, Skip int
}

// Result is what a store found.
type Result struct {
	// Total is how many products match (the whole match, not the page).
	Total int
	// IDs are the ids of the page's products, in order.
	IDs []string
	// Products are the page's products, in order, when the store reads
	// them with the match (the database's store does); nil otherwise (an
	// external engine's store returns ids alone and the service reads the
	// products from the catalog).
	Products []*catalog.Product
	// Brands counts the matching products by brand (products without a
	// brand are not counted); nil unless asked for.
	Brands []BrandCount
	// Categories counts the matching products by category they belong to
	// directly; nil unless asked for.
	Categories []CategoryCount
	// Prices counts the matching products with a price in the currency
	// by bucket: Prices[i] is the count of bucket i of PriceBounds; nil
	// unless asked for.
	Prices []int
}

// BrandCount is an entry of the brand facet.
type BrandCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// CategoryCount is an entry of the categories facet.
type CategoryCount struct {
	ID string `json:"id"`
	// Title is the category's title in the reader's locale (its
	// translation's, else the default's).
	Title string `json:"title"`
	Count int    `json:"count"`
}

// PriceBucket is an entry of the price facet, in major units of the
// currency: From inclusive, To exclusive (null for the last, open bucket).
type PriceBucket struct {
	From  json.Number  `json:"from"`
	To    *json.Number `json:"to"`
	Count int          `json:"count"`
}

// PriceBuckets returns the lower bounds of the price buckets in minor units
// of a currency of the given precision: 0, 10, 20, 50, 100, 200, 500, 1000,
// ... major units (a 1-2-5 ladder) up to 10^12 major units, the last
// bucket open. Only the buckets holding products are answered.
func PriceBuckets(precision int) []int64 {
	unit := money.Pow10(precision)
	out := []int64{0}
	for major := int64(10); major <= 1_000_000_000_000; major *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if v := major * m; v <= 1_000_000_000_000 {
				out = append(out, v*unit)
			}
		}
	}
	return out
}

// Words returns the words of a query as SQLite's FTS5 index holds them
// (its unicode61 tokenizer with remove_diacritics 2): split at every
// character that is not a letter, a number, a private-use or an
// unassigned character,
// lower case, and Latin letters without their diacritics ("Frigorífico
// KGN-39" -> "frigorifico", "kgn", "39"; combining diacritical marks are
// dropped). Other scripts keep their marks, as the tokenizer does: Greek
// ά, Cyrillic й, Korean syllables stay as they are; so do ß, æ, œ and
// ligatures ("strasse" is not "straße"). Both stores look for these words:
// SQLite's tokenizer folds each again, PostgreSQL folds them with a table
// of what that tokenizer does with every character (migration
// 0023_search_fold.sql, checked against it by TestFoldParity), so that
// both find the same products.
func Words(q string) []string {
	var out []string
	var b strings.Builder
	end := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range q {
		switch {
		case diacritic(r):
			// Part of the word, and dropped.
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r):
			b.WriteRune(fold(r))
		case r&0xfffe != 0xfffe && !unicode.In(r, unicode.M, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Cs):
			// Unassigned (but not U+FFFE, U+FFFF): the tokenizer keeps
			// it, as it is.
			b.WriteRune(r)
		default:
			end()
		}
	}
	end()
	return out
}

// diacritic reports whether r is one of the combining marks unicode61
// keeps in a word and removes (the others separate words).
func diacritic(r rune) bool {
	switch {
	case r < 0x300 || r > 0x331:
		return false
	case r <= 0x304, r >= 0x306 && r <= 0x30c, r >= 0x323 && r <= 0x328:
		return true
	}
	switch r {
	case 0x30f, 0x311, 0x31b, 0x32d, 0x32e, 0x330, 0x331:
		return true
	}
	return false
}

// fold returns r case-folded (µ as μ, ς as σ, ſ as s, but ı as itself)
// and, for a Latin letter, without its diacritics: the ASCII base letter
// of its canonical decomposition (but ǡ, which unicode61 keeps).
func fold(r rune) rune {
	if r != 'ı' {
		r = unicode.ToLower(unicode.ToUpper(r))
	}
	if r < utf8.RuneSelf || r == 'ǡ' || !unicode.Is(unicode.Latin, r) {
		return r
	}
	d := norm.NFD.String(string(r))
	base, n := utf8.DecodeRuneInString(d)
	if n == len(d) || base >= utf8.RuneSelf {
		return r
	}
	for _, m := range d[n:] {
		if !unicode.Is(unicode.Mn, m) {
			return r
		}
	}
	return base
}
