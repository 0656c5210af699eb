package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
)

// The words of the benchmark catalog: a product's title is a type, a brand,
// two features and a model code; its description three more features.
var (
	benchTypes = []string{"Frigorífico", "Congelador", "Lavadora", "Secadora", "Lavavajillas", "Horno", "Microondas", "Placa",
		"Campana", "Cafetera", "Tostadora", "Batidora", "Aspirador", "Plancha", "Televisor", "Portátil", "Monitor", "Impresora",
		"Altavoz", "Auriculares", "Cámara", "Teléfono", "Tableta", "Reloj", "Bicicleta", "Zapatillas", "Mochila", "Chaqueta",
		"Camiseta", "Pantalón", "Sofá", "Mesa", "Silla", "Lámpara", "Colchón", "Almohada", "Sartén", "Olla", "Cuchillo", "Vinoteca"}
	benchBrands = []string{"Bosch", "Balay", "Siemens", "Samsung", "LG", "Beko", "Smeg", "Liebherr", "Fagor", "Teka",
		"Whirlpool", "Electrolux", "AEG", "Candy", "Haier", "Hisense", "Sony", "Philips", "Panasonic", "Xiaomi",
		"Apple", "HP", "Lenovo", "Asus", "Acer", "Nike", "Adidas", "Puma", "Ikea", "Tefal"}
	benchFeatures = []string{"inoxidable", "blanco", "negro", "plata", "compacto", "grande", "silencioso", "eficiente",
		"inteligente", "inalámbrico", "portátil", "digital", "táctil", "rápido", "ligero", "resistente", "clásico", "moderno",
		"vertical", "horizontal", "integrable", "libre", "instalación", "doble", "triple", "automático", "programable",
		"ecológico", "premium", "básico", "profesional", "infantil", "deportivo", "urbano", "térmico", "impermeable",
		"transpirable", "acolchado", "regulable", "plegable"}
)

