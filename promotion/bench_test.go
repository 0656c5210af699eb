package promotion_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/promotion/engine/enginetest"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// Sizes of the benchmark, those of the engine's: 1,000 active promotions
// of the nine example types over 200 products in a tree of 200
// categories, and a cart of 50 entries of 1 to 3 units.
const (
	benchPromos     = 1000
	benchProducts   = 200
	benchCategories = 200
	benchEntries    = 50
)

// benchWorld is a generated catalog, promotion set and cart. Category k
// has parent (k-1)/4 (k0 under ROOT); products sit in 1 or 2 categories of
// the lower levels.
type benchWorld struct {
	productCats [][]int // per product, the categories it is put in
	promos      []promotion.CreateInput
	items       []benchItem
}

type benchItem struct {
	product  int
	quantity int
	price    int64 // minor units, USD
}

func catParent(c int) int { return (c - 1) / 4 }

// newBenchWorld generates the world; cat and prod name category and
// product indexes (the catalog's ids once created).
func newBenchWorld(cat, prod func(int) string) benchWorld {
	r := rand.New(rand.NewPCG(1, 2))
	var w benchWorld
	for range benchProducts {
		var cs []int
		for range 1 + r.IntN(2) {
			cs = append(cs, 50+r.IntN(benchCategories-50))
		}
		w.productCats = append(w.productCats, cs)
	}
	c := func() string { return cat(r.IntN(benchCategories)) }
	p := func() string { return prod(r.IntN(benchProducts)) }
	for i := range benchPromos {
		ifJ, thenJ := enginetest.Rules(i, p, c)
		title, class, active := fmt.Sprintf("promo %d", i), "default", true
		priority := r.IntN(100)
		w.promos = append(w.promos, promotion.CreateInput{
			Title: &title, Class: &class, Active: &active, Priority: &priority,
			If: json.RawMessage(ifJ), Then: json.RawMessage(thenJ),
		})
	}
	for _, p := range r.Perm(benchProducts)[:benchEntries] {
		w.items = append(w.items, benchItem{product: p, quantity: 1 + r.IntN(3), price: int64(100 + r.IntN(100000))})
	}
	return w
}

// ancestors returns the categories of product p with all their ancestors.
func (w benchWorld) ancestors(p int, cat func(int) string) []string {
	var out []string
	for _, c := range w.productCats[p] {
		for ; ; c = catParent(c) {
			out = append(out, cat(c))
			if c == 0 {
				break
			}
		}
	}
	return append(out, "ROOT")
}

// body returns the JSON body of the cartPromotions request of the cart,
// in the v2 form (money objects) or the v1 form (plain numbers).
func (w benchWorld) body(prod func(int) string, v2 bool) []byte {
	var items []map[string]any
	for i, it := range w.items {
		price := any(json.RawMessage(money.FormatMinor(it.price, 2)))
		if v2 {
			price = money.Money{Amount: it.price, Currency: "USD", Precision: 2}
		}
		items = append(items, map[string]any{"id": fmt.Sprint("e", i), "productId": prod(it.product), "quantity": it.quantity, "price": price})
	}
	b, _ := json.Marshal(map[string]any{"cartId": "bench", "items": items})
	return b
}

// request returns the request the transport decodes from body.
func (w benchWorld) request(tb testing.TB, prod func(int) string, v2 bool) promotion.CartInput {
	var in promotion.CartInput
	if err := json.Unmarshal(w.body(prod, v2), &in); err != nil {
		tb.Fatal(err)
	}
	return in
}

