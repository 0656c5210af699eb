package search_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
)

// idsOnly is a Store as an external engine's adapter would be: it answers
// ids and counts, not products (Result.Products nil).
type idsOnly struct{ got search.Query }

func (s *idsOnly) Search(_ context.Context, q search.Query) (*search.Result, error) {
	s.got = q
	prices := make([]int, len(q.PriceBounds))
	prices[3] = 2 // 50-100
	return &search.Result{Total: 3, IDs: []string{"b", "gone", "a"},
		Brands: []search.BrandCount{{Value: "Bosch", Count: 3}}, Prices: prices}, nil
}

func (s *idsOnly) Reindex(context.Context) (int, error) { return 0, nil }

// TestServiceOverAnEngine: the service answers product.search over a Store
// that returns ids alone, as an OpenSearch or Meilisearch adapter would
// (search/store.go): the page's products read from the catalog in the
// engine's order (one removed since the engine answered is left out),
// fields applied, the facets as the engine counted them, and the query as
// typed (Text) for the engine to analyse.
func TestServiceOverAnEngine(t *testing.T) {
	engine := &idsOnly{}
	catalogProducts := func(_ context.Context, ids []string) (map[string]*catalog.Product, error) {
		out := map[string]*catalog.Product{}
		for _, id := range ids {
			if id != "gone" {
				out[id] = &catalog.Product{ID: id, SKU: "SKU-" + id, Title: "Frigorífico " + id}
			}
		}
		return out, nil
	}
	svc := search.NewService(engine, catalogProducts)
	q := "Frigorífico Straße"
	a, err := svc.Search(context.Background(), search.SearchInput{Q: &q, Facets: []string{"brand", "price"}, Fields: []string{"title"}})
	if err != nil {
		t.Fatal(err)
	}
	if engine.got.Text != q || !slices.Equal(engine.got.Words, []string{"frigorifico", "straße"}) {
		t.Errorf("the engine got text %q, words %q", engine.got.Text, engine.got.Words)
	}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"page":{"limit":10,"skip":0},"total":3,` +
		`"data":[{"id":"b","title":"Frigorífico b"},{"id":"a","title":"Frigorífico a"}],` +
		`"facets":{"brand":[{"value":"Bosch","count":3}],"price":[{"from":50,"to":100,"count":2}]},"locale":"en"}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
}
