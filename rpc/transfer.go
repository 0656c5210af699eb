package rpc

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/transfer"
)

// maxFormField is the longest value of a product.import form field.
const maxFormField = 1024

// RegisterTransfer registers the catalog's import and export (docs/api.md
// section 25): product.import (multipart upload), job.info and
// product.export under /catalog/v1/, order.export under /order/v1/. Who
// may call: every one of them needs a token with the admin scope (others
// get 403 forbidden, and no token 401 invalid_token).
func RegisterTransfer(s *Server, svc *transfer.Service) {
	HandleRaw[transfer.ImportInput](s, Op{Service: "catalog", Name: "product.import", Admin: true, Multipart: true,
		Result: importResult{},
		Doc: "Imports products from a file (the commerce CSV or JSON Lines, or Shopify's product CSV), creating or updating each by sku, " +
			"in a background job that job.info follows. A file refused as a whole (not CSV or JSON Lines, an unknown or missing column) " +
			"is answered at once and nothing is written; a row's error rejects that row only.",
		Errors: []string{commerce.ERequestTooLarge}},
		func(ctx context.Context, w http.ResponseWriter, r *http.Request, args func(any, []byte) error) (int, error) {
			return serveImport(ctx, w, r, svc)
		})
	Handle(s, Op{Service: "catalog", Name: "job.info", Admin: true, Read: true, Result: importResult{},
		Doc: "An import job: its status, counters and the first 1,000 row errors.", Errors: []string{commerce.EJobNotFound}},
		func(ctx context.Context, a *transfer.JobInfoInput) (any, error) {
			j, err := svc.Job(ctx, a.ID)
			return recordAnswer("job", j, err)
		})
	HandleRaw[transfer.ExportInput](s, Op{Service: "catalog", Name: "product.export", Admin: true, Read: true,
		Produces: []string{"text/csv", "application/x-ndjson"},
		Doc: "Streams every product matching the filters of product.list (every status unless status is given; limit, skip and fields " +
			"are not taken) in the commerce format: CSV, or JSON Lines with format=jsonl. Importing the export into an empty store gives the same catalog."},
		func(ctx context.Context, w http.ResponseWriter, r *http.Request, args func(any, []byte) error) (int, error) {
			var in transfer.ExportInput
			if err := rawArgs(r, &in, args); err != nil {
				return 0, err
			}
			e, err := svc.PrepareProductExport(in)
			if err != nil {
				return 0, err
			}
			ct, name := "text/csv; charset=utf-8", "products.csv"
			if e.Format() == transfer.ExportJSONL {
				ct, name = "application/x-ndjson", "products.jsonl"
			}
			return stream(ctx, w, ct, name, e.Write)
		})
	HandleRaw[transfer.OrderExportInput](s, Op{Service: "order", Name: "order.export", Admin: true, Read: true,
		Produces: []string{"text/csv"},
		Doc: "Streams the orders created between createdFrom and createdTo (with one of the statuses given) as CSV, one row per order item: " +
			strings.Join(transfer.OrderColumns, ", ") + "."},
		func(ctx context.Context, w http.ResponseWriter, r *http.Request, args func(any, []byte) error) (int, error) {
			var in transfer.OrderExportInput
			if err := rawArgs(r, &in, args); err != nil {
				return 0, err
			}
			e, err := svc.PrepareOrderExport(in)
			if err != nil {
				return 0, err
			}
			return stream(ctx, w, "text/csv; charset=utf-8", "orders.csv", e.Write)
		})
}

// importResult is the answer of product.import and job.info.
type importResult struct {
	Job transfer.Job `json:"job"`
}

// rawArgs decodes the arguments of an export: its query string, and its
// JSON body when it has one (1 MiB at most).
func rawArgs(r *http.Request, v any, args func(any, []byte) error) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return args(v, body)
}

// stream answers 200 with the content type and writes the records with
// write. A failure once the answer has begun cannot change its status:
// it is logged by the caller's metrics as 200 and the stream is cut short
// (the client sees a truncated file, without the final newline).
func stream(ctx context.Context, w http.ResponseWriter, ct, name string, write func(context.Context, io.Writer) error) (int, error) {
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	fw := flushWriter{w}
	if err := write(ctx, fw); err != nil {
		panic(http.ErrAbortHandler) // cut the answer: it is not complete
	}
	return http.StatusOK, nil
}

type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(b []byte) (int, error) { return f.w.Write(b) }
func (f flushWriter) Flush() {
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// serveImport reads product.import's multipart body: the fields format,
// dryRun and currency (or the same names in the query string), and the
// file part `file`, which is kept as it streams in.
func serveImport(ctx context.Context, w http.ResponseWriter, r *http.Request, svc *transfer.Service) (int, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return 0, commerce.Invalid("body: must be multipart/form-data with a part named file")
	}
	if r.ContentLength > transfer.MaxFileBytes+MaxBody {
		return 0, commerce.NewError(commerce.ERequestTooLarge, nil)
	}
	r.Body = http.MaxBytesReader(w, r.Body, transfer.MaxFileBytes+MaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return 0, commerce.Invalid("body: must be multipart/form-data with a part named file")
	}
	fields := map[string]string{}
	for k, v := range r.URL.Query() {
		if len(v) > 0 {
			fields[k] = v[0]
		}
	}
	var up *transfer.Upload
	defer func() {
		if up != nil {
			up.Discard()
		}
	}()
	var ps commerce.Problems
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return 0, commerce.NewError(commerce.ERequestTooLarge, nil)
			}
			return 0, commerce.Invalid("body: not a well-formed multipart/form-data body")
		}
		name := part.FormName()
		switch name {
		case "file":
			if up != nil {
				ps.Add("file", "given twice")
				continue
			}
			if up, err = svc.Receive(part); err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					return 0, commerce.NewError(commerce.ERequestTooLarge, nil)
				}
				return 0, err
			}
		case "format", "dryRun", "currency":
			b, err := io.ReadAll(io.LimitReader(part, maxFormField+1))
			if err != nil || len(b) > maxFormField {
				ps.Add(name, "longer than %d bytes", maxFormField)
				continue
			}
			fields[name] = strings.TrimSpace(string(b))
		default:
			ps.Add(name, "unknown field (the fields are file, format, dryRun and currency)")
		}
	}
	in := transfer.ImportInput{Format: fields["format"], Currency: fields["currency"]}
	if v, ok := fields["dryRun"]; ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			ps.Add("dryRun", "must be true or false")
		}
		in.DryRun = b
	}
	if up == nil {
		ps.Add("file", "required: the part holding the file")
	}
	if err := ps.Err(); err != nil {
		return 0, err
	}
	j, err := svc.Start(ctx, in, up)
	if err != nil {
		return 0, err
	}
	up = nil // the job has it
	out, err := envelope(importResult{Job: *j})
	if err != nil {
		return 0, err
	}
	writeJSON(w, http.StatusOK, out)
	return http.StatusOK, nil
}
