package admin

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
)

// Names where ids would be: a page that shows records of another area by
// id (low stock, a rule's products) reads them in one call per kind
// (product.list with the ids), never one call per row.

// productRef is a product as a page names it.
type productRef struct {
	ID, SKU, Title string
}

// Name is the product as people know it: its title and SKU.
func (p productRef) Name() string {
	switch {
	case p.Title == "":
		return p.SKU
	case p.SKU == "":
		return p.Title
	}
	return p.Title + " (" + p.SKU + ")"
}

// productsByID reads the products of those ids (at most commerce.MaxLimit
// distinct ones, one product.list call), by id. Ids that are not
// products are left out; a failed read is an empty map (the page shows
// the ids).
func (h *Handler) productsByID(r *http.Request, ids []string) map[string]productRef {
	out := map[string]productRef{}
	var want []string
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] && len(want) < commerce.MaxLimit {
			seen[id] = true
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return out
	}
	// Drafts too: product.list leaves them out unless asked.
	res, err := h.call(r, "catalog/v1/product.list", map[string]any{"id": want, "status": []string{catalog.StatusOnline, catalog.StatusDraft},
		"fields": "id,sku,title", "limit": len(want)})
	if err != nil {
		h.opts.Logger.Warn("admin: product names", "err", err)
		return out
	}
	for _, p := range refsOf(list(res)) {
		out[p.ID] = p
	}
	return out
}

func refsOf(rows []any) []productRef {
	out := make([]productRef, 0, len(rows))
	for _, x := range rows {
		m, _ := x.(map[string]any)
		out = append(out, productRef{ID: str(m["id"]), SKU: str(m["sku"]), Title: str(m["title"])})
	}
	return out
}

// productNames names the products of the dashboard's low-stock rows.
func (h *Handler) productNames(r *http.Request, rows []sqldb.StockRow) map[string]productRef {
	ids := make([]string, len(rows))
	for i, s := range rows {
		ids[i] = s.ProductID
	}
	return h.productsByID(r, ids)
}

// pickerResults is the most products a product search offers.
const pickerResults = 20

// findProducts searches products for a picker: the product of that exact
// SKU first, then those whose title holds the text (product.list's title
// filter, with the text quoted: no pattern syntax to know).
func (h *Handler) findProducts(r *http.Request, q string) ([]productRef, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, nil
	}
	var out []productRef
	seen := map[string]bool{}
	add := func(args map[string]any) error {
		args["fields"], args["limit"] = "id,sku,title", pickerResults
		res, err := h.call(r, "catalog/v1/product.list", args)
		if err != nil {
			return err
		}
		for _, p := range refsOf(list(res)) {
			if !seen[p.ID] && len(out) < pickerResults {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
		return nil
	}
	if !strings.Contains(q, ",") {
		if err := add(map[string]any{"sku": q}); err != nil {
			return nil, err
		}
	}
	if err := add(map[string]any{"title": regexp.QuoteMeta(q)}); err != nil {
		return nil, err
	}
	return out, nil
}

// productPick is a product picker, a piece any form may hold (templates
// "productpicker" and "productchoices" in layout.html): a search field
// <Prefix>_q, searched as it is typed (htmx: GET
// /admin/pickers/products?for=<Prefix>, productPicker), and the select
// <Prefix>_product of the products found and the one chosen. Without
// JavaScript its "Find" button posts the form to FindAction, whose
// handler renders the form again with the picker filled (Handler.find).
type productPick struct {
	Prefix, FindAction string
	Query, Product     string
	Found              []productRef
	// Problem says why the search failed.
	Problem string
}

// pickOf reads a picker's fields from a form.
func pickOf(f url.Values, prefix, findAction string) productPick {
	return productPick{Prefix: prefix, FindAction: findAction, Query: strings.TrimSpace(f.Get(prefix + "_q")),
		Product: strings.TrimSpace(f.Get(prefix + "_product"))}
}

// find fills a picker: the chosen product (from chosen, read with the
// other pickers' in one call), then those its search finds.
func (h *Handler) find(r *http.Request, p *productPick, chosen map[string]productRef) {
	if c, ok := chosen[p.Product]; ok {
		p.Found = append(p.Found, c)
	}
	found, err := h.findProducts(r, p.Query)
	if err != nil {
		p.Problem = explain(err, formSpec{}).Sentence
	}
	for _, x := range found {
		if x.ID != p.Product {
			p.Found = append(p.Found, x)
		}
	}
}

// pickerPrefix is what a picker's prefix may be: it names fields and ids.
var pickerPrefix = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// productPicker answers a picker's search as it is typed (htmx): its
// choices (template "productchoices"). ?for= is the picker's prefix;
// its search text is the field <prefix>_q, its choice <prefix>_product.
func (h *Handler) productPicker(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	prefix := q.Get("for")
	if !pickerPrefix.MatchString(prefix) {
		http.NotFound(w, r)
		return
	}
	p := pickOf(q, prefix, "")
	h.find(r, &p, h.productsByID(r, []string{p.Product}))
	var out strings.Builder
	if err := h.partials.ExecuteTemplate(&out, "productchoices", p); err != nil {
		h.opts.Logger.Error("admin: render", "page", "productchoices", "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(out.String()))
}
