package sqldb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// benchCatalog is a seeded catalog: 100 categories of 1,000 products each
// (product i in category i % 100), plus a "rare" category holding 10
// products created last.
type benchCatalog struct {
	store    *sqldb.CatalogStore
	ids      []string
	cats     []string
	rare     string
	products int
}

// catalogBenchProducts is the catalog size: 100,000 unless
// COMMERCE_BENCH_PRODUCTS says otherwise.
func catalogBenchProducts() int {
	if n, err := strconv.Atoi(os.Getenv("COMMERCE_BENCH_PRODUCTS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// seedCatalog builds the catalog through the store, in transactions of
// 5,000 products written with multi-row INSERTs.
func seedCatalog(b *testing.B, db *sqldb.DB) *benchCatalog {
	ctx := context.Background()
	start := time.Now()
	bc := &benchCatalog{store: sqldb.NewCatalogStore(db), products: catalogBenchProducts()}
	err := bc.store.Update(ctx, func(tx catalog.Tx) error {
		for i := range 101 {
			c := &catalog.Category{ID: commerce.NewID(), Title: fmt.Sprintf("Category %d", i), Slug: fmt.Sprintf("c%d", i),
				Parent: catalog.RootID, Level: 2}
			c.Path = "ROOT." + c.ID
			if err := tx.CreateCategory(ctx, c); err != nil {
				return err
			}
			bc.cats = append(bc.cats, c.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	bc.rare, bc.cats = bc.cats[100], bc.cats[:100]
	const perTx = 5000
	total := bc.products + 10
	for start := 0; start < total; start += perTx {
		batch := make([]*catalog.Product, 0, perTx)
		for i := start; i < min(start+perTx, total); i++ {
			cat := bc.cats[i%100]
			if i >= bc.products {
				cat = bc.rare
			}
			p := &catalog.Product{ID: commerce.NewID(), SKU: fmt.Sprintf("SKU-%07d", i), Status: catalog.StatusOnline,
				Title: fmt.Sprintf("Frigorífico combi %d No Frost", i), Brand: []string{"Bosch", "Fagor", "Balay", "LG"}[(i/100)%4],
				Description: "A+, altura 185 cm, acero inoxidable.", Categories: []string{cat}, TaxCode: catalog.DefaultTaxCode,
				Prices:          []catalog.Price{{ID: commerce.NewID(), Amount: int64(10000 + i), Currency: "USD"}},
				Medias:          []catalog.Media{{ID: "210x210:1", URL: fmt.Sprintf("//img/%d_1.jpg", i)}},
				Classifications: []catalog.ClassificationValue{}}
			batch = append(batch, p)
			bc.ids = append(bc.ids, p.ID)
		}
		if err := bc.store.Update(ctx, func(tx catalog.Tx) error { return tx.CreateProducts(ctx, batch) }); err != nil {
			b.Fatal(err)
		}
	}
	// Statistics, as autovacuum (PostgreSQL) would gather soon after a bulk
	// load; without them PostgreSQL guesses 0.5% of products are ONLINE and
	// sorts a whole category instead of walking its index. (SQLite's
	// planner uses them too.)
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `ANALYZE`)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: seeded %d products in %v", db.Dialect().Name(), total, time.Since(start).Round(time.Millisecond))
	return bc
}

// BenchmarkCatalog measures product.info (by id) and product.list by
// category on a catalog of 100,000 products, through the service and over
// HTTP, on SQLite and (with COMMERCE_TEST_POSTGRES_URL) PostgreSQL.
//
//	go test ./sqldb -run '^$' -bench BenchmarkCatalog -benchtime 2s
func BenchmarkCatalog(b *testing.B) {
	for _, store := range testdb.Stores {
		b.Run(store.Name, func(b *testing.B) {
			db := store.Open(b)
			bc := seedCatalog(b, db)
			ctx := context.Background()
			svc := catalog.NewService(bc.store, nil, nil)
			list := func(b *testing.B, f catalog.ProductFilter, want int) {
				for i := 0; b.Loop(); i++ {
					f := f
					if len(f.Categories) == 0 {
						f.Categories = []string{bc.cats[i%100]}
					}
					ps, err := svc.ListProducts(ctx, f)
					if err != nil {
						b.Fatal(err)
					}
					if len(ps) != want {
						b.Fatalf("got %d products, want %d", len(ps), want)
					}
				}
			}
			b.Run("product.info", func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				for b.Loop() {
					if _, err := svc.Product(ctx, bc.ids[r.IntN(len(bc.ids))]); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("product.list/category", func(b *testing.B) {
				list(b, catalog.ProductFilter{Limit: 10}, 10)
			})
			b.Run("product.list/category/limit=100", func(b *testing.B) {
				list(b, catalog.ProductFilter{Limit: 100}, 100)
			})
			b.Run("product.list/category/skip=900", func(b *testing.B) {
				list(b, catalog.ProductFilter{Limit: 10, Skip: 900}, 10)
			})
			b.Run("product.list/rare-category", func(b *testing.B) {
				list(b, catalog.ProductFilter{Categories: []string{bc.rare}, Limit: 10}, 10)
			})
			b.Run("product.list/category+brand", func(b *testing.B) {
				brand := commerce.Pattern("^bosch$")
				list(b, catalog.ProductFilter{Brand: &brand, Limit: 10}, 10)
			})

			srv := apitest.New(b, db)
			b.Run("http/product.info", func(b *testing.B) {
				r := rand.New(rand.NewPCG(3, 4))
				for b.Loop() {
					srv.Get(b, "/catalog/v1/product.info?id="+bc.ids[r.IntN(len(bc.ids))], srv.API).Must(b)
				}
			})
			b.Run("http/product.list/category", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					srv.Get(b, "/catalog/v1/product.list?"+url.Values{"categories": {bc.cats[i%100]}}.Encode(), srv.API).Must(b)
				}
			})
		})
	}
}
