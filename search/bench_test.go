package search_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
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
// three facets, and reports the 50th and 99th percentiles and the CPU per
// search; then the cost of the index on product.create, through the
// service and through the HTTP API, in rounds with and without the
// index's triggers.
//
//	COMMERCE_TEST_POSTGRES_URL=... go test ./search -run '^$' -bench BenchmarkSearch -benchtime 400x
//
// cpu-ms/op is the process's CPU (user and system) per operation, which a
// loaded machine changes much less than the wall-clock time;
// server-cpu-ms/op, on PostgreSQL when it runs on the same machine, is the
// CPU of the database's backends serving this benchmark (from
// /proc/<pid>/schedstat); writes/op, on SQLite, counts the process's
// write system calls (one per page written to the log or checkpointed).
func BenchmarkSearch(b *testing.B) {
	for _, store := range testdb.Stores {
		b.Run(store.Name, func(b *testing.B) {
			db := store.Open(b)
			tops := seedSearch(b, db, benchProducts())
			settle(b, db)
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
					f := []rune(pick(benchFeatures))
					q = pick(benchTypes) + " " + string(f[:3])
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
					// A few searches first, not measured: the connection's
					// prepared statements and caches, as a running service
					// has them.
					warm := rand.New(rand.NewPCG(3, 4))
					for range 20 {
						if _, err := svc.Search(ctx, queries(warm, kind)); err != nil {
							b.Fatal(err)
						}
					}
					r := rand.New(rand.NewPCG(1, 2))
					var took []time.Duration
					totals := 0
					var m meter
					m.start(db)
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
					m.stop()
					m.n = len(took)
					m.report(b, "")
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
					b.ReportMetric(float64(totals)/float64(len(took)), "matches/op")
				})
			}

			// product.create, with and without the index's triggers, in
			// alternating rounds (the machine's load changes between them).
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
			r := rand.New(rand.NewPCG(9, 9))
			i := 10_000_000 // the skus of the created products
			body := func() map[string]any {
				i++
				p := benchProduct(r, i, leaf)
				return map[string]any{"sku": p.SKU, "status": p.Status, "title": p.Title, "brand": p.Brand,
					"description": p.Description, "categories": p.Categories, "stockStatus": 0,
					"prices": []map[string]any{{"amount": json.Number(strconv.FormatInt(p.Prices[0].Amount, 10) + ".00"), "currency": "USD"}}}
			}
			// Through the service: validation, the store, the commit.
			service := func() {
				raw, _ := json.Marshal(body())
				var in catalog.CreateProductInput
				if err := json.Unmarshal(raw, &in); err != nil {
					b.Fatal(err)
				}
				if _, err := cat.CreateProduct(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			// Through the HTTP API: the request as a client sends it.
			url, admin := serve(b, db)
			client := &http.Client{}
			api := func() {
				raw, _ := json.Marshal(body())
				req, _ := http.NewRequest(http.MethodPost, url+"/catalog/v1/product.create", bytes.NewReader(raw))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+admin)
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("product.create: %d %s", res.StatusCode, out)
				}
			}
			// Each operation alternates between the index's triggers on
			// and off in blocks of 10 (the machine's load drifts; blocks
			// share it), after 200 creates not measured (the seeding's
			// large FTS5 segments get merged first).
			measure := func(create func()) func(b *testing.B) {
				return func(b *testing.B) {
					for range 200 {
						create()
					}
					var on, off meter
					var cur *meter
					restore := func() {}
					for b.Loop() {
						if cur == nil || cur.n%10 == 0 && cur.n > 0 && (cur == &on && off.n < on.n || cur == &off && on.n <= off.n) {
							if cur != nil {
								cur.stop()
							}
							if cur == &on {
								restore, cur = dropSearchTriggers(b, db), &off
							} else {
								restore()
								restore, cur = func() {}, &on
							}
							cur.start(db)
						}
						create()
						cur.n++
					}
					cur.stop()
					restore()
					on.report(b, "indexed-")
					off.report(b, "plain-")
					if on.n > 0 && off.n > 0 {
						b.ReportMetric(100*(on.perOp()/off.perOp()-1), "index-%")
					}
				}
			}
			b.Run("product.create", measure(service))
			b.Run("product.create (HTTP)", measure(api))
		})
	}
}

