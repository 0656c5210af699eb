package admin

import (
	"net/http"
	"net/url"
	"strings"
)

// customerRoutes serves the customers' pages when the customer area is
// assembled.
func (h *Handler) customerRoutes() {
	if !h.opts.RPC.Has("customer/v1/customer.list") {
		return
	}
	h.features["customers"] = true
	h.mux.HandleFunc("GET /admin/customers", h.authed(h.customers))
	h.mux.HandleFunc("GET /admin/customers/{id}", h.authed(h.customerPage))
}

func (h *Handler) customers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, skip := pageArgs(q)
	args := map[string]any{"limit": limit, "skip": skip}
	if v := opt(q, "email"); v != nil {
		args["email"] = *v
	}
	if v := opt(q, "customerType"); v != nil {
		args["customerType"] = *v
	}
	p := page{Title: "Customers", Nav: "customers", Form: q, Data: map[string]any{}}
	res, err := h.call(r, "customer/v1/customer.list", args)
	if err != nil {
		h.fail(w, r, "customers", p, formSpec{ID: "filters", Fields: map[string]field{"email": {"f-email", "Email"}, "customerType": {"f-type", "Customer type"}}}, err)
		return
	}
	rows := list(res)
	p.Data["customers"] = rows
	p.Data["pager"] = newPager(q, limit, skip, len(rows))
	h.render(w, r, http.StatusOK, "customers", p)
}

func (h *Handler) customerPage(w http.ResponseWriter, r *http.Request) {
	h.customerPageWith(w, r, formSpec{}, nil)
}

// customerPageWith draws a customer's page, with the error of the form
// spec describes (a change of the customer's groups).
func (h *Handler) customerPageWith(w http.ResponseWriter, r *http.Request, spec formSpec, actionErr error) {
	id := r.PathValue("id")
	res, err := h.call(r, "customer/v1/customer.info", map[string]any{"id": id})
	if err != nil {
		h.fail(w, r, "notfound", page{Title: "Customer", Nav: "customers"}, formSpec{}, err)
		return
	}
	c, _ := res["customer"].(map[string]any)
	title := strings.TrimSpace(str(c["firstName"]) + " " + str(c["lastName"]))
	if title == "" {
		title = str(c["email"])
	}
	p := page{Title: "Customer " + title, Nav: "customers", Form: url.Values{}, Data: map[string]any{"customer": c}}
	if h.features["orders"] {
		q := r.URL.Query()
		limit, skip := pageArgs(q)
		orders, err := h.call(r, "order/v1/order.list", map[string]any{"customerId": id, "limit": limit, "skip": skip})
		if err != nil {
			p.failed(formSpec{}, err)
		} else {
			rows := list(orders)
			p.Data["orders"] = rows
			p.Data["pager"] = newPager(q, limit, skip, len(rows))
		}
	}
	h.addCustomerGroups(r, &p)
	if actionErr != nil {
		p.failed(spec, actionErr)
	}
	h.render(w, r, statusOf(actionErr), "customer", p)
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