func benchProducts() int {
	if n, err := strconv.Atoi(os.Getenv("COMMERCE_BENCH_PRODUCTS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// benchProduct returns product i of the catalog (categories cats).
func benchProduct(r *rand.Rand, i int, cats []string) *catalog.Product {
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	brand := pick(benchBrands)
	return &catalog.Product{ID: commerce.NewID(), SKU: fmt.Sprintf("SKU-%07d", i), Status: catalog.StatusOnline,
		Title:       fmt.Sprintf("%s %s %s %s %c%c%d", pick(benchTypes), brand, pick(benchFeatures), pick(benchFeatures), 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(1000)),
		Brand:       brand,
		Description: fmt.Sprintf("Modelo %s, %s y %s. Acabado %s.", pick(benchFeatures), pick(benchFeatures), pick(benchFeatures), pick(benchFeatures)),
		Categories:  []string{cats[r.IntN(len(cats))]}, TaxCode: catalog.DefaultTaxCode,
		Prices:          []catalog.Price{{ID: commerce.NewID(), Amount: int64(500 + r.IntN(300000)), Currency: "USD"}},
		Medias:          []catalog.Media{{ID: "210x210:1", URL: fmt.Sprintf("//img/%d_1.jpg", i)}},
		Classifications: []catalog.ClassificationValue{}}
}

// seedSearch builds the catalog: 10 top categories of 10 subcategories
// each, products in the subcategories, 5,000 per transaction.
func seedSearch(b testing.TB, db *sqldb.DB, n int) []string {
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	var leaves, tops []string
	err := store.Update(ctx, func(tx catalog.Tx) error {
		for i := range 10 {
			top := &catalog.Category{ID: commerce.NewID(), Title: fmt.Sprintf("Top %d", i), Slug: fmt.Sprintf("t%d", i), Parent: catalog.RootID, Level: 2}
			top.Path = "ROOT." + top.ID
			if err := tx.CreateCategory(ctx, top); err != nil {
				return err
			}
			tops = append(tops, top.ID)
			for j := range 10 {
				c := &catalog.Category{ID: commerce.NewID(), Title: fmt.Sprintf("Leaf %d.%d", i, j), Slug: fmt.Sprintf("l%d", j), Parent: top.ID, Level: 3}
				c.Path = top.Path + "." + c.ID
				if err := tx.CreateCategory(ctx, c); err != nil {
					return err
				}
				leaves = append(leaves, c.ID)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	start := time.Now()
	for i := 0; i < n; i += 5000 {
		batch := make([]*catalog.Product, 0, 5000)
		for j := i; j < min(i+5000, n); j++ {
			batch = append(batch, benchProduct(r, j, leaves))
		}
		if err := store.Update(ctx, func(tx catalog.Tx) error { return tx.CreateProducts(ctx, batch) }); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Update(ctx, func(tx *sqldb.Tx) error { _, err := tx.Exec(ctx, `ANALYZE`); return err }); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: seeded %d products in %v", db.Dialect().Name(), n, time.Since(start).Round(time.Millisecond))
	return tops
}

// BenchmarkSearch measures product.search on a catalog of 100,000 products
// (COMMERCE_BENCH_PRODUCTS changes it) through the service, with the
// three facets, and reports the 50th and 99th percentiles; then the cost
// of the index on product.create (with and without its triggers).
//
//	COMMERCE_TEST_POSTGRES_URL=... go test ./search -run '^$' -bench BenchmarkSearch -benchtime 400x
func BenchmarkSearch(b *testing.B) {
	for _, store := range testdb.Stores {
		b.Run(store.Name, func(b *testing.B) {
			db := store.Open(b)
			tops := seedSearch(b, db, benchProducts())
			ctx := context.Background()
			cat := catalog.NewService(sqldb.NewCatalogStore(db), nil, nil)
			svc := search.NewService(sqldb.NewSearchStore(db), cat.Products)
			all := []string{"brand", "categories", "price"}
			queries := func(r *rand.Rand, kind string) search.SearchInput {
				pick := func(l []string) string { return l[r.IntN(len(l))] }
				var q string
				in := search.SearchInput{Facets: all}
				switch kind {
				case "type+brand":
					q = pick(benchTypes) + " " + pick(benchBrands)
				case "type+prefix":
					f := pick(benchFeatures)
					q = pick(benchTypes) + " " + f[:3]
				case "one word":
					q = pick(benchTypes)
				case "feature+filters":
					q = pick(benchFeatures) + " " + pick(benchFeatures)
					in.Categories = []string{pick(tops)}
					from := money.NewNumber("100")
					in.PriceFrom = &from
					in.Sort = strPtr("price")
				}
				in.Q = &q
				return in
			}
			for _, kind := range []string{"type+brand", "type+prefix", "one word", "feature+filters"} {
				b.Run(kind, func(b *testing.B) {
					r := rand.New(rand.NewPCG(1, 2))
					var took []time.Duration
					totals := 0
					cpu := cpuTime()
					for b.Loop() {
						in := queries(r, kind)
						start := time.Now()
						a, err := svc.Search(ctx, in)
						if err != nil {
							b.Fatal(err)
						}
						took = append(took, time.Since(start))
						totals += a.Total
					}
					// The process's CPU time per search: what a search costs
					// whatever else the machine runs (the wall-clock
					// percentiles count the time waiting for a core too).
					b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
					b.ReportMetric(float64(totals)/float64(len(took)), "matches/op")
				})
			}

			r := rand.New(rand.NewPCG(9, 9))
			i := 10_000_000 // the skus of the created products
			create := func(b *testing.B) {
				var leaf []string
				rows, err := db.Query(ctx, `SELECT id FROM categories WHERE level = 3`)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					var id string
					if err := rows.Scan(&id); err != nil {
						b.Fatal(err)
					}
					leaf = append(leaf, id)
				}
				rows.Close()
				for b.Loop() {
					i++
					p := benchProduct(r, i, leaf)
					raw, _ := json.Marshal(map[string]any{"sku": p.SKU, "status": p.Status, "title": p.Title, "brand": p.Brand,
						"description": p.Description, "categories": p.Categories, "stockStatus": 0,
						"prices": []map[string]any{{"amount": json.Number(strconv.FormatInt(p.Prices[0].Amount, 10) + ".00"), "currency": "USD"}}})
					var in catalog.CreateProductInput
					if err := json.Unmarshal(raw, &in); err != nil {
						b.Fatal(err)
					}
					if _, err := cat.CreateProduct(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
			}
			measure := func(b *testing.B) {
				cpu := cpuTime()
				create(b)
				b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
			b.Run("product.create/indexed", measure)
			on := ""
			if store.Name == "postgres" {
				on = " ON products"
			}
			if err := db.Update(ctx, func(tx *sqldb.Tx) error {
				for _, t := range []string{"insert", "update", "delete"} {
					if _, err := tx.Exec(ctx, "DROP TRIGGER product_search_"+t+on); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			b.Run("product.create/not-indexed", measure)
		})
	}
}

func strPtr(s string) *string { return &s }

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
