package admin

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/transfer"
)

// The catalog import pages (docs/api.md section 25): a form uploads a file
// (the commerce CSV or JSON Lines, or Shopify's product CSV) and starts
// product.import's job; the job's page shows its progress while it runs
// (htmx asks for it again every second; without JavaScript a link
// reloads it), then its counts and the table of its errors, one line per
// problem (line, sku, column, code, message).
//
// The form goes to the import service directly (as the product page's
// image upload goes to the media service: a file is no JSON argument of
// rpc.Server.Call), the job's page reads job.info as the member. Both are
// for the roles that may run product.import (staff.Exceptions): owner,
// admin, catalog; others get the page "not allowed" (403). A file is at
// most MaxUpload bytes here (the form's limit); larger ones go through
// the API or `commerce import`.

// importSpec describes the upload form for its errors.
var importSpec = formSpec{ID: "import-form", Fields: fieldsOf("file:File", "format:Format", "currency:Currency", "dryRun:Dry run")}

// importRoutes serves the import pages when the import is assembled.
func (h *Handler) importRoutes() {
	if h.opts.Transfer == nil {
		return
	}
	h.features["imports"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/imports", a(h.importsPage))
	h.mux.HandleFunc("POST /admin/imports", a(h.importStart))
	h.mux.HandleFunc("GET /admin/imports/{id}", a(h.importJob))
}

func importPage() page {
	return page{Title: "Import products", Nav: "imports", Form: url.Values{"format": {transfer.FormatCommerce}}}
}

func (h *Handler) importsPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "imports", importPage())
}

// importStart keeps the uploaded file and starts its job, then shows the
// job's page.
func (h *Handler) importStart(w http.ResponseWriter, r *http.Request) {
	form := r.PostForm // with a multipart form's values
	in := transfer.ImportInput{Format: form.Get("format"), Currency: strings.ToUpper(strings.TrimSpace(form.Get("currency"))), DryRun: form.Get("dryRun") != ""}
	p := importPage()
	p.Form = url.Values{"format": {in.Format}, "currency": {in.Currency}}
	if in.DryRun {
		p.Form.Set("dryRun", "on")
	}
	fail := func(err error) { h.fail(w, r, "imports", p, importSpec, err) }
	if r.MultipartForm == nil || len(r.MultipartForm.File["file"]) == 0 {
		fail(commerce.Invalid("file: required"))
		return
	}
	file, err := r.MultipartForm.File["file"][0].Open()
	if err != nil {
		fail(commerce.Invalid("file: could not be read"))
		return
	}
	defer file.Close()
	up, err := h.opts.Transfer.Receive(file)
	if err != nil {
		fail(err)
		return
	}
	s := who(r)
	ctx := commerce.WithClaims(event.WithActor(r.Context(), s.staff.Actor()), s.staff.Claims())
	j, err := h.opts.Transfer.Start(ctx, in, up)
	if err != nil {
		up.Discard()
		fail(err)
		return
	}
	seeOther(w, r, "/admin/imports/"+url.PathEscape(j.ID))
}

// importJob is a job's page (and, for htmx's poll, its card alone).
func (h *Handler) importJob(w http.ResponseWriter, r *http.Request) {
	j, ok := h.record(w, r, "catalog/v1/job.info", "job", r.PathValue("id"), page{Title: "Import", Nav: "imports"})
	if !ok {
		return
	}
	title := "Import"
	if j["dryRun"] == true {
		title = "Import (dry run)"
	}
	p := page{Title: title, Nav: "imports", Data: map[string]any{"job": j, "running": j["status"] == transfer.JobRunning,
		"errors": importErrorRows(j["errors"]), "rows": toInt(j["rows"]), "processed": toInt(j["processed"])}}
	h.render(w, r, http.StatusOK, "import", p)
}

// importErrorRow is a line of a job's error table: one problem of a row
// (a row refused for several fields has a line for each), or of the file
// (line 0 when the problem is not on one line).
type importErrorRow struct {
	Line                       int64
	SKU, Column, Code, Message string
	// First: the first line of its row's problems.
	First bool
}

// importErrorRows are the job's errors as lines of its table.
func importErrorRows(v any) []importErrorRow {
	list, _ := v.([]any)
	var rows []importErrorRow
	for _, x := range list {
		e, _ := x.(map[string]any)
		base := importErrorRow{Line: toInt(e["line"]), SKU: str(e["sku"]), Code: str(e["error"]), First: true}
		data := e["data"]
		if base.Code == commerce.EValidation {
			if ps, ok := data.([]any); ok && len(ps) > 0 {
				for i, p := range ps {
					row := base
					row.First = i == 0
					path, msg := "", str(p)
					if m := pathRE.FindStringSubmatch(msg); m != nil {
						path, msg = m[1], m[2]
					}
					row.Column, row.Message = path, capitalize(readable(msg, nil))
					rows = append(rows, row)
				}
				continue
			}
		}
		switch d := data.(type) {
		case string:
			// The job's own error (it stopped, it was interrupted) says
			// what happened in its data.
			if base.Line == 0 || errorSentences[base.Code] == nil {
				base.Message = capitalize(d)
				break
			}
			base.Message = errorSentence(base.Code, d, nil)
		default:
			base.Message = errorSentence(base.Code, d, nil)
		}
		rows = append(rows, base)
	}
	return rows
}
