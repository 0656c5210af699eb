package search_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// vocabulary is the words of the random catalogs: accents, case, digits
// and the punctuation that splits words; words in other scripts (ß,
// Cyrillic, Greek, Korean, NFD); and the letters PostgreSQL's unaccent
// folded otherwise than SQLite's tokenizer (ß, æ, œ, ligatures, Greek
// accents, ё, ½), each also spelled as unaccent spelled it, which must
// find the same products on both stores (none, by the tokenizer's rules).
var vocabulary = []string{
	"frigorífico", "Frigorifico", "FRIGO", "congelador", "nevera", "combi", "cajón", "cajones", "acero", "inoxidable",
	"Bosch", "Balay", "Smeg", "LG", "Liebherr", "Citroën", "crème", "brûlée", "façade", "niño", "pingüino", "ÁRBOL",
	"A+", "A++", "No-Frost", "59.5", "185cm", "1e5abc", "KGN39XI36", "x/y", "l'été", "n°5", "über", "ÉCLAIR",
	"a", "de", "con", "2", "10", "100", "frío", "frio", "FRÍO", "cm", "vertical", "horizontal", "mini", "side_by_side",
	"Straße", "Größe", "Русский", "ёж", "Ελληνικά", "냉장고", "İstanbul", "Frigori\u0301fico",
	"strasse", "GRÖSSE", "grosse", "Æther", "aether", "Œuvre", "oeuvre", "ﬁn", "fin", "ελληνικα", "ΆΛΦΑ", "αλφα",
	"ёлка", "елка", "ЁЖ", "½", "1/2", "m²", "m2", "Ⅻ", "ǅemal", "ſtraße", "µm", "ﬀ", "ŒUF", "ĳs", "Łódź", "lodz", "Ørsted", "orsted",
}

func phrase(r *rand.Rand, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	seps := []string{" ", ", ", " - ", "/", " (", ") ", ". "}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteString(w)
	}
	return b.String()
}

// query returns a random query: words of the vocabulary (whole, cut to a
// prefix, in another case or without accents), and now and then a filter.
func query(r *rand.Rand) search.Query {
	n := 1 + r.IntN(3)
	words := strings.Fields(phrase(r, n))
	if len(words) > 0 && r.IntN(2) == 0 {
		last := []rune(words[len(words)-1])
		words[len(words)-1] = string(last[:1+r.IntN(len(last))])
	}
	text := strings.Join(words, " ")
	if r.IntN(3) == 0 {
		text = strings.ToUpper(text)
	}
	q := search.Query{Words: search.Words(text), Text: text, Currency: "USD", Limit: 1000, Sort: search.SortRelevance,
		BrandFacet: true, CategoryFacet: true, PriceFacet: true, PriceBounds: search.PriceBuckets(2)}
	if r.IntN(4) == 0 {
		q.Categories = []string{fmt.Sprintf("c%d", r.IntN(4))}
	}
	if r.IntN(4) == 0 {
		from := int64(r.IntN(500)) * 100
		q.PriceFrom = &from
	}
	return q
}

