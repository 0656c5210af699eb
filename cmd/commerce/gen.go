package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/commercekit/commerce/internal/gen"
)

// genCmd runs `commerce gen`: a large shop for benchmarks (issue 37,
// BENCHMARKS.md "Growth"), written straight into the store named by --db,
// which must have no products. It prints the shop's facts (ids a
// benchmark asks for) as JSON on stdout, or into --facts.
func genCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c config
	fs := newFlagSet("gen", stderr)
	c.storageFlags(fs)
	products := fs.Int("products", 10_000, "products to generate; the other counts follow (per 1,000,000 products: 2,000 categories, 1,000 promotions, 200,000 customers, 1,000,000 orders, 10,000,000 events)")
	seed := fs.Uint64("seed", 1, "the seed: the same seed and size give the same data")
	facts := fs.String("facts", "", "write the facts (JSON) to this file instead of stdout")
	quiet := fs.Bool("quiet", false, "do not report each step on stderr")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	db, err := c.openDB(ctx, time.Now)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	cfg := gen.Config{Products: *products, Seed: *seed}
	if !*quiet {
		cfg.Progress = func(format string, args ...any) { fmt.Fprintf(stderr, "gen: "+format+"\n", args...) }
	}
	f, err := gen.Generate(ctx, db, cfg)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "gen: %d products, %d orders, %d events in %v\n", f.Sizes.Products, f.Sizes.Orders, f.Sizes.Events, time.Since(start).Round(time.Millisecond))
	}
	if *facts != "" {
		return os.WriteFile(*facts, append(out, '\n'), 0o644)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}
