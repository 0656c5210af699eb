package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// The promotion form's rule builder: pickers (a category select, a
// product search) for the common rules (buy N of a product or category,
// get a discount on M of the same, of another product or category, or on
// the shipping), which write the rule's JSON into the text areas. The
// text areas stay the rule (experts type any rule there) and the server
// checks it as ever: the builder only writes JSON. Without JavaScript
// "Write the rule" and "Find" are submit buttons posting the form to
// /admin/promotions/rule, which renders the form again with the JSON
// written (or the products found) and saves nothing; with htmx they
// replace only the text areas (or the product list). The builder's
// fields are named rb_*, which promotion.create never sees.

// ruleSide is one side of the builder: the condition ("if") or the
// target ("then").
type ruleSide struct {
	Side     string // "if" or "then"
	Kind     string // "product", "category" (and for then: "same", "shipping")
	Category string
	Quantity string
	// Pick is the side's product picker (fields rb_<side>_q and
	// rb_<side>_product).
	Pick productPick
	// Categories are the category choices (categoryOptions).
	Categories []any
}

// builderDefaults are the builder's fields for a new promotion.
var builderDefaults = url.Values{"rb_if_kind": {"category"}, "rb_if_qty": {"1"}, "rb_then_kind": {"same"},
	"rb_then_qty": {"1"}, "rb_type": {"percent"}, "rb_rate": {"10"}}

// sideOf reads a side of the builder from the form.
func sideOf(f url.Values, side string) ruleSide {
	g := func(k string) string { return strings.TrimSpace(f.Get("rb_" + side + "_" + k)) }
	return ruleSide{Side: side, Kind: g("kind"), Category: g("category"), Quantity: g("qty"),
		Pick: pickOf(f, "rb_"+side, "/admin/promotions/rule")}
}

// target is the id a side's rule names: its product or its category.
func (s ruleSide) target() string {
	if s.Kind == "product" {
		return s.Pick.Product
	}
	return s.Category
}

// ruleLeaf and ruleDiscount are a rule's leaf and its discount, in the
// order people read them (id, quantity, then the rest).
type ruleLeaf struct {
	ID          *string       `json:"id,omitempty"`
	Quantity    any           `json:"quantity,omitempty"`
	LowestPrice bool          `json:"lowestPrice,omitempty"`
	Discount    *ruleDiscount `json:"discount,omitempty"`
}

type ruleDiscount struct {
	Rate         any  `json:"rate"`
	IsPercentage bool `json:"isPercentage,omitempty"`
	IsFixedPrice bool `json:"isFixedPrice,omitempty"`
}

// leaf is a side as a rule's leaf of that kind: {"product": {"id": ...,
// "quantity": N}}; a shipping leaf has neither.
func (s ruleSide) leaf(kind, id string) (map[string]*ruleLeaf, *ruleLeaf) {
	l := &ruleLeaf{}
	if kind != "shipping" {
		l.ID, l.Quantity = &id, number(s.Quantity)
		if l.Quantity == nil {
			l.Quantity = 1
		}
	}
	return map[string]*ruleLeaf{kind: l}, l
}

// buildRule writes the builder's rule as the promotion's if and then
// (indented JSON). Values are written as given (a quantity that is not a
// number stays text): the rule check and promotion.create judge them.
func buildRule(f url.Values) (ifJSON, thenJSON string) {
	cond, tgt := sideOf(f, "if"), sideOf(f, "then")
	ifRule, ifLeaf := cond.leaf(cond.Kind, cond.target())
	ifLeaf.LowestPrice = f.Get("rb_lowest") == "on"
	kind, id := tgt.Kind, tgt.target()
	if kind == "same" || kind == "" {
		kind, id = cond.Kind, cond.target()
	}
	thenRule, thenLeaf := tgt.leaf(kind, id)
	d := &ruleDiscount{Rate: number(f.Get("rb_rate"))}
	if d.Rate == nil {
		d.Rate = 0
	}
	switch f.Get("rb_type") {
	case "percent":
		d.IsPercentage = true
	case "fixed":
		d.IsFixedPrice = true
	}
	thenLeaf.Discount = d
	return indentJSON(ifRule), indentJSON(thenRule)
}

func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// readRule fills the builder from a rule it can write (a leaf on each
// side), so that a promotion's page opens with its rule in the pickers;
// other rules leave the builder at its defaults.
func readRule(f url.Values, ifJSON, thenJSON string) {
	for k, v := range builderDefaults {
		f[k] = v
	}
	var cond, tgt map[string]map[string]any
	if json.Unmarshal([]byte(ifJSON), &cond) != nil || json.Unmarshal([]byte(thenJSON), &tgt) != nil || len(cond) != 1 || len(tgt) != 1 {
		return
	}
	var ck, tk string
	for k := range cond {
		ck = k
	}
	for k := range tgt {
		tk = k
	}
	if (ck != "product" && ck != "category") || (tk != "product" && tk != "category" && tk != "shipping") {
		return
	}
	c, t := cond[ck], tgt[tk]
	d, _ := t["discount"].(map[string]any)
	f.Set("rb_if_kind", ck)
	f.Set("rb_if_"+ck, str(c["id"]))
	f.Set("rb_if_qty", jsonText(c["quantity"]))
	if c["lowestPrice"] == true {
		f.Set("rb_lowest", "on")
	}
	f.Set("rb_then_kind", tk)
	if tk == ck && str(t["id"]) == str(c["id"]) {
		f.Set("rb_then_kind", "same")
	} else if tk != "shipping" {
		f.Set("rb_then_"+tk, str(t["id"]))
	}
	f.Set("rb_then_qty", jsonText(t["quantity"]))
	f.Set("rb_rate", jsonText(d["rate"]))
	switch {
	case d["isPercentage"] == true:
		f.Set("rb_type", "percent")
	case d["isFixedPrice"] == true:
		f.Set("rb_type", "fixed")
	default:
		f.Set("rb_type", "amount")
	}
}

// jsonText is a decoded JSON scalar as text ("" for none).
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// promotionPage is the promotion form's page: the builder's categories,
// and its products (those chosen, named in one read, and those each
// side's search found).
func (h *Handler) promotionPage(r *http.Request, id string, f url.Values) page {
	p := page{Title: "New promotion", Nav: "promotions", Form: f, Data: map[string]any{"id": id}}
	if id != "" {
		p.Title = "Promotion " + f.Get("title")
	}
	if f.Get("rb_if_kind") == "" {
		readRule(f, f.Get("if"), f.Get("then"))
	}
	h.addCategories(r, &p)
	cats, _ := p.Data["categories"].([]any)
	sides := []ruleSide{sideOf(f, "if"), sideOf(f, "then")}
	chosen := h.productsByID(r, []string{sides[0].Pick.Product, sides[1].Pick.Product})
	for i := range sides {
		sides[i].Categories = cats
		h.find(r, &sides[i].Pick, chosen)
	}
	p.Data["ruleIf"], p.Data["ruleThen"] = sides[0], sides[1]
	return p
}

// promotionRule serves the builder's buttons: "Find" (find) searches
// products; "Write the rule" (any other) writes the rule into if and
// then. Nothing is saved: the form comes back for a look and "Save".
func (h *Handler) promotionRule(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	id := strings.TrimSpace(f.Get("promotionId"))
	p := h.promotionPage(r, id, f)
	if f.Get("find") == "" {
		ifJ, thenJ := buildRule(f)
		f.Set("if", ifJ)
		f.Set("then", thenJ)
		p.Notice = "The rule is written below: check it, then save the promotion."
	}
	h.render(w, r, http.StatusOK, "promotion", p)
}
