package admin

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion/engine"
)

// --- promotions

func (h *Handler) promotions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	args := map[string]any{}
	if v := q.Get("active"); v == "true" || v == "false" {
		args["active"] = v == "true"
	}
	p := page{Title: "Promotions", Nav: "promotions", Form: q, Data: map[string]any{}}
	rows, pg, err := h.listRows(r, "promotion/v1/promotion.list", args, "title")
	if err != nil {
		h.fail(w, r, "promotions", p, formSpec{ID: "filters", Fields: map[string]field{"title": {"f-title", "Title"}, "active": {"f-active", "Active"}}}, err)
		return
	}
	p.Data["promotions"], p.Data["pager"] = rows, pg
	h.render(w, r, http.StatusOK, "promotions", p)
}

// promotionSpec describes the promotion form for its errors: a problem of
// a rule ("if.product.quantity") is shown at its text area.
var promotionSpec = formSpec{ID: "promotion-form", Fields: fieldsOf("title:Title", "priority:Priority", "class:Class",
	"active:Active", "code:Code", "startDate:Starts", "endDate:Ends before", "usageLimit:Usage limit",
	"usageLimitPerCustomer:Usage limit per customer", "if:If", "then:Then")}

func (h *Handler) promotionNew(w http.ResponseWriter, r *http.Request) {
	f := url.Values{"active": {"on"}, "priority": {"0"}, "class": {"default"},
		"if": {`{"product": {"id": "", "quantity": 1}}`}, "then": {`{"product": {"id": "", "quantity": 1, "discount": {"rate": 10, "isPercentage": true}}}`}}
	h.render(w, r, http.StatusOK, "promotion", h.promotionPage(r, "", f))
}

// keptCouponFields are the coupon fields promotion.update cannot clear (a
// null is "unchanged", an empty string is no date or number): once set,
// they can be changed, not removed.
var keptCouponFields = []string{"startDate", "endDate", "usageLimit", "usageLimitPerCustomer"}

// promotionArgs are the fields of promotion.create and promotion.update
// from a form. On update (update true) an empty code is sent as "", which
// removes the code.
func (h *Handler) promotionArgs(f url.Values, update bool) map[string]any {
	a := map[string]any{"title": strings.TrimSpace(f.Get("title")), "active": f.Get("active") == "on",
		"priority": number(f.Get("priority")), "if": rawJSON(f.Get("if")), "then": rawJSON(f.Get("then"))}
	if h.features["coupons"] {
		if v := opt(f, "code"); v != nil {
			a["code"] = *v
		} else if update {
			a["code"] = ""
		}
		for _, k := range []string{"startDate", "endDate"} {
			if v := opt(f, k); v != nil {
				a[k] = localTime(*v)
			}
		}
		for _, k := range []string{"usageLimit", "usageLimitPerCustomer"} {
			if v := opt(f, k); v != nil {
				a[k] = number(*v)
			}
		}
	}
	return a
}

// emptiedKeptFields refuses a promotion form that empties a coupon field
// the promotion has (the form lists them in "stored") and the API cannot
// clear: sent as absent it would be kept without a word.
func emptiedKeptFields(f url.Values) error {
	var p commerce.Problems
	for _, k := range keptCouponFields {
		if slices.Contains(f["stored"], k) && strings.TrimSpace(f.Get(k)) == "" {
			p.Add(k, "cannot be removed once set (promotion.update keeps it): change it instead")
		}
	}
	return p.Err()
}

// localTime turns a datetime-local input (2006-01-02T15:04, read as UTC)
// into RFC 3339; anything else is passed on for the API to judge.
func localTime(v string) string {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return v
}

func (h *Handler) promotionCreate(w http.ResponseWriter, r *http.Request) {
	args := h.promotionArgs(r.PostForm, false)
	args["class"] = strings.TrimSpace(r.PostForm.Get("class"))
	res, err := h.callOnce(r, "promotion/v1/promotion.create", args)
	if err != nil {
		h.fail(w, r, "promotion", h.promotionPage(r, "", r.PostForm), promotionSpec, err)
		return
	}
	id, _ := res["promotion"].(map[string]any)["id"].(string)
	seeOther(w, r, "/admin/promotions/"+url.PathEscape(id)+"?saved=1")
}

