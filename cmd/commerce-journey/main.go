// Command commerce-journey is a load generator for the whole checkout, the
// number a shop cares about (issue 37, BENCHMARKS.md "The whole
// checkout"). Each virtual user repeats a shopper's journey against a
// running `commerce serve`: cart.create, three cart.addToCart of one unit
// (three products), cart.setShippingAddress (Hawaii: the sample's one
// method for USD there is assigned), cart.checkout with the manual
// provider, and order.capture with an admin token. It reports completed
// orders a second and the journey's latency percentiles; with -scenario
// add it measures cart.addToCart alone (a new cart every 20 lines), so
// that the two figures come from the same run. With -scenario get it
// measures reads: each virtual user sends GET requests for the paths of
// the file -paths (one a line, "/catalog/v1/product.info?id=..."), in
// turn from its own place in the list, with the admin token (-as api:
// the first api token); the growth benchmark (.ci/bench-growth) uses it.
//
// It needs the sample catalog loaded (`commerce load ../shared/data/microbase-sample`)
// and tokens (`commerce token`); before the run it gives every product it
// uses a large stock in its own warehouse ("journey"). Errors are counted
// and printed, never retried.
//
//	commerce-journey -url http://127.0.0.1:8080 -admin "$(commerce token --scope admin)" \
//	    -tokens tokens.txt -c 16 -d 20s -warmup 2s -label sqlite-c16
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

type config struct {
	url, admin, tokens, scenario, label string
	paths, as                           string
	c                                   int
	d, warmup                           time.Duration
	products                            int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://127.0.0.1:8080", "the service's address")
	flag.StringVar(&cfg.admin, "admin", "", "an admin token (commerce token --scope admin)")
	flag.StringVar(&cfg.tokens, "tokens", "", "a file of api tokens, one a line, one per virtual user (commerce token --scope api --customer-id ...)")
	flag.StringVar(&cfg.scenario, "scenario", "checkout", "checkout (the whole journey), add (cart.addToCart alone) or get (the GET requests of -paths)")
	flag.StringVar(&cfg.paths, "paths", "", "get: a file of paths with their query, one a line")
	flag.StringVar(&cfg.as, "as", "admin", "get: send the requests with the admin token, or (api) the first api token")
	flag.StringVar(&cfg.label, "label", "", "a label printed with the result")
	flag.IntVar(&cfg.c, "c", 16, "virtual users (concurrent journeys)")
	flag.DurationVar(&cfg.d, "d", 20*time.Second, "how long to record")
	flag.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "how long to run before recording")
	flag.IntVar(&cfg.products, "products", 30, "how many sample products the journeys buy")
	flag.Parse()
	if err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "commerce-journey:", err)
		os.Exit(1)
	}
}

// client calls the service's operations.
type client struct {
	http *http.Client
	url  string
}

