// Package gen generates a large shop, deterministically from a seed,
// straight into a store (issue 37, BENCHMARKS.md "Growth"): products with
// variants, prices and stock in two warehouses, a category tree,
// promotions, customers, orders and the event log, in the proportions of
// the issue (per 1,000,000 products: 10 % of them in variant families, 3
// prices each, 2 warehouses, 2,000 categories, 1,000 promotions, 200,000
// customers, 1,000,000 orders and 10,000,000 events; a smaller shop has
// the same proportions). It writes through the stores' transactions (the
// catalog's multi-row CreateProducts, the orders' and customers' Insert,
// the event outbox) in large transactions, with multi-row INSERTs for the
// stock; the search index fills itself from the products (its triggers),
// as it does for any product write. It is for benchmarks only: the
// generated shop has one shipping method (US in USD, Europe in EUR and
// GBP) and one tax (default, 21 %), every customer the password
// Password, and the event followers (mail, webhooks, NATS) start at the
// end of the generated log, as a running shop's are caught up.
//
// The same seed and size give the same rows: ids, dates and text all come
// from the seeded generator and a fixed date (Config.Now), never from the
// clock (the sequence columns the stores assign follow the same order).
package gen

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/commercekit/commerce/sqldb"
)

// Password is the password of every generated customer.
const Password = "growth-shopper"

// passwordHash is Password hashed once (customer.HashPassword, default
// parameters), so that every run stores the same hash.
const passwordHash = "$argon2id$v=19$m=19456,t=2,p=1$akkZ/rXBuWOIZdA18hQB2A$ayOntMAG4YgHkfoymyOJUhw63du3D5KbYFggxFOKyl0"

// Warehouses are the two warehouses every product has stock in.
var Warehouses = []string{"east", "west"}

// Config is what to generate.
type Config struct {
	// Products is the number of products; every other count follows it
	// (Sizes).
	Products int
	// Seed chooses the data; the same seed and size give the same rows.
	Seed uint64
	// Now is the generated shop's present: orders and events are dated in
	// the year before it. Zero means DefaultNow.
	Now time.Time
	// Progress, when set, is told what each step wrote and how long it
	// took.
	Progress func(format string, args ...any)
}

// DefaultNow is the generated shop's present when Config.Now is zero.
var DefaultNow = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// Sizes are the counts of a generated shop.
type Sizes struct {
	Products   int `json:"products"`
	Families   int `json:"families"` // base products, each with 3 variants (counted in Products)
	Categories int `json:"categories"`
	Promotions int `json:"promotions"`
	Customers  int `json:"customers"`
	Orders     int `json:"orders"`
	Events     int `json:"events"`
}

// SizesFor returns the counts for n products, in the proportions
// (at least one of each).
func SizesFor(n int) Sizes {
	per := func(perMillion int) int { return max(1, int(int64(n)*int64(perMillion)/1_000_000)) }
	return Sizes{
		Products:   n,
		Families:   n / 40,                           // a base and 3 variants: 10 % of the products
		Categories: max(2*topCategories, per(2_000)), // a leaf at least under each top
		Promotions: per(1_000),
		Customers:  per(200_000),
		Orders:     per(1_000_000),
		Events:     per(10_000_000),
	}
}

// topCategories is the number of top-level categories; every product is
// in one of them and in one of their leaves, so that a top category holds
// a tenth of the catalog (10,000 products at 100,000).
const topCategories = 10

// Facts are values of the generated shop that a benchmark asks for.
type Facts struct {
	Sizes Sizes `json:"sizes"`
	// BigCategory is a top category (a tenth of the products).
	BigCategory string `json:"bigCategory"`
	// Products are ids of products with prices, spread over the catalog.
	Products []string `json:"products"`
	// Customers are ids of customers with orders.
	Customers []string `json:"customers"`
	// Day is a day with orders (YYYY-MM-DD), in the middle of the year.
	Day string `json:"day"`
	// MiddleEvent is the id of the event in the middle of the log.
	MiddleEvent string `json:"middleEvent"`
	// Words are words of the titles: types, brands and features.
	Types    []string `json:"types"`
	Brands   []string `json:"brands"`
	Features []string `json:"features"`
}

// generator holds the state of one run.
type generator struct {
	db     *sqldb.DB
	cfg    Config
	sizes  Sizes
	r      *rand.Rand
	now    time.Time
	facts  Facts
	leaves []string          // leaf category ids
	tops   []string          // top category ids
	sale   []saleProduct     // products that can be ordered
	custs  []string          // customer ids
	emails map[string]string // customer id -> email
}