func (h *Handler) promotionEdit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	pr, ok := h.record(w, r, "promotion/v1/promotion.info", "promotion", id, page{Title: "Promotion", Nav: "promotions"})
	if !ok {
		return
	}
	f := url.Values{"title": {fmt.Sprint(pr["title"])}, "priority": {fmt.Sprint(pr["priority"])}}
	if pr["active"] == true {
		f.Set("active", "on")
	}
	for _, k := range []string{"if", "then"} {
		b, _ := json.MarshalIndent(pr[k], "", "  ")
		f.Set(k, string(b))
	}
	formValues(f, pr, "code", "usageLimit", "usageLimitPerCustomer")
	for _, k := range []string{"startDate", "endDate"} {
		if t, err := time.Parse(time.RFC3339Nano, str(pr[k])); err == nil {
			f.Set(k, t.UTC().Format("2006-01-02T15:04"))
		}
	}
	for _, k := range keptCouponFields {
		if f.Get(k) != "" {
			f.Add("stored", k)
		}
	}
	p := h.promotionPage(r, id, f)
	p.Data["usageCount"] = pr["usageCount"]
	savedNotice(r, &p)
	h.render(w, r, http.StatusOK, "promotion", p)
}

func (h *Handler) promotionUpdate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := emptiedKeptFields(r.PostForm); err != nil && h.features["coupons"] {
		h.fail(w, r, "promotion", h.promotionPage(r, id, r.PostForm), promotionSpec, err)
		return
	}
	args := h.promotionArgs(r.PostForm, true)
	args["id"] = id
	if _, err := h.call(r, "promotion/v1/promotion.update", args); err != nil {
		h.fail(w, r, "promotion", h.promotionPage(r, id, r.PostForm), promotionSpec, err)
		return
	}
	seeOther(w, r, "/admin/promotions/"+url.PathEscape(id)+"?saved=1")
}

// promotionCheck checks a promotion's rule as it is typed (htmx): the
// promotion engine's own parser, the one promotion.create runs.
func (h *Handler) promotionCheck(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var p commerce.Problems
	ifJ, thenJ := strings.TrimSpace(r.PostFormValue("if")), strings.TrimSpace(r.PostFormValue("then"))
	if !json.Valid([]byte(ifJ)) {
		p.Add("if", "must be JSON")
	}
	if !json.Valid([]byte(thenJ)) {
		p.Add("then", "must be JSON")
	}
	if p.Empty() {
		if _, err := engine.Parse(json.RawMessage(ifJ), json.RawMessage(thenJ)); err != nil {
			p.AddErr(err)
		}
	}
	if p.Empty() {
		_, _ = w.Write([]byte(`<p class="ok" role="status">The rule is valid.</p>`))
		return
	}
	var b strings.Builder
	b.WriteString(`<div class="error" role="status" data-code="validation_error"><p>The rule is not valid yet:</p><ul>`)
	for _, s := range p {
		pr := promotionSpec.problem(s)
		b.WriteString("<li>" + template.HTMLEscapeString(pr.Label+": "+pr.Text) + "</li>")
	}
	b.WriteString("</ul></div>")
	_, _ = w.Write([]byte(b.String()))
}

// promotionTry evaluates the promotions against a cart (try-it): the
// cart's entries (cart.info) given to promotion.cartPromotions, whose
// answer is shown.
func (h *Handler) promotionTry(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	cartID := strings.TrimSpace(r.PostFormValue("cartId"))
	p := page{Title: "Try it", Nav: "promotions", Form: r.PostForm, Data: map[string]any{"id": id}}
	c, err := h.call(r, "cart/v1/cart.info", map[string]any{"cartId": cartID})
	var res map[string]any
	if err == nil {
		cart, _ := c["cart"].(map[string]any)
		items := []any{}
		entries, _ := cart["items"].([]any)
		for _, x := range entries {
			e, _ := x.(map[string]any)
			items = append(items, map[string]any{"id": e["id"], "productId": e["productId"], "quantity": e["quantity"], "price": e["price"]})
		}
		args := map[string]any{"cartId": cartID, "currency": cart["currency"], "items": items}
		if cs, ok := cart["coupons"].([]any); ok && h.features["coupons"] {
			args["coupons"] = cs
		}
		res, err = h.call(r, "promotion/v2/promotion.cartPromotions", args)
	}
	p.failed(formSpec{ID: "try-form", Fields: fieldsOf("cartId:Cart id")}, err)
	if res != nil {
		p.Data["result"] = res
		p.Data["fires"] = strings.Contains(string(must(json.Marshal(res))), `"promotionId":"`+id+`"`)
	}
	status := statusOf(err)
	if r.Header.Get("HX-Request") == "true" {
		status = http.StatusOK // htmx swaps only successful answers; the error is in the fragment
	}
	h.render(w, r, status, "promotiontry", p)
}

func must(b []byte, _ error) []byte { return b }
