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
	p := page{Title: "Customers", Nav: "customers", Form: r.URL.Query(), Data: map[string]any{}}
	rows, pg, err := h.listRows(r, "customer/v1/customer.list", nil, "email", "customerType")
	if err != nil {
		h.fail(w, r, "customers", p, formSpec{ID: "filters", Fields: map[string]field{"email": {"f-email", "Email"}, "customerType": {"f-type", "Customer type"}}}, err)
		return
	}
	p.Data["customers"], p.Data["pager"] = rows, pg
	h.render(w, r, http.StatusOK, "customers", p)
}

func (h *Handler) customerPage(w http.ResponseWriter, r *http.Request) {
	h.customerPageWith(w, r, formSpec{}, nil)
}

// customerPageWith draws a customer's page, with the error of the form
// spec describes (a change of the customer's groups).
func (h *Handler) customerPageWith(w http.ResponseWriter, r *http.Request, spec formSpec, actionErr error) {
	id := r.PathValue("id")
	c, ok := h.record(w, r, "customer/v1/customer.info", "customer", id, page{Title: "Customer", Nav: "customers"})
	if !ok {
		return
	}
	title := strings.TrimSpace(str(c["firstName"]) + " " + str(c["lastName"]))
	if title == "" {
		title = str(c["email"])
	}
	p := page{Title: "Customer " + title, Nav: "customers", Form: url.Values{}, Data: map[string]any{"customer": c}}
	if h.features["orders"] {
		rows, pg, err := h.listRows(r, "order/v1/order.list", map[string]any{"customerId": id})
		if err != nil {
			p.failed(formSpec{}, err)
		} else {
			p.Data["orders"], p.Data["pager"] = rows, pg
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