// saleProduct is what an order line needs of a product.
type saleProduct struct {
	id, sku, title string
	usd            int64
}

// Generate writes a shop of cfg.Products products into db, which must be
// freshly migrated and empty, and returns its facts.
func Generate(ctx context.Context, db *sqldb.DB, cfg Config) (*Facts, error) {
	if cfg.Products < 1 {
		return nil, fmt.Errorf("gen: products %d: want at least 1", cfg.Products)
	}
	if cfg.Now.IsZero() {
		cfg.Now = DefaultNow
	}
	if cfg.Progress == nil {
		cfg.Progress = func(string, ...any) {}
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM products`).Scan(&n); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	if n > 0 {
		return nil, fmt.Errorf("gen: the store has %d products already: generate into an empty store", n)
	}
	g := &generator{db: db, cfg: cfg, sizes: SizesFor(cfg.Products), r: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		now: cfg.Now.UTC(), emails: map[string]string{}}
	g.facts.Sizes = g.sizes
	g.facts.Types, g.facts.Brands, g.facts.Features = types, brands, features
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"settings", g.settings},
		{"categories", g.categories},
		{"products", g.products},
		{"stock", g.stock},
		{"promotions", g.promotions},
		{"customers", g.customers},
		{"orders", g.orders},
		{"events", g.events},
		{"cursors", g.cursors},
		{"statistics", g.analyze},
	}
	for _, s := range steps {
		start := time.Now()
		if err := s.fn(ctx); err != nil {
			return nil, fmt.Errorf("gen: %s: %w", s.name, err)
		}
		cfg.Progress("%s: %v", s.name, time.Since(start).Round(time.Millisecond))
	}
	return &g.facts, nil
}

// id returns a new id: 12 bytes of the generator in URL-safe base64, as
// commerce.NewID's.
func (g *generator) id() string {
	var b [12]byte
	for i := 0; i < len(b); i += 8 {
		v := g.r.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (g *generator) pick(l []string) string { return l[g.r.IntN(len(l))] }

// analyze gathers the planner's statistics, as a running database has
// them (PostgreSQL's autovacuum, SQLite's ANALYZE).
func (g *generator) analyze(ctx context.Context) error {
	return g.db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `ANALYZE`)
		return err
	})
}

// batches calls fn for [from, to) ranges of n items, size at a time.
func batches(n, size int, fn func(from, to int) error) error {
	for from := 0; from < n; from += size {
		if err := fn(from, min(from+size, n)); err != nil {
			return err
		}
	}
	return nil
}

// The words of the generated titles: a product's title is a type, a
// brand, two features and a model code; its description three more
// features.
var (
	types = []string{"Fridge", "Freezer", "Washer", "Dryer", "Dishwasher", "Oven", "Microwave", "Hob", "Hood", "Coffee",
		"Toaster", "Blender", "Vacuum", "Iron", "Television", "Laptop", "Monitor", "Printer", "Speaker", "Headphones",
		"Camera", "Phone", "Tablet", "Watch", "Bicycle", "Sneakers", "Backpack", "Jacket", "Shirt", "Trousers", "Sofa",
		"Table", "Chair", "Lamp", "Mattress", "Pillow", "Pan", "Pot", "Knife", "Cooler"}
	brands = []string{"Bosch", "Balay", "Siemens", "Samsung", "LG", "Beko", "Smeg", "Liebherr", "Fagor", "Teka",
		"Whirlpool", "Electrolux", "AEG", "Candy", "Haier", "Hisense", "Sony", "Philips", "Panasonic", "Xiaomi",
		"Apple", "HP", "Lenovo", "Asus", "Acer", "Nike", "Adidas", "Puma", "Ikea", "Tefal"}
	features = []string{"stainless", "white", "black", "silver", "compact", "large", "silent", "efficient", "smart",
		"wireless", "portable", "digital", "touch", "fast", "light", "rugged", "classic", "modern", "vertical",
		"horizontal", "integrated", "freestanding", "double", "triple", "automatic", "programmable", "eco", "premium",
		"basic", "professional", "kids", "sport", "urban", "thermal", "waterproof", "breathable", "padded",
		"adjustable", "folding", "retro"}
	colors = []string{"Red", "Blue", "Green"}
)
