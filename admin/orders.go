package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
)

// Order statuses, for the filters.
var (
	orderStatuses       = []string{"PLACED", "COMPLETED", "CANCELLED"}
	paymentStatuses     = []string{"AUTHORIZED", "PAID", "PARTIALLY_REFUNDED", "REFUNDED", "VOIDED"}
	fulfillmentStatuses = []string{"NOT_SHIPPED", "PARTIALLY_SHIPPED", "SHIPPED", "DELIVERED"}
)

func (h *Handler) orderRoutes() {
	if !h.opts.RPC.Has("order/v1/order.list") {
		return
	}
	h.features["orders"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/orders", a(h.orders))
	h.mux.HandleFunc("GET /admin/orders/{id}", a(h.orderPage))
	h.mux.HandleFunc("POST /admin/orders/{id}/{action}", a(h.orderAction))
	h.dashboardHooks = append(h.dashboardHooks, todaysOrders)
}

func (h *Handler) orders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	args := map[string]any{}
	if v := opt(q, "createdFrom"); v != nil {
		args["createdFrom"] = dateArg(*v, false)
	}
	if v := opt(q, "createdTo"); v != nil {
		args["createdTo"] = dateArg(*v, true)
	}
	p := page{Title: "Orders", Nav: "orders", Form: q, Data: map[string]any{
		"statuses": orderStatuses, "paymentStatuses": paymentStatuses, "fulfillmentStatuses": fulfillmentStatuses}}
	rows, pg, err := h.listRows(r, "order/v1/order.list", args, "status", "paymentStatus", "fulfillmentStatus", "number", "customerId")
	if err != nil {
		h.fail(w, r, "orders", p, formSpec{ID: "filters", Fields: map[string]field{"number": {"f-number", "Number"},
			"status": {"f-status", "Status"}, "paymentStatus": {"f-payment", "Payment"}, "fulfillmentStatus": {"f-fulfillment", "Fulfilment"},
			"customerId": {"f-customer", "Customer id"}, "createdFrom": {"f-from", "Created from"}, "createdTo": {"f-to", "Created to"}}}, err)
		return
	}
	p.Data["orders"], p.Data["pager"] = rows, pg
	h.render(w, r, http.StatusOK, "orders", p)
}

// dateArg turns a date input (2006-01-02) into RFC 3339: the start of the
// day, or of the next day for an end; anything else is passed on for the
// API to judge.
func dateArg(v string, end bool) string {
	d, err := time.Parse("2006-01-02", v)
	if err != nil {
		return v
	}
	if end {
		d = d.AddDate(0, 0, 1)
	}
	return d.UTC().Format(time.RFC3339)
}

func (h *Handler) orderPage(w http.ResponseWriter, r *http.Request) {
	h.renderOrder(w, r, r.PathValue("id"), url.Values{}, "", nil)
}

func (h *Handler) renderOrder(w http.ResponseWriter, r *http.Request, id string, f url.Values, action string, actionErr error) {
	o, ok := h.record(w, r, "order/v1/order.info", "order", id, page{Title: "Order", Nav: "orders"})
	if !ok {
		return
	}
	names := itemNames(o)
	p := page{Title: "Order " + fmt.Sprint(o["number"]), Nav: "orders", Form: f, Data: map[string]any{"order": o, "action": action, "itemNames": names}}
	if c := h.orderCustomer(r, o); c != nil {
		p.Data["customer"] = c
	}
	h.orderReturns(r, id, p.Data)
	if r.URL.Query().Get("done") != "" {
		p.Notice = "Done: " + r.URL.Query().Get("done") + "."
	}
	p.failed(orderSpec(action, f, names), actionErr)
	h.render(w, r, statusOf(actionErr), "order", p)
}

// orderCustomer is the order's customer (customer.info) when it has one
// and the customer area is served: its name and email stand where its id
// would. A customer that cannot be read is left out (the order's email
// still shows).
func (h *Handler) orderCustomer(r *http.Request, o map[string]any) map[string]any {
	cid := str(o["customerId"])
	if cid == "" || cid == "ANON" || !h.features["customers"] {
		return nil
	}
	res, err := h.call(r, "customer/v1/customer.info", map[string]any{"id": cid})
	if err != nil {
		return nil
	}
	c, _ := res["customer"].(map[string]any)
	return c
}

// itemNames names an order's items by their titles, for the fulfilment
// lines and the errors that name an item: a cart entry's title already
// starts with its SKU ("FR-1 - Combi fridge (Cold)", cart.Title); a title
// that does not gets the SKU in front.
func itemNames(o map[string]any) map[string]string {
	names := map[string]string{}
	items, _ := o["items"].([]any)
	for _, x := range items {
		it, _ := x.(map[string]any)
		sku, title := str(it["sku"]), str(it["title"])
		name := title
		switch {
		case title == "":
			name = sku
		case sku != "" && !strings.HasPrefix(title, sku):
			name = sku + " · " + title
		}
		names[str(it["id"])] = name
	}
	return names
}

