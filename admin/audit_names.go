package admin

import (
	"net/http"
	"net/url"
	"strings"
)

// targetName is how the audit log shows an entry's target: the name
// people know it by (a product's title and SKU, a customer's or staff
// member's email, an order's or return's number) and the page that shows
// it; empty when the record has no name or is gone (the id is shown).
type targetName struct{ Name, Link string }

// targetLinks are the pages of the targets that have one, by kind.
var targetLinks = map[string]string{"product": "/admin/products/", "customer": "/admin/customers/",
	"order": "/admin/orders/", "return": "/admin/returns/", "category": "/admin/categories/"}

// auditTargets names the targets of a page of audit entries, by
// "kind:id": one read per kind (product.list with the ids for products
// and stock records, one query for customers, orders and returns, the
// staff list), never one per entry. A failed read leaves its names out.
func (h *Handler) auditTargets(r *http.Request, entries []any) map[string]targetName {
	ids := map[string][]string{}
	seen := map[string]bool{}
	for _, x := range entries {
		e, _ := x.(map[string]any)
		t, _ := e["target"].(map[string]any)
		kind, id := str(t["kind"]), str(t["id"])
		if kind == "stock" {
			productID, _, _ := strings.Cut(id, "/") // productId/warehouseId
			kind, id = "product", productID
		}
		if id != "" && !seen[kind+":"+id] {
			seen[kind+":"+id] = true
			ids[kind] = append(ids[kind], id)
		}
	}
	out := map[string]targetName{}
	put := func(kind, id, name string) {
		l := ""
		if p, ok := targetLinks[kind]; ok {
			l = p + url.PathEscape(id)
		}
		out[kind+":"+id] = targetName{Name: name, Link: l}
	}
	if len(ids["product"]) > 0 {
		for id, p := range h.productsByID(r, ids["product"]) {
			put("product", id, p.Name())
		}
	}
	for _, kind := range []string{"customer", "order", "return"} {
		if len(ids[kind]) == 0 {
			continue
		}
		names, err := h.reads.Names(r.Context(), kind, ids[kind])
		if err != nil {
			h.opts.Logger.Warn("admin: audit target names", "kind", kind, "err", err)
			continue
		}
		for id, n := range names {
			put(kind, id, n)
		}
	}
	if len(ids["staff"]) > 0 {
		if list, err := h.opts.Staff.List(r.Context()); err == nil {
			for _, s := range list {
				if seen["staff:"+s.ID] {
					out["staff:"+s.ID] = targetName{Name: s.Email}
				}
			}
		}
	}
	return out
}

// nameTargets sets each entry's "targetName" (a targetName) for the
// template.
func (h *Handler) nameTargets(r *http.Request, entries []any) {
	names := h.auditTargets(r, entries)
	for _, x := range entries {
		if e, ok := x.(map[string]any); ok {
			t, _ := e["target"].(map[string]any)
			e["targetName"] = auditTarget(names, t)
		}
	}
}

// auditTarget is an entry's target's name.
func auditTarget(names map[string]targetName, target map[string]any) targetName {
	kind, id := str(target["kind"]), str(target["id"])
	if kind == "stock" {
		p, w, _ := strings.Cut(id, "/")
		n := names["product:"+p]
		if n.Name != "" {
			n.Name += " in " + w
		}
		return n
	}
	return names[kind+":"+id]
}
