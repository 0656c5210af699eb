// Package loader loads a folder of JSON Lines files in the format of the
// MicroBase sample data (shared/data/microbase-sample) into a running
// commerce service, as a client of its HTTP interface: it is what
// `commerce load DIR` runs.
//
// The files, each optional, are loaded in this order:
//
//	dataCategories.jsonl   category.create     one at a time, in file order (parents before children)
//	dataTaxes.jsonl        tax.create          one at a time
//	dataShipping.jsonl     shipping.create     one at a time
//	dataProducts*.jsonl    product.create      concurrently (Options.Workers in flight), files in name order
//	dataPromotions.jsonl   promotion.create    one at a time, in file order (priority ties keep it)
//
// Every record is sent as it is in the file, with these changes:
//   - a string value `categoryIdByTitle(TITLE)`, anywhere in the record, is
//     replaced by the id of the category titled TITLE (see resolver);
//   - a category without `slug` gets one derived from its title (Slug);
//   - a product without `stockStatus` gets Options.StockStatus (0, NORMAL,
//     unless set); a record's own stockStatus is kept;
//   - with Options.FixSpelling, a promotion's `isPercentaje` (the sample's
//     spelling) becomes `isPercentage`. Without it the service rejects the
//     record with validation_error (unknown property) and the report says so.
//
// A record the service refuses is reported (line, sku/code/title, error code
// and data) and the load goes on. A file whose create operation the server
// does not have (404 operation_not_found) is skipped with a note. Only fatal
// problems stop the load and make Load return an error: the service cannot
// be reached or does not answer as the commerce service, the token is
// refused (invalid_token) or lacks the admin scope (forbidden), the storage
// is unavailable, DIR cannot be read or holds none of the files.
//
// Loading is idempotent: a record the service already has is skipped and
// counted as "already there" (FileReport.Existing), never created twice nor
// updated, so a second load of the same folder changes nothing and a load
// of a longer folder adds only what is new. What "already has" means, per
// kind:
//   - categories and products: the service's own unique keys, the slug among
//     its siblings and the sku; a create answered duplicate_key on that index
//     is already there (category references still resolve, to the existing
//     categories);
//   - taxes, shipping methods and promotions, which the service does not
//     keep unique: the tax code (in Unicode NFC, as the service stores it),
//     the shipping method's title and the promotion's title, each compared
//     exactly with the records the service had when the file's load began
//     (read with tax.list, shipping.list, promotion.list). The n-th record of
//     a file with a key is already there when the service had at least n
//     records with that key, so a file that lists several taxes of one code
//     loads them all the first time and none the second.
//
// Products are created concurrently, so their creation order (the order of
// product.list) only roughly follows the file.
package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// DefaultWorkers is the number of product.create requests in flight.
const DefaultWorkers = 8

// Options configure a load.
type Options struct {
	// URL is the service's base address, e.g. http://localhost:8080 (a path
	// prefix such as /services is kept).
	URL string
	// Token is the access token sent as "Authorization: Bearer"; it needs
	// the admin scope.
	Token string
	// StockStatus is given to products that have no stockStatus: 0 NORMAL
	// (the default), 1 UNLIMITED, 2 DISCONTINUED.
	StockStatus int
	// FixSpelling corrects the promotion discount flag isPercentaje to
	// isPercentage before sending.
	FixSpelling bool
	// Workers is the number of products loaded concurrently (DefaultWorkers
	// when 0 or less).
	Workers int
	// Progress receives the progress bars (stderr); nil draws none.
	Progress io.Writer
	// HTTPClient makes the requests; nil uses a client with a 2 minute
	// timeout per request.
	HTTPClient *http.Client
}

// Report is the outcome of a load: one entry per file found, in load order.
type Report struct {
	Files []*FileReport
}