// orderSpec describes the order page's form of an action for its errors:
// the items' quantities of the fulfil and refund forms are sent as
// items[i] in the order itemQuantities gives, which is how the API's
// problems name them.
func orderSpec(action string, f url.Values, names map[string]string) formSpec {
	spec := formSpec{ID: action + "-form", Names: names}
	switch action {
	case "fulfill":
		spec.Fields = fieldsOf("carrier:Carrier", "trackingNumber:Tracking number")
		itemFields(spec.Fields, f, "ship_", "Quantity to ship of ", names)
	case "refund":
		spec.Fields = fieldsOf("amount:Amount", "restock:Put back in stock")
		spec.Fields["reason"] = field{"refundReason", "Reason"}
		itemFields(spec.Fields, f, "refund_", "Quantity returned of ", names)
	case "cancel":
		spec.Fields = fieldsOf("reason:Reason")
	}
	return spec
}

// itemFields maps items[i] of an action's arguments to the field of that
// item.
func itemFields(m map[string]field, f url.Values, prefix, label string, names map[string]string) {
	for i, q := range itemQuantities(f, prefix) {
		itemID := str(q["itemId"])
		m[commerce.Index("items", i)] = field{prefix + itemID, label + names[itemID]}
	}
}

// itemQuantities reads the per-item quantities of a form (prefix +
// item id), leaving out empty ones.
func itemQuantities(f url.Values, prefix string) []map[string]any {
	var keys []string
	for k := range f {
		if strings.HasPrefix(k, prefix) && strings.TrimSpace(f.Get(k)) != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := []map[string]any{}
	for _, k := range keys {
		out = append(out, map[string]any{"itemId": strings.TrimPrefix(k, prefix), "quantity": number(f.Get(k))})
	}
	return out
}

func (h *Handler) orderAction(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("id"), r.PathValue("action")
	f := r.PostForm
	args := map[string]any{"id": id}
	switch action {
	case "capture":
	case "fulfill":
		if items := itemQuantities(f, "ship_"); len(items) > 0 {
			args["items"] = items
		}
		for _, k := range []string{"carrier", "trackingNumber"} {
			if v := opt(f, k); v != nil {
				args[k] = *v
			}
		}
	case "deliver":
		args["fulfillmentId"] = f.Get("fulfillmentId")
	case "cancel":
		if !h.confirmFirst(w, r, confirmation{Title: "Cancel the order", Nav: "orders",
			Question: "Cancel this order? Its payment is voided and its items go back in stock.", Yes: "Cancel the order",
			Back: "/admin/orders/" + url.PathEscape(id)}) {
			return
		}
		if v := opt(f, "reason"); v != nil {
			args["reason"] = *v
		}
	case "refund":
		args["amount"] = number(f.Get("amount"))
		if items := itemQuantities(f, "refund_"); len(items) > 0 {
			args["items"] = items
		}
		args["restock"] = f.Get("restock") == "on"
		if v := opt(f, "refundReason"); v != nil {
			args["reason"] = *v
		}
	default:
		http.NotFound(w, r)
		return
	}
	if _, err := h.callOnce(r, "order/v1/order."+action, args); err != nil {
		h.renderOrder(w, r, id, f, action, err)
		return
	}
	seeOther(w, r, "/admin/orders/"+url.PathEscape(id)+"?done="+action)
}

// revenue is one currency's line of today's orders on the dashboard.
type revenue struct {
	Currency string
	Count    int64
	Revenue  string
}

// todaysOrders adds today's (UTC) orders and revenue (order totals,
// cancelled orders left out) per currency to the dashboard: one aggregate
// read (sqldb.AdminReads.OrdersSince). When it fails, the card says so.
func todaysOrders(h *Handler, r *http.Request, data map[string]any) {
	if !who(r).staff.Role.Can("order", false) {
		return // orders' totals are not the role's to see
	}
	now := h.opts.Now().UTC()
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	data["ordersOn"] = true
	sums, err := h.reads.OrdersSince(r.Context(), from)
	if err != nil {
		h.opts.Logger.Error("admin: today's orders", "err", err)
		data["ordersError"] = commerce.ErrorCode(err)
		return
	}
	out := make([]revenue, 0, len(sums))
	for _, s := range sums {
		out = append(out, revenue{Currency: s.Currency, Count: s.Count, Revenue: grouped(fixed(s.Revenue, s.Precision)) + " " + s.Currency})
	}
	data["orders"] = out
}

// formatMoney shows a money object {amount, currency, precision}.
func formatMoney(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Sprint(v)
	}
	n, err := strconv.ParseInt(fmt.Sprint(m["amount"]), 10, 64)
	if err != nil {
		return fmt.Sprint(m["amount"])
	}
	p, _ := strconv.Atoi(fmt.Sprint(m["precision"]))
	return grouped(fixed(n, p)) + " " + fmt.Sprint(m["currency"])
}

// grouped puts a comma between the thousands of a decimal (2747.30 ->
// 2,747.30), for reading; forms take amounts without them.
func grouped(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// fixed shows minor units with all the currency's decimals (10.50).
func fixed(amount int64, precision int) string {
	neg := amount < 0
	if neg {
		amount = -amount
	}
	s := strconv.FormatInt(amount, 10)
	if precision > 0 {
		for len(s) <= precision {
			s = "0" + s
		}
		s = s[:len(s)-precision] + "." + s[len(s)-precision:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
