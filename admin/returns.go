package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/commercekit/commerce"
)

// Returns and exchanges (docs/api.md section 24): a return is requested on
// behalf of a customer from the order's page, then has its own page to
// receive (quantities and restock per line), refund (the amount computed
// shown before confirming) and reject. Every action is the API's
// operation; the computed amount comes from the orders area
// (Options.RefundQuote), which return.refund computes the same way.

// returnReasons are return.request's reasons, for the form.
var returnReasons = []string{"DAMAGED", "WRONG_ITEM", "NOT_AS_DESCRIBED", "NO_LONGER_NEEDED", "OTHER"}

func (h *Handler) returnRoutes() {
	if !h.opts.RPC.Has("order/v1/return.request") {
		return
	}
	h.features["returns"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/orders/{id}/return", a(h.returnNew))
	h.mux.HandleFunc("POST /admin/orders/{id}/return", a(h.returnCreate))
	h.mux.HandleFunc("GET /admin/returns/{id}", a(h.returnPage))
	h.mux.HandleFunc("POST /admin/returns/{id}/{action}", a(h.returnAction))
}

// orderReturns adds the order's returns to its page's data.
func (h *Handler) orderReturns(r *http.Request, orderID string, data map[string]any) {
	if !h.features["returns"] {
		return
	}
	res, err := h.call(r, "order/v1/return.list", map[string]any{"orderId": orderID, "limit": 100})
	if err != nil {
		data["returnsError"] = commerce.ErrorCode(err)
		return
	}
	data["returns"] = list(res)
}

func (h *Handler) returnNew(w http.ResponseWriter, r *http.Request) {
	h.renderReturnNew(w, r, r.PathValue("id"), url.Values{}, nil)
}

func (h *Handler) renderReturnNew(w http.ResponseWriter, r *http.Request, id string, f url.Values, actionErr error) {
	o, ok := h.record(w, r, "order/v1/order.info", "order", id, page{Title: "Order", Nav: "orders"})
	if !ok {
		return
	}
	p := page{Title: "Return for order " + str(o["number"]), Nav: "orders", Form: f,
		Data: map[string]any{"order": o, "reasons": returnReasons}}
	p.failed(formSpec{ID: "return-form"}, actionErr)
	h.render(w, r, statusOf(actionErr), "returnnew", p)
}

func (h *Handler) returnCreate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f := r.PostForm
	items := []map[string]any{}
	for _, it := range itemQuantities(f, "qty_") {
		itemID := it["itemId"].(string)
		it["reason"] = f.Get("reason_" + itemID)
		if v := opt(f, "note_"+itemID); v != nil {
			it["note"] = *v
		}
		items = append(items, it)
	}
	args := map[string]any{"orderId": id, "items": items}
	if p := opt(f, "exchangeProduct"); p != nil {
		wh := "default"
		if v := opt(f, "exchangeWarehouse"); v != nil {
			wh = *v
		}
		args["exchange"] = map[string]any{"items": []map[string]any{{"productId": *p, "quantity": number(f.Get("exchangeQuantity")), "warehouseId": wh}}}
	}
	res, err := h.callOnce(r, "order/v1/return.request", args)
	if err != nil {
		h.renderReturnNew(w, r, id, f, err)
		return
	}
	ret, _ := res["return"].(map[string]any)
	seeOther(w, r, "/admin/returns/"+url.PathEscape(str(ret["id"]))+"?done=request")
}

func (h *Handler) returnPage(w http.ResponseWriter, r *http.Request) {
	h.renderReturn(w, r, r.PathValue("id"), url.Values{}, "", nil)
}

// renderReturn draws a return's page; actionErr is the failure of the
// form of that action ("receive", "refund", "reject", "cancel"), shown in
// that form (its id is the action's name and "-form").
func (h *Handler) renderReturn(w http.ResponseWriter, r *http.Request, id string, f url.Values, action string, actionErr error) {
	ret, ok := h.record(w, r, "order/v1/return.info", "return", id, page{Title: "Return", Nav: "orders"})
	if !ok {
		return
	}
	data := map[string]any{"return": ret}
	if o, err := h.call(r, "order/v1/order.info", map[string]any{"id": ret["orderId"]}); err == nil {
		data["order"] = o["order"]
		items := map[string]any{}
		if om, ok := o["order"].(map[string]any); ok {
			for _, it := range asList(om["items"]) {
				if m, ok := it.(map[string]any); ok {
					items[str(m["id"])] = m
				}
			}
		}
		data["items"] = items
	}
	if str(ret["status"]) == "RECEIVED" && h.opts.RefundQuote != nil {
		shipping := f.Get("shipping") == "on" || r.URL.Query().Get("shipping") == "on"
		if plan, err := h.opts.RefundQuote(r.Context(), id, shipping); err == nil {
			var m map[string]any
			if b, err := json.Marshal(plan); err == nil && json.Unmarshal(b, &m) == nil {
				data["quote"] = m
				data["quoteShipping"] = shipping
			}
		} else {
			data["quoteError"] = commerce.ErrorCode(err)
		}
	}
	p := page{Title: "Return " + str(ret["number"]), Nav: "orders", Form: f, Data: data}
	if d := r.URL.Query().Get("done"); d != "" {
		p.Notice = "Done: " + d + "."
	}
	p.failed(formSpec{ID: action + "-form", Fields: fieldsOf("amount:Amount", "reason:Reason", "paymentId:Payment id")}, actionErr)
	h.render(w, r, statusOf(actionErr), "return", p)
}

func (h *Handler) returnAction(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("id"), r.PathValue("action")
	f := r.PostForm
	args := map[string]any{"id": id}
	switch action {
	case "receive":
		var keys []string
		for k := range f {
			if strings.HasPrefix(k, "recv_") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		items := []map[string]any{}
		for _, k := range keys {
			itemID := strings.TrimPrefix(k, "recv_")
			it := map[string]any{"itemId": itemID, "quantity": number(f.Get(k)), "restock": f.Get("restock_"+itemID) == "on"}
			if v := opt(f, "wh_"+itemID); v != nil {
				it["warehouseId"] = *v
			}
			items = append(items, it)
		}
		if len(items) > 0 {
			args["items"] = items
		}
	case "refund":
		args["shipping"] = f.Get("shipping") == "on"
		if v := opt(f, "amount"); v != nil {
			args["amount"] = number(*v)
		}
		if v := opt(f, "paymentId"); v != nil {
			args["paymentId"] = *v
			args["paymentData"] = map[string]any{"note": f.Get("paymentNote")}
		}
	case "reject":
		if v := opt(f, "reason"); v != nil {
			args["reason"] = *v
		}
	case "cancel":
	default:
		http.NotFound(w, r)
		return
	}
	if _, err := h.callOnce(r, "order/v1/return."+action, args); err != nil {
		h.renderReturn(w, r, id, f, action, err)
		return
	}
	seeOther(w, r, "/admin/returns/"+url.PathEscape(id)+"?done="+action)
}

// asList is a JSON array (nil for anything else).
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