// FileReport is the outcome of one file.
type FileReport struct {
	File     string      // file name, e.g. "dataTaxes.jsonl"
	Kind     string      // "categories", "taxes", "shipping methods", "products" or "promotions"
	Op       string      // the create operation, e.g. "tax.create"
	Records  int         // non-blank lines in the file
	Loaded   int         // records the service accepted
	Rejected []Rejection // records refused, by line number
	// Existing is the number of records the service already had, which were
	// skipped (see the package comment for how each kind is matched).
	Existing int
	// Skipped, when not empty, says why the file was not loaded (e.g. the
	// server does not have its create operation yet).
	Skipped string
	// Misspelled is the number of records sent with the key isPercentaje
	// (promotions loaded without FixSpelling).
	Misspelled int
}

// Rejection is a record that was not loaded.
type Rejection struct {
	Line   int             // 1-based line number in the file
	Record string          // identification: `sku "001004721744979"`, `code "ca-on-pm"`, `title "..."`; "" when none
	Code   string          // error code: the service's, or invalid_json / category_not_found found by the loader
	Data   json.RawMessage // the error's data as returned; nil when none
	Status int             // HTTP status; 0 when the loader found the problem before sending
}

// Loaded returns the number of records loaded over all files.
func (r *Report) Loaded() int {
	n := 0
	for _, f := range r.Files {
		n += f.Loaded
	}
	return n
}

// RejectedCount returns the number of records rejected over all files.
func (r *Report) RejectedCount() int {
	n := 0
	for _, f := range r.Files {
		n += len(f.Rejected)
	}
	return n
}

// File returns the report of the named file, or nil.
func (r *Report) File(name string) *FileReport {
	for _, f := range r.Files {
		if f.File == name {
			return f
		}
	}
	return nil
}

// kind is one type of file and how its records are sent.
type kind struct {
	name       string
	op         string
	path       string
	concurrent bool
	// uniqueIndex is the index of the duplicate_key answer that means the
	// record is already there (categories, products); listPath and key,
	// for the kinds the service keeps no unique key of, list the existing
	// records and name the field that identifies one.
	uniqueIndex string
	listPath    string
	key         string
}

var (
	categories = kind{name: "categories", op: "category.create", path: "/catalog/v1/category.create", uniqueIndex: "parent_slug"}
	taxes      = kind{name: "taxes", op: "tax.create", path: "/tax/v1/tax.create", listPath: "/tax/v1/tax.list", key: "code"}
	shipping   = kind{name: "shipping methods", op: "shipping.create", path: "/cart/v1/shipping.create", listPath: "/cart/v1/shipping.list", key: "title"}
	products   = kind{name: "products", op: "product.create", path: "/catalog/v1/product.create", concurrent: true, uniqueIndex: "sku"}
	promotions = kind{name: "promotions", op: "promotion.create", path: "/promotion/v1/promotion.create", listPath: "/promotion/v1/promotion.list", key: "title"}
)

// job is a file to load.
type job struct {
	file string
	kind kind
}

// findFiles lists the files of dir to load, in load order.
func findFiles(dir string) ([]job, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var productFiles []string
	present := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		name := e.Name()
		present[name] = true
		if strings.HasPrefix(name, "dataProducts") && strings.HasSuffix(name, ".jsonl") {
			productFiles = append(productFiles, name)
		}
	}
	sort.Strings(productFiles)
	var jobs []job
	add := func(name string, k kind) {
		if present[name] {
			jobs = append(jobs, job{filepath.Join(dir, name), k})
		}
	}
	add("dataCategories.jsonl", categories)
	add("dataTaxes.jsonl", taxes)
	add("dataShipping.jsonl", shipping)
	for _, name := range productFiles {
		add(name, products)
	}
	add("dataPromotions.jsonl", promotions)
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s holds none of dataCategories.jsonl, dataTaxes.jsonl, dataShipping.jsonl, dataProducts*.jsonl, dataPromotions.jsonl", dir)
	}
	return jobs, nil
}