// TestSearchParity is the property that both stores find the same
// products and rank them the same: random catalogs, then random queries
// on SQLite and PostgreSQL, comparing the sets of ids, their order
// (relevance), the totals and the facets; then random changes (renames,
// drafts, removals) and the queries again.
func TestSearchParity(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	lite, pg := testdb.SQLite(t), testdb.Postgres(t)
	dbs := []*sqldb.DB{lite, pg}
	ctx := context.Background()

	// A tree of categories c0 > c1 > c2, and c3.
	cats := []*catalog.Category{}
	parent := &catalog.Category{ID: catalog.RootID, Level: 1, Path: catalog.RootID}
	for i := range 4 {
		if i == 3 {
			parent = &catalog.Category{ID: catalog.RootID, Level: 1, Path: catalog.RootID}
		}
		c := &catalog.Category{ID: fmt.Sprintf("c%d", i), Title: fmt.Sprintf("C%d", i), Slug: fmt.Sprintf("c%d", i), Parent: parent.ID,
			Level: parent.Level + 1, Path: parent.Path + "." + fmt.Sprintf("c%d", i), Classifications: []catalog.ClassificationDef{}}
		cats = append(cats, c)
		parent = c
	}
	var products []*catalog.Product
	for i := range 300 {
		p := &catalog.Product{ID: fmt.Sprintf("p%03d", i), SKU: fmt.Sprintf("%s-%d", strings.ToUpper(phrase(r, 1)), i),
			Status: catalog.StatusOnline, Title: phrase(r, 1+r.IntN(6)), Brand: vocabulary[r.IntN(12)],
			Description: phrase(r, r.IntN(12)), Categories: []string{cats[r.IntN(4)].ID}, TaxCode: catalog.DefaultTaxCode,
			Prices:          []catalog.Price{{ID: "x", Amount: int64(r.IntN(100000)), Currency: "USD"}},
			Medias:          []catalog.Media{},
			Classifications: []catalog.ClassificationValue{}}
		if r.IntN(10) == 0 {
			p.Status = catalog.StatusDraft
		}
		// Translations (docs/api.md section 27): half the products in
		// Spanish, some in French too, some with a title only.
		if r.IntN(2) == 0 {
			p.Translations = catalog.Translations{"es": {Title: phrase(r, 1+r.IntN(4)), Description: phrase(r, r.IntN(6))}}
			if r.IntN(3) == 0 {
				p.Translations["fr"] = catalog.Translation{Title: phrase(r, 1+r.IntN(3))}
			}
		}
		products = append(products, p)
	}
	for _, db := range dbs {
		err := sqldb.NewCatalogStore(db).Update(ctx, func(tx catalog.Tx) error {
			for _, c := range cats {
				if err := tx.CreateCategory(ctx, c); err != nil {
					return err
				}
			}
			return tx.CreateProducts(ctx, products)
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	compare := func(round string, queries int) {
		matched := 0
		for range queries {
			q := query(r)
			// Half the searches in a locale: each word in the default
			// text or in that locale's.
			if loc := []string{"", "es", "fr"}[r.IntN(3)]; loc != "" {
				q.Locale, q.Marker = loc, search.LocaleMarker(loc)
			}
			var got [2]*search.Result
			var ranked [2][]string
			for i, db := range dbs {
				res, err := sqldb.NewSearchStore(db).Search(ctx, q)
				if err != nil {
					t.Fatalf("%+v: %v", q, err)
				}
				ranked[i] = slices.Clone(res.IDs)
				slices.Sort(res.IDs)
				res.Products = nil
				got[i] = res
			}
			if got[0].Total > 0 {
				matched++
			}
			// The same products in the same order (issue 27): the
			// ranking, not only the set.
			if slices.Equal(got[0].IDs, got[1].IDs) && !slices.Equal(ranked[0], ranked[1]) {
				t.Errorf("%s: words %q in %q (categories %v, from %v): SQLite ranked %v, PostgreSQL %v", round, q.Words, q.Locale, q.Categories,
					q.PriceFrom, ranked[0], ranked[1])
			}
			if !slices.Equal(got[0].IDs, got[1].IDs) || got[0].Total != got[1].Total || !slices.Equal(got[0].Prices, got[1].Prices) ||
				!slices.Equal(got[0].Brands, got[1].Brands) || !slices.Equal(got[0].Categories, got[1].Categories) {
				t.Errorf("%s: words %q in %q (categories %v, from %v): SQLite found %d %v %+v, PostgreSQL %d %v %+v", round, q.Words, q.Locale, q.Categories,
					q.PriceFrom, got[0].Total, got[0].IDs, got[0].Brands, got[1].Total, got[1].IDs, got[1].Brands)
			}
		}
		if matched < queries/5 {
			t.Errorf("%s: only %d of %d queries found anything: the property says little", round, matched, queries)
		}
	}
	compare("created", 150)

	// Random changes, the same on both stores.
	for range 60 {
		p := products[r.IntN(len(products))]
		change := r.IntN(5)
		tr := catalog.Translations{"es": {Title: phrase(r, 1+r.IntN(3))}}
		title, desc := phrase(r, 1+r.IntN(5)), phrase(r, r.IntN(8))
		for _, db := range dbs {
			err := sqldb.NewCatalogStore(db).Update(ctx, func(tx catalog.Tx) error {
				cur, v, err := tx.Product(ctx, p.ID, true)
				if catalogGone(err) {
					return nil
				}
				if err != nil {
					return err
				}
				switch change {
				case 0:
					return tx.RemoveProduct(ctx, p.ID)
				case 1:
					cur.Status = map[string]string{catalog.StatusDraft: catalog.StatusOnline, catalog.StatusOnline: catalog.StatusDraft}[cur.Status]
				case 4:
					cur.Translations = tr
				default:
					cur.Title, cur.Description = title, desc
				}
				return tx.UpdateProduct(ctx, cur, v)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	compare("changed", 100)
}

func catalogGone(err error) bool { return commerce.ErrorCode(err) == commerce.EProductNotFound }