// serve starts the service over db as the commerce binary runs it (not
// apitest's server, which checks every exchange against the API document)
// and returns its URL and an admin token, both valid until the benchmark
// ends.
func serve(b *testing.B, db *sqldb.DB) (url, admin string) {
	keys, err := auth.New([]byte(apitest.Secret))
	if err != nil {
		b.Fatal(err)
	}
	a, err := app.New(app.Options{DB: db, Keys: keys})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(a.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	b.Cleanup(func() { hs.Close(); cancel(); <-done })
	admin, err = keys.Issue(commerce.Claims{Subject: "bench", Scopes: []string{commerce.ScopeAdmin}}, time.Now(), time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	return hs.URL, admin
}

// settle brings a freshly seeded PostgreSQL database to the state of one
// that has been running: vacuumed (the hint bits and the visibility map
// that autovacuum would have set; the test server may run without it),
// analysed and checkpointed. SQLite's was analysed by the seeding.
func settle(b *testing.B, db *sqldb.DB) {
	if db.Dialect().Name() != "postgres" {
		return
	}
	for _, q := range []string{`VACUUM ANALYZE`, `CHECKPOINT`} {
		rows, err := db.Query(context.Background(), q)
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		rows.Close()
	}
}

// dropSearchTriggers takes the search index's triggers off products and
// returns the function putting them back. On SQLite they are dropped and
// created again from their definitions (the products created meanwhile
// are not in the FTS5 index: the benchmark removes none); on PostgreSQL
// they are disabled.
func dropSearchTriggers(b *testing.B, db *sqldb.DB) (restore func()) {
	ctx := context.Background()
	exec := func(qs ...string) {
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			for _, q := range qs {
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("%s: %w", q, err)
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if db.Dialect().Name() == "postgres" {
		var disable, enable []string
		rows, err := db.Query(ctx, `SELECT tgname FROM pg_trigger WHERE tgrelid = 'products'::regclass AND tgname LIKE 'product_search%'`)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				b.Fatal(err)
			}
			disable = append(disable, "ALTER TABLE products DISABLE TRIGGER "+name)
			enable = append(enable, "ALTER TABLE products ENABLE TRIGGER "+name)
		}
		rows.Close()
		if len(disable) == 0 {
			b.Fatal("no search triggers on products")
		}
		exec(disable...)
		return func() { exec(enable...) }
	}
	var names, defs []string
	rows, err := db.Query(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'products' AND name LIKE 'product_search%'`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			b.Fatal(err)
		}
		names, defs = append(names, "DROP TRIGGER "+name), append(defs, def)
	}
	rows.Close()
	if len(names) == 0 {
		b.Fatal("no search triggers on products")
	}
	exec(names...)
	return func() { exec(defs...) }
}

// meter adds up the CPU and the writes of the operations between its
// starts and stops.
type meter struct {
	db               *sqldb.DB
	n                int           // operations
	cpu, server      time.Duration // the totals
	wall             time.Duration
	writes           int64
	cpu0, server0    time.Duration // at the last start
	wall0            time.Time
	writes0          int64
	serverOK, sqlite bool
}

func (m *meter) start(db *sqldb.DB) {
	m.db, m.sqlite = db, db.Dialect().Name() == "sqlite"
	m.server0, m.serverOK = serverCPU(db)
	m.cpu0, m.writes0, m.wall0 = cpuTime(), writeCalls(), time.Now()
}

func (m *meter) stop() {
	cpu, writes := cpuTime(), writeCalls()
	m.wall += time.Since(m.wall0)
	m.cpu += cpu - m.cpu0
	m.writes += writes - m.writes0
	if m.serverOK {
		server, ok := serverCPU(m.db)
		m.serverOK = ok
		m.server += server - m.server0
	}
}

// perOp returns the CPU per operation in milliseconds, the process's and
// the database server's.
func (m *meter) perOp() float64 {
	return float64((m.cpu + m.server).Microseconds()) / 1000 / float64(m.n)
}

// report reports the CPU per operation, the process's (cpu-ms/op) and the
// server's (server-cpu-ms/op), and on SQLite the write system calls per
// operation (writes/op), each named with the prefix; with a prefix, the
// wall-clock time per operation too (ms/op).
func (m *meter) report(b *testing.B, prefix string) {
	if m.n == 0 {
		return
	}
	if prefix != "" {
		b.ReportMetric(float64(m.wall.Microseconds())/1000/float64(m.n), prefix+"ms/op")
	}
	b.ReportMetric(float64(m.cpu.Microseconds())/1000/float64(m.n), prefix+"cpu-ms/op")
	if m.serverOK {
		b.ReportMetric(float64(m.server.Microseconds())/1000/float64(m.n), prefix+"server-cpu-ms/op")
	}
	if m.sqlite && m.writes0 >= 0 {
		b.ReportMetric(float64(m.writes)/float64(m.n), prefix+"writes/op")
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

// writeCalls returns how many write system calls the process has made
// (/proc/self/io, Linux), -1 when unknown.
func writeCalls() int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "syscw: "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// serverCPU returns the CPU time the PostgreSQL backends connected to db's
// database have used (each /proc/<pid>/schedstat, so the server must run
// on this machine and its /proc be readable); false for SQLite or when
// unknown. Backends that ended meanwhile are not counted: the pool keeps
// its connections.
func serverCPU(db *sqldb.DB) (time.Duration, bool) {
	if db.Dialect().Name() != "postgres" {
		return 0, false
	}
	rows, err := db.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		return 0, false
	}
	defer rows.Close()
	var total time.Duration
	n := 0
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return 0, false
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			continue
		}
		var ns int64
		if _, err := fmt.Sscan(string(raw), &ns); err == nil {
			total += time.Duration(ns)
			n++
		}
	}
	return total, n > 0 && rows.Err() == nil
}