// Load loads the files of dir into the service at o.URL. It returns the
// report of what was done so far together with any fatal error (a
// *FatalError, or the context's error when ctx ends); rejected records are
// in the report, not an error.
func Load(ctx context.Context, dir string, o Options) (*Report, error) {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.StockStatus < 0 || o.StockStatus > 2 {
		return nil, fmt.Errorf("stock status %d: want 0 (NORMAL), 1 (UNLIMITED) or 2 (DISCONTINUED)", o.StockStatus)
	}
	if _, err := url.Parse(o.URL); err != nil || !strings.HasPrefix(o.URL, "http://") && !strings.HasPrefix(o.URL, "https://") {
		return nil, fmt.Errorf("url %q: want an http:// or https:// address", o.URL)
	}
	jobs, err := findFiles(dir)
	if err != nil {
		return nil, err
	}
	l := &loader{opts: o, c: newClient(o.URL, o.Token, o.HTTPClient, o.Workers)}
	l.res = newResolver(l.c)
	rep := &Report{}
	if err := l.preflight(ctx); err != nil {
		return rep, err
	}
	for _, j := range jobs {
		fr, err := l.loadFile(ctx, j)
		if fr != nil {
			rep.Files = append(rep.Files, fr)
		}
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// loader holds what the files of one load share.
type loader struct {
	opts Options
	c    *client
	res  *resolver
}

// preflight checks, before anything is sent, that the service answers and
// takes the token with the admin scope (event.list is admin-only and
// changes nothing).
func (l *loader) preflight(ctx context.Context) error {
	_, err := l.c.call(ctx, "/event/v1/event.list", url.Values{"limit": {"1"}}, nil)
	var ae *APIError
	if err == nil || errors.As(err, &ae) && ae.Code == codeOperationNotFound {
		return nil
	}
	if isFatal(err) {
		return explain(err, l.c.base)
	}
	return nil
}

// outcome is the result of one record.
type outcome struct {
	rej *Rejection // nil when loaded or already there
	// existing: the service already had the record; it was not created.
	existing bool
	// misspelled: sent with isPercentaje.
	misspelled bool
}

// loadFile loads one file, its records concurrently for products and one at
// a time otherwise.
func (l *loader) loadFile(ctx context.Context, j job) (*FileReport, error) {
	fr := &FileReport{File: filepath.Base(j.file), Kind: j.kind.name, Op: j.kind.op}
	total, err := countLines(j.file)
	if err != nil {
		return fr, err
	}
	fr.Records = total
	if total == 0 {
		return fr, nil
	}
	have, err := l.existing(ctx, j.kind)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.Code == codeOperationNotFound {
			fr.Skipped = fmt.Sprintf("%s is not available on this server yet, skipped", ae.Op)
			return fr, nil
		}
		return fr, explain(err, l.c.base)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		mu       sync.Mutex
		fatal    error
		skipped  bool
		outcomes = map[int]outcome{}
	)
	stop := func(err error, skip bool) {
		mu.Lock()
		defer mu.Unlock()
		if fatal == nil && !skipped {
			fatal, skipped = err, skip
		}
		cancel()
	}
	bar := newProgress(l.opts.Progress, j.kind.name, total)

	workers := 1
	if j.kind.concurrent {
		workers = l.opts.Workers
	}
	lines := make(chan line)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ln := range lines {
				out, err := l.loadRecord(fctx, j.kind, ln, have)
				if err != nil {
					var ae *APIError
					if errors.As(err, &ae) && ae.Code == codeOperationNotFound {
						stop(errors.New(ae.Op), true)
					} else if fctx.Err() == nil {
						stop(explain(err, l.c.base), false)
					}
					continue
				}
				mu.Lock()
				outcomes[ln.n] = out
				mu.Unlock()
				bar.add(1)
			}
		})
	}
	readErr := eachLine(j.file, func(ln line) error {
		select {
		case lines <- ln:
			return nil
		case <-fctx.Done():
			return fctx.Err()
		}
	})
	close(lines)
	wg.Wait()
	bar.finish()

	if skipped {
		fr.Skipped = fmt.Sprintf("%s is not available on this server yet, skipped", fatal.Error())
		return fr, nil
	}
	if fatal == nil && ctx.Err() != nil {
		fatal = ctx.Err()
	}
	if fatal == nil && readErr != nil && !errors.Is(readErr, context.Canceled) {
		fatal = readErr
	}
	nums := make([]int, 0, len(outcomes))
	for n := range outcomes {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		out := outcomes[n]
		if out.misspelled {
			fr.Misspelled++
		}
		switch {
		case out.rej != nil:
			fr.Rejected = append(fr.Rejected, *out.rej)
		case out.existing:
			fr.Existing++
		default:
			fr.Loaded++
		}
	}
	return fr, fatal
}

