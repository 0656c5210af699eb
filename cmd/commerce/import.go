package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/transfer"
)

// importCmd runs `commerce import [--format shopify] FILE`: it uploads the
// file to product.import of a running service (docs/api.md section 25),
// follows the job with job.info, drawing a progress bar on stderr, and
// prints the outcome and each rejected row (line, sku, error) on stdout. It
// fails (non-zero exit) when the service refuses the file or the job
// fails as a whole; rejected rows are reported, not an error. The token
// is resolved as `commerce load` resolves it.
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c config
	fs := newFlagSet("import", stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: commerce import [flags] FILE")
		fmt.Fprintln(fs.Output(), "Creates or updates each product of FILE by sku (the commerce CSV or JSON Lines, or Shopify's product CSV with --format shopify).")
		fs.PrintDefaults()
	}
	baseURL := fs.String("url", "http://localhost:8080", "service base URL (env COMMERCE_URL)")
	tok := fs.String("token", "", "admin access token (env COMMERCE_TOKEN; default: minted from the JWT secret, see --jwt-secret and --db)")
	format := fs.String("format", transfer.FormatCommerce, "the file's format: commerce (CSV or JSON Lines) or shopify")
	currency := fs.String("currency", "USD", "the currency of Shopify's prices")
	dryRun := fs.Bool("dry-run", false, "check every row and write nothing")
	c.storageFlags(fs)
	files, err := parseInterleaved(fs, args, getenv)
	if err != nil || files == nil {
		return err // nil for -h
	}
	if len(files) != 1 {
		fs.Usage()
		return fmt.Errorf("import: want one FILE, got %d", len(files))
	}
	if *tok == "" {
		if *tok, err = c.adminToken("import", "import"); err != nil {
			return err
		}
	}
	f, err := os.Open(files[0])
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	cl := &importClient{url: strings.TrimRight(*baseURL, "/"), token: *tok, http: &http.Client{Timeout: 30 * time.Minute}}
	fields := map[string]string{"format": *format, "currency": *currency, "dryRun": fmt.Sprint(*dryRun)}
	j, err := cl.upload(ctx, f, filepath.Base(files[0]), fields)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	bar := &importBar{w: stderr}
	for j.Status == transfer.JobRunning {
		bar.draw(j)
		if err := commerce.Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		if j, err = cl.job(ctx, j.ID); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	bar.draw(j)
	fmt.Fprintln(stderr)
	what := "import"
	if j.DryRun {
		what = "dry run (nothing written)"
	}
	fmt.Fprintf(stdout, "%s %s: %d rows: %d created, %d updated, %d unchanged, %d rejected\n", what, j.ID, j.Rows, j.Created, j.Updated, j.Unchanged, j.Rejected)
	for _, e := range j.Errors {
		data, _ := json.Marshal(e.Data)
		fmt.Fprintf(stdout, "line %d %s: %s %s\n", e.Line, e.SKU, e.Error, data)
	}
	if j.Status == transfer.JobFailed {
		return fmt.Errorf("import: the job failed: nothing after the rows processed was imported")
	}
	return nil
}

// importBar draws `\r[=====>    ] 512/983 rows` (the rows are counted
// once the job has read the file through).
type importBar struct {
	w     io.Writer
	drawn string
}

func (b *importBar) draw(j *transfer.Job) {
	const width = 30
	total := max(j.Rows, 1)
	n := min(width, j.Processed*width/total)
	line := fmt.Sprintf("\r[%s%s] %d/%d rows", strings.Repeat("=", n), strings.Repeat(" ", width-n), j.Processed, j.Rows)
	if j.Rows == 0 {
		line = fmt.Sprintf("\r[%s] reading the file", strings.Repeat(" ", width))
	}
	if line != b.drawn {
		fmt.Fprint(b.w, line)
		b.drawn = line
	}
}

type importClient struct {
	url, token string
	http       *http.Client
}

// upload streams the file in a multipart body (it is never held in memory).
func (c *importClient) upload(ctx context.Context, file io.Reader, name string, fields map[string]string) (*transfer.Job, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for k, v := range fields {
			if err := mw.WriteField(k, v); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		part, err := mw.CreateFormFile("file", name)
		if err == nil {
			_, err = io.Copy(part, file)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/catalog/v1/product.import", pr)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.do(req)
}

func (c *importClient) job(ctx context.Context, id string) (*transfer.Job, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/catalog/v1/job.info?id="+id, nil)
	if err != nil {
		return nil, err
	}
	return c.do(req)
}

func (c *importClient) do(req *http.Request) (*transfer.Job, error) {
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var out struct {
		OK    bool            `json:"ok"`
		Error string          `json:"error"`
		Data  json.RawMessage `json:"data"`
		Job   *transfer.Job   `json:"job"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("%s: status %d, not the service's answer: %w", req.URL.Path, res.StatusCode, err)
	}
	if !out.OK || out.Job == nil {
		return nil, fmt.Errorf("%s: %d %s %s", req.URL.Path, res.StatusCode, out.Error, out.Data)
	}
	return out.Job, nil
}