// call posts body (GET when nil) to path with the token and decodes the
// answer into out; an answer that is not ok is an error naming its code.
func (c *client) call(ctx context.Context, token, path string, body, out any) error {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	var env struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s: status %d, not JSON", path, res.StatusCode)
	}
	if !env.OK {
		return fmt.Errorf("%s: %s", path, env.Error)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

const warehouse = "journey"

// prepare picks products with a USD price and gives each a stock that the
// run cannot exhaust.
func prepare(ctx context.Context, c *client, admin string, n int) ([]string, error) {
	var list struct {
		Data []struct {
			ID     string `json:"id"`
			Prices []struct {
				Currency string `json:"currency"`
			} `json:"prices"`
		} `json:"data"`
	}
	if err := c.call(ctx, admin, "/catalog/v1/product.list?limit=200&fields=id,prices", nil, &list); err != nil {
		return nil, err
	}
	var ids []string
	for _, p := range list.Data {
		if len(ids) < n && slices.ContainsFunc(p.Prices, func(x struct {
			Currency string `json:"currency"`
		}) bool {
			return x.Currency == "USD"
		}) {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) < 3 {
		return nil, fmt.Errorf("found %d products with a USD price: load the sample catalog first", len(ids))
	}
	for _, id := range ids {
		s := map[string]any{"productId": id, "warehouseId": warehouse, "quantity": 1_000_000_000}
		if err := c.call(ctx, admin, "/stock/v1/stock.create", s, nil); err != nil {
			if err := c.call(ctx, admin, "/stock/v1/stock.update", s, nil); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

var hawaii = map[string]any{"firstName": "Load", "address_1": "1 Beach Rd", "postCode": "96815", "city": "Honolulu", "state": "Hawaii", "country": "US"}

// vu is one virtual user.
type vu struct {
	c        *client
	admin    string
	token    string
	products []string
	n        int // journeys or adds done, to vary the products
	cart     string
	lines    int
}

func (v *vu) newCart(ctx context.Context) error {
	var r struct {
		Cart struct {
			ID string `json:"id"`
		} `json:"cart"`
	}
	if err := v.c.call(ctx, v.token, "/cart/v1/cart.create", map[string]any{"currency": "USD", "country": "US"}, &r); err != nil {
		return err
	}
	v.cart, v.lines = r.Cart.ID, 0
	return nil
}

func (v *vu) add(ctx context.Context, product string) error {
	v.lines++
	return v.c.call(ctx, v.token, "/cart/v1/cart.addToCart", map[string]any{"cartId": v.cart,
		"items": []map[string]any{{"productId": product, "quantity": 1, "warehouseId": warehouse}}}, nil)
}

// journey is the whole checkout of one order.
func (v *vu) journey(ctx context.Context) error {
	if err := v.newCart(ctx); err != nil {
		return err
	}
	for i := range 3 {
		if err := v.add(ctx, v.products[(v.n*3+i)%len(v.products)]); err != nil {
			return err
		}
	}
	v.n++
	if err := v.c.call(ctx, v.token, "/cart/v1/cart.setShippingAddress", map[string]any{"cartId": v.cart, "shippingAddress": hawaii}, nil); err != nil {
		return err
	}
	var placed struct {
		Order struct {
			ID string `json:"id"`
		} `json:"order"`
	}
	if err := v.c.call(ctx, v.token, "/cart/v1/cart.checkout", map[string]any{"cartId": v.cart, "paymentId": "manual",
		"paymentData": map[string]any{"reference": "load"}}, &placed); err != nil {
		return err
	}
	return v.c.call(ctx, v.admin, "/order/v1/order.capture", map[string]any{"id": placed.Order.ID}, nil)
}

// addOne is one cart.addToCart (a new cart every 20 lines).
func (v *vu) addOne(ctx context.Context) error {
	if v.cart == "" || v.lines >= 20 {
		if err := v.newCart(ctx); err != nil {
			return err
		}
	}
	v.n++
	return v.add(ctx, v.products[v.n%len(v.products)])
}

type result struct {
	lat    []time.Duration
	errors map[string]int
}

func run(cfg config, out io.Writer) error {
	if cfg.admin == "" || cfg.tokens == "" || cfg.c < 1 {
		return errors.New("-admin, -tokens and -c of at least 1 are required")
	}
	if cfg.scenario != "checkout" && cfg.scenario != "add" && cfg.scenario != "get" {
		return fmt.Errorf("-scenario %q: want checkout, add or get", cfg.scenario)
	}
	raw, err := os.ReadFile(cfg.tokens)
	if err != nil {
		return err
	}
	tokens := strings.Fields(string(raw))
	if len(tokens) < cfg.c && cfg.scenario != "get" || len(tokens) == 0 {
		return fmt.Errorf("%s has %d tokens, want one per virtual user (%d)", cfg.tokens, len(tokens), cfg.c)
	}
	tr := &http.Transport{MaxIdleConns: cfg.c * 2, MaxIdleConnsPerHost: cfg.c * 2, IdleConnTimeout: time.Minute}
	c := &client{http: &http.Client{Transport: tr, Timeout: 30 * time.Second}, url: strings.TrimRight(cfg.url, "/")}
	ctx := context.Background()
	var products, paths []string
	if cfg.scenario == "get" {
		if paths, err = readPaths(cfg.paths); err != nil {
			return err
		}
		if cfg.as == "api" {
			cfg.admin = tokens[0]
		} else if cfg.as != "admin" {
			return fmt.Errorf("-as %q: want admin or api", cfg.as)
		}
	} else if products, err = prepare(ctx, c, cfg.admin, cfg.products); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	start := time.Now()
	recordFrom, end := start.Add(cfg.warmup), start.Add(cfg.warmup+cfg.d)
	results := make([]result, cfg.c)
	var wg sync.WaitGroup
	for i := range cfg.c {
		wg.Go(func() {
			v := &vu{c: c, admin: cfg.admin, token: tokens[i%len(tokens)], products: products, n: i}
			r := &results[i]
			r.errors = map[string]int{}
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				var err error
				switch cfg.scenario {
				case "checkout":
					err = v.journey(ctx)
				case "add":
					err = v.addOne(ctx)
				default:
					err = c.call(ctx, cfg.admin, paths[v.n%len(paths)], nil, nil)
					v.n++
				}
				if t0.Before(recordFrom) {
					continue
				}
				if err != nil {
					r.errors[err.Error()]++
					v.cart = ""
					continue
				}
				r.lat = append(r.lat, time.Since(t0))
			}
		})
	}
	wg.Wait()
	var lat []time.Duration
	errs := map[string]int{}
	nerr := 0
	for _, r := range results {
		lat = append(lat, r.lat...)
		for k, n := range r.errors {
			errs[k] += n
			nerr += n
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	unit := map[string]string{"checkout": "orders/s", "add": "adds/s", "get": "req/s"}[cfg.scenario]
	fmt.Fprintf(out, "%s\t%s\tC=%d\t%.1f %s\tp50 %.2f ms\tp90 %.2f ms\tp99 %.2f ms\terrors %d\n", cfg.label, cfg.scenario, cfg.c,
		float64(len(lat))/cfg.d.Seconds(), unit, pct(0.50), pct(0.90), pct(0.99), nerr)
	for k, n := range errs {
		fmt.Fprintf(out, "  error %dx: %s\n", n, k)
	}
	if nerr > 0 {
		return fmt.Errorf("%d errors", nerr)
	}
	return nil
}

// readPaths reads the paths of -paths: one a line, blank lines skipped.
func readPaths(file string) ([]string, error) {
	if file == "" {
		return nil, errors.New("-scenario get needs -paths")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var paths []string
	for l := range strings.Lines(string(raw)) {
		if l = strings.TrimSpace(l); l != "" {
			if !strings.HasPrefix(l, "/") {
				return nil, fmt.Errorf("%s: %q is not a path", file, l)
			}
			paths = append(paths, l)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no paths", file)
	}
	return paths, nil
}
