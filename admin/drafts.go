package admin

import (
	"net/http"
	"net/url"
	"strings"
)

// Draft orders (docs/api.md section 24): staff taking an order by phone
// find the customer, create the draft (draft.create), add products, set
// the shipping address and method with the cart operations, and complete
// it (draft.complete). The draft is a cart only admin tokens see.

func (h *Handler) draftRoutes() {
	if !h.opts.RPC.Has("order/v1/draft.create") {
		return
	}
	h.features["drafts"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/drafts/new", a(h.draftNew))
	h.mux.HandleFunc("POST /admin/drafts/new", a(h.draftCreate))
	h.mux.HandleFunc("GET /admin/drafts/{id}", a(h.draftPage))
	h.mux.HandleFunc("POST /admin/drafts/{id}/{action}", a(h.draftAction))
}

// draftNew is the first step: find the customer (by email, when the
// customers area is there) and create the draft.
func (h *Handler) draftNew(w http.ResponseWriter, r *http.Request) {
	h.renderDraftNew(w, r, r.URL.Query(), nil)
}

func (h *Handler) renderDraftNew(w http.ResponseWriter, r *http.Request, f url.Values, actionErr error) {
	p := page{Title: "New draft order", Nav: "drafts", Form: f, Data: map[string]any{}}
	if q := opt(f, "q"); q != nil && h.features["customers"] {
		res, err := h.call(r, "customer/v1/customer.list", map[string]any{"email": *q, "limit": 10})
		if err == nil {
			p.Data["customers"] = list(res)
		} else if actionErr == nil {
			actionErr = err
		}
	}
	p.failed(formSpec{ID: "draft-form", Fields: fieldsOf("customerId:Customer", "email:Email", "currency:Currency", "country:Country")}, actionErr)
	h.render(w, r, statusOf(actionErr), "draftnew", p)
}

func (h *Handler) draftCreate(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	args := map[string]any{}
	for _, k := range []string{"customerId", "email", "currency", "country"} {
		if v := opt(f, k); v != nil {
			args[k] = *v
		}
	}
	res, err := h.callOnce(r, "order/v1/draft.create", args)
	if err != nil {
		h.renderDraftNew(w, r, f, err)
		return
	}
	d, _ := res["draft"].(map[string]any)
	seeOther(w, r, "/admin/drafts/"+url.PathEscape(str(d["id"])))
}

func (h *Handler) draftPage(w http.ResponseWriter, r *http.Request) {
	h.renderDraft(w, r, r.PathValue("id"), url.Values{}, nil, "", nil)
}

// renderDraft draws a draft's page; actionErr is the failure of the form of
// that action ("add", "address", "method", "complete"), shown in that form
// (its id is the action's name and "-form").
func (h *Handler) renderDraft(w http.ResponseWriter, r *http.Request, id string, f url.Values, methods []any, action string, actionErr error) {
	res, err := h.call(r, "cart/v1/cart.info", map[string]any{"cartId": id})
	if err != nil {
		h.fail(w, r, "notfound", page{Title: "Draft order", Nav: "drafts"}, formSpec{}, err)
		return
	}
	c, _ := res["cart"].(map[string]any)
	if f.Get("warehouseId") == "" {
		f.Set("warehouseId", "default")
	}
	p := page{Title: "Draft order", Nav: "drafts", Form: f, Data: map[string]any{"cart": c, "methods": methods}}
	if d := r.URL.Query().Get("done"); d != "" {
		p.Notice = "Done: " + d + "."
	}
	p.failed(formSpec{ID: action + "-form", Fields: fieldsOf("quantity:Quantity", "warehouseId:Warehouse", "paymentId:Payment id")}, actionErr)
	h.render(w, r, statusOf(actionErr), "draft", p)
}

func (h *Handler) draftAction(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("id"), r.PathValue("action")
	f := r.PostForm
	var methods []any
	var err error
	switch action {
	case "add":
		product := strings.TrimSpace(f.Get("product"))
		if res, e := h.call(r, "catalog/v1/product.list", map[string]any{"sku": product, "limit": 1}); e == nil {
			if l := list(res); len(l) == 1 {
				if m, ok := l[0].(map[string]any); ok {
					product = str(m["id"])
				}
			}
		}
		_, err = h.call(r, "cart/v1/cart.addToCart", map[string]any{"cartId": id, "items": []map[string]any{{
			"productId": product, "quantity": number(f.Get("quantity")), "warehouseId": strings.TrimSpace(f.Get("warehouseId"))}}})
	case "address":
		addr := map[string]any{}
		for _, k := range []string{"firstName", "lastName", "address_1", "postCode", "city", "state", "country", "phone"} {
			if v := opt(f, k); v != nil {
				addr[k] = *v
			}
		}
		var res map[string]any
		if res, err = h.call(r, "cart/v1/cart.setShippingAddress", map[string]any{"cartId": id, "shippingAddress": addr}); err == nil {
			methods = asList(res["shippingMethods"])
			if len(methods) > 1 {
				h.renderDraft(w, r, id, url.Values{}, methods, "", nil)
				return
			}
		}
	case "method":
		_, err = h.call(r, "cart/v1/cart.setShippingMethod", map[string]any{"cartId": id, "methodId": f.Get("methodId")})
	case "complete":
		var res map[string]any
		res, err = h.callOnce(r, "order/v1/draft.complete", map[string]any{"id": id, "paymentId": strings.TrimSpace(f.Get("paymentId")),
			"paymentData": map[string]any{"note": f.Get("paymentNote")}})
		if err == nil {
			o, _ := res["order"].(map[string]any)
			seeOther(w, r, "/admin/orders/"+url.PathEscape(str(o["id"]))+"?done=draft")
			return
		}
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.renderDraft(w, r, id, f, methods, action, err)
		return
	}
	seeOther(w, r, "/admin/drafts/"+url.PathEscape(id)+"?done="+action)
}