// loadRecord prepares and sends one record. It returns the record's
// outcome, or an error that is not about the record alone: fatal, or
// operation_not_found (the server lacks the file's create operation, or
// category.list to resolve references), which skips the rest of the file.
func (l *loader) loadRecord(ctx context.Context, k kind, ln line, have *existing) (outcome, error) {
	var out outcome
	reject := func(id string, err error) (outcome, error) {
		var ae *APIError
		if !errors.As(err, &ae) || isFatal(err) || ae.Code == codeOperationNotFound {
			return out, err
		}
		if k.uniqueIndex != "" && ae.Code == codeDuplicateKey && duplicateIndex(ae.Data) == k.uniqueIndex {
			out.existing = true
			return out, nil
		}
		out.rej = &Rejection{Line: ln.n, Record: id, Code: ae.Code, Data: ae.Data, Status: ae.Status}
		return out, nil
	}
	rec, err := decodeRecord(ln.data)
	if err != nil {
		data, _ := json.Marshal(err.Error())
		return reject("", &APIError{Op: k.op, Code: codeInvalidJSON, Data: data})
	}
	id := identify(rec)
	if have.take(k, rec) {
		out.existing = true
		return out, nil
	}
	if _, err := resolveRefs(rec, func(title string) (string, error) { return l.res.categoryID(ctx, title) }); err != nil {
		return reject(id, err)
	}
	switch k {
	case categories:
		if s, ok := rec["slug"].(string); !ok || s == "" {
			if title, ok := rec["title"].(string); ok {
				rec["slug"] = Slug(title)
			}
		}
	case products:
		if v, ok := rec["stockStatus"]; !ok || v == nil {
			rec["stockStatus"] = l.opts.StockStatus
		}
	case promotions:
		if l.opts.FixSpelling {
			fixSpelling(rec)
		}
		out.misspelled = hasKey(rec, Misspelled)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return out, &FatalError{err}
	}
	res, err := l.c.call(ctx, k.path, nil, body)
	if err != nil {
		return reject(id, err)
	}
	if k == categories {
		var c struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		}
		if json.Unmarshal(res["category"], &c) == nil && c.ID != "" {
			title := c.Title
			if t, ok := rec["title"].(string); ok {
				title = t
			}
			l.res.add(title, c.ID)
		}
	}
	return out, nil
}

// WriteSummary writes, per file, the number of records loaded and rejected
// (and, when there were any, ", already there N": the records the service
// already had), and for each rejected record its line, identification, error code and
// data; then a hint when promotions were rejected for the isPercentaje
// spelling.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	for _, f := range r.Files {
		if f.Skipped != "" {
			fmt.Fprintf(&b, "%s: %s\n", f.Kind, f.Skipped)
			continue
		}
		fmt.Fprintf(&b, "%s (%s): loaded %d, rejected %d", f.Kind, f.File, f.Loaded, len(f.Rejected))
		if f.Existing > 0 {
			fmt.Fprintf(&b, ", already there %d", f.Existing)
		}
		b.WriteByte('\n')
		for _, rj := range f.Rejected {
			fmt.Fprintf(&b, "  line %d", rj.Line)
			if rj.Record != "" {
				fmt.Fprintf(&b, " (%s)", rj.Record)
			}
			fmt.Fprintf(&b, ": %s", rj.Code)
			if len(rj.Data) > 0 {
				fmt.Fprintf(&b, " %s", compact(rj.Data))
			}
			b.WriteByte('\n')
		}
		if f.Misspelled > 0 && len(f.Rejected) > 0 {
			fmt.Fprintf(&b, "  hint: %d record(s) spell %q; --fix-spelling sends %q instead\n", f.Misspelled, Misspelled, Corrected)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// compact returns the JSON on one line.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