// insert stores the world's promotions through the store: Service.Create
// would rebuild the cache 1,000 times.
func (w benchWorld) insert(tb testing.TB, store promotion.Store) {
	ctx := context.Background()
	err := store.Update(ctx, func(tx promotion.Tx) error {
		for i, in := range w.promos {
			p, err := promotion.New(in)
			if err != nil {
				return fmt.Errorf("promotion %d: %w", i, err)
			}
			if err := tx.CreatePromotion(ctx, &p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// mapCatalog is an in-memory catalog: the service's own cost, without the
// catalog's query.
type mapCatalog map[string][]string

func (m mapCatalog) CategoryAncestors(_ context.Context, ids []string) (map[string][]string, error) {
	out := make(map[string][]string, len(ids))
	for _, id := range ids {
		if cs, ok := m[id]; ok {
			out[id] = cs
		}
	}
	return out, nil
}

// BenchmarkCartPromotions is promotion.cartPromotions through the service
// with the index cached: a 50-entry cart against 1,000 active promotions,
// in the v2 and the v1 form. The catalog is in memory, so this is the
// promotion area's own cost: request validation, the version check (once
// per snapcache.Interval), the evaluation and the response's form.
func BenchmarkCartPromotions(b *testing.B) {
	stores := map[string]func(testing.TB) *sqldb.DB{"sqlite": func(tb testing.TB) *sqldb.DB { return testdb.SQLite(tb) }}
	if os.Getenv(testdb.PostgresEnv) != "" {
		stores["postgres"] = func(tb testing.TB) *sqldb.DB { return testdb.Postgres(tb) }
	}
	cat := func(i int) string { return fmt.Sprint("k", i) }
	prod := func(i int) string { return fmt.Sprint("p", i) }
	w := newBenchWorld(cat, prod)
	catalog := mapCatalog{}
	for p := range benchProducts {
		catalog[prod(p)] = w.ancestors(p, cat)
	}
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := stores[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			db := open(b)
			store := sqldb.NewPromotionStore(db)
			w.insert(b, store)
			svc := promotion.NewService(store, catalog, nil)
			b.Run("Evaluate", func(b *testing.B) {
				// The cart's in-process call: no request to validate or
				// answer to shape.
				var entries []engine.Entry
				for i, it := range w.items {
					entries = append(entries, engine.Entry{ID: fmt.Sprint("e", i), ProductID: prod(it.product), Quantity: it.quantity, UnitPrice: it.price})
				}
				if _, err := svc.Evaluate(ctx, entries, 2); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := svc.Evaluate(ctx, entries, 2); err != nil {
						b.Fatal(err)
					}
				}
			})
			for _, form := range []struct {
				name string
				v2   bool
			}{{"v2", true}, {"v1", false}} {
				b.Run(form.name, func(b *testing.B) {
					req := w.request(b, prod, form.v2)
					res, err := svc.CartPromotions(ctx, req) // loads the cache
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if _, err := svc.CartPromotions(ctx, req); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(res.ItemDiscounts)), "discounted-entries")
					b.ReportMetric(float64(len(res.AlmostFulfilledPromos)), "almost-promos")
				})
			}
			b.Run("update", func(b *testing.B) {
				// A change: its transaction, then the reload of the 1,000
				// active promotions and the index rebuild it triggers.
				id := ""
				list, err := svc.List(ctx, promotion.ListInput{})
				if err != nil {
					b.Fatal(err)
				}
				id = list.Data[0].(promotion.Promotion).ID
				n := 0
				for b.Loop() {
					n++
					title := fmt.Sprint("renamed ", n)
					if _, err := svc.Update(ctx, promotion.UpdateInput{ID: id, Title: &title}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkCartPromotionsHTTP is the same cart through the whole service
// over HTTP on SQLite: authentication, JSON both ways, the catalog's
// category query (the real catalog, its categories and products created
// through its API) and the evaluation.
func BenchmarkCartPromotionsHTTP(b *testing.B) {
	srv := apitest.New(b, testdb.SQLite(b))
	cats := make([]string, benchCategories)
	for i := range benchCategories {
		parent := "ROOT"
		if i > 0 {
			parent = cats[catParent(i)]
		}
		var c struct{ ID string }
		srv.Post(b, "/catalog/v1/category.create", srv.Admin, map[string]any{
			"title": fmt.Sprint("Category ", i), "slug": fmt.Sprint("k", i), "parent": parent,
		}).Must(b).Decode(b, "category", &c)
		cats[i] = c.ID
	}
	cat := func(i int) string { return cats[i] }
	prods := make([]string, benchProducts)
	prod := func(i int) string { return prods[i] }
	// The world's product ids are needed before the products exist (the
	// rules name them), so generate once for the categories, create the
	// products, and generate again with their ids: same seed, same world.
	w := newBenchWorld(cat, func(i int) string { return fmt.Sprint("p", i) })
	for p := range benchProducts {
		var ids []string
		for _, c := range w.productCats[p] {
			ids = append(ids, cats[c])
		}
		var out struct{ ID string }
		srv.Post(b, "/catalog/v1/product.create", srv.Admin, map[string]any{
			"sku": fmt.Sprint("SKU", p), "title": fmt.Sprint("Product ", p), "status": "ONLINE", "stockStatus": 1, "categories": ids,
		}).Must(b).Decode(b, "product", &out)
		prods[p] = out.ID
	}
	w = newBenchWorld(cat, prod)
	w.insert(b, sqldb.NewPromotionStore(srv.DB))
	for _, form := range []struct {
		name string
		v2   bool
	}{{"v2", true}, {"v1", false}} {
		b.Run(form.name, func(b *testing.B) {
			body := w.body(prod, form.v2)
			r := srv.Post(b, "/promotion/v2/promotion.cartPromotions", srv.API, body).Must(b)
			var discounted []json.RawMessage
			r.Decode(b, "itemDiscounts", &discounted)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				srv.Post(b, "/promotion/v2/promotion.cartPromotions", srv.API, body).Must(b)
			}
			b.ReportMetric(float64(len(discounted)), "discounted-entries")
		})
	}
}
