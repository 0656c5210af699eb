package admin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// --- shipping methods

// shippingSpec describes the new method's form for its errors; the list's
// (its filter and its Remove buttons) is shippingListSpec.
var (
	shippingSpec     = formSpec{ID: "shipping-form", Fields: fieldsOf("title:Title", "taxCode:Tax code", "active:Active", "rates:Rate groups (JSON)")}
	shippingListSpec = formSpec{ID: "filters", Fields: map[string]field{"title": {"f-title", "Title"}, "country": {"f-country", "Country"}}}
)

func (h *Handler) shippingMethods(w http.ResponseWriter, r *http.Request) {
	h.renderShipping(w, r, url.Values{"active": {"on"},
		"rates": {`[{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}]}]`}}, shippingSpec, nil)
}

func (h *Handler) renderShipping(w http.ResponseWriter, r *http.Request, f url.Values, spec formSpec, err error) {
	p := page{Title: "Shipping methods", Nav: "shipping", Form: f, Data: map[string]any{"filter": r.URL.Query(), "rateRows": rateRows(f)}}
	rows, pg, lerr := h.listRows(r, "cart/v1/shipping.list", nil, "title", "country")
	if err == nil && lerr != nil {
		err, spec = lerr, shippingListSpec
	}
	p.Data["methods"], p.Data["pager"] = rows, pg
	p.failed(spec, err)
	if r.URL.Query().Get("removed") != "" {
		p.Notice = "Removed."
	}
	h.render(w, r, statusOf(err), "shipping", p)
}

func (h *Handler) shippingCreate(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	args := map[string]any{"title": strings.TrimSpace(f.Get("title")),
		"active": f.Get("active") == "on", "rates": rawJSON(f.Get("rates"))}
	if v := opt(f, "taxCode"); v != nil {
		args["taxCode"] = *v
	}
	if _, err := h.callOnce(r, "cart/v1/shipping.create", args); err != nil {
		h.renderShipping(w, r, f, shippingSpec, err)
		return
	}
	seeOther(w, r, "/admin/shipping?saved=1")
}

// shippingRates writes the rate builder's rows into the rates JSON and
// shows the form again (nothing is saved): the builder's "Write the rates"
// (with htmx, only the rates' part of the form is replaced).
func (h *Handler) shippingRates(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	f.Set("rates", buildRates(rateRows(f)))
	h.renderShipping(w, r, f, shippingSpec, nil)
}

func (h *Handler) shippingRemove(w http.ResponseWriter, r *http.Request) {
	question := "Remove this shipping method? Carts can no longer choose it."
	if t := strings.TrimSpace(r.PostForm.Get("title")); t != "" {
		question = "Remove the shipping method “" + t + "”? Carts can no longer choose it."
	}
	if !h.confirmFirst(w, r, confirmation{Title: "Remove a shipping method", Nav: "shipping", Question: question, Yes: "Remove",
		Back: "/admin/shipping"}) {
		return
	}
	if _, err := h.call(r, "cart/v1/shipping.remove", map[string]any{"id": r.PathValue("id")}); err != nil {
		h.renderShipping(w, r, url.Values{}, formSpec{ID: "shipping-list"}, err)
		return
	}
	seeOther(w, r, "/admin/shipping?removed=1")
}

// rateRow is a row of the shipping rate builder: one place (a country,
// or a state of it) and its price in one currency.
type rateRow struct {
	Country, State, Currency, Amount string
}

// rateRows are the builder's rows: those posted (sr_* fields), else the
// rates JSON's (one row per place and currency), with blank rows to add
// more.
func rateRows(f url.Values) []rateRow {
	var rows []rateRow
	if _, ok := f["sr_country"]; ok {
		at := func(k string, i int) string {
			if v := f[k]; i < len(v) {
				return strings.TrimSpace(v[i])
			}
			return ""
		}
		for i := range f["sr_country"] {
			r := rateRow{at("sr_country", i), at("sr_state", i), at("sr_currency", i), at("sr_amount", i)}
			if r.Country+r.State+r.Currency+r.Amount != "" {
				rows = append(rows, r)
			}
		}
	} else {
		var groups []struct {
			Locations []struct{ Country, State string }
			Rates     []struct {
				Currency string
				Amount   json.Number
			}
		}
		if json.Unmarshal([]byte(f.Get("rates")), &groups) == nil {
			for _, g := range groups {
				for _, l := range g.Locations {
					for _, rt := range g.Rates {
						rows = append(rows, rateRow{l.Country, l.State, rt.Currency, rt.Amount.String()})
					}
				}
			}
		}
	}
	for len(rows) < 2 || rows[len(rows)-1] != (rateRow{}) {
		rows = append(rows, rateRow{})
	}
	return rows
}

// buildRates writes rows as rate groups: one group per place (country
// and state), with a rate per currency, in the order given. Values are
// written as typed (an amount that is not a number stays text):
// shipping.create judges them.
func buildRates(rows []rateRow) string {
	type place struct{ country, state string }
	var order []place
	rates := map[place][]any{}
	for _, r := range rows {
		if r == (rateRow{}) {
			continue
		}
		p := place{strings.ToUpper(r.Country), r.State}
		if _, ok := rates[p]; !ok {
			order = append(order, p)
		}
		rates[p] = append(rates[p], map[string]any{"currency": strings.ToUpper(r.Currency), "amount": number(r.Amount)})
	}
	groups := []any{}
	for _, p := range order {
		loc := map[string]any{"country": p.country}
		if p.state != "" {
			loc["state"] = p.state
		}
		groups = append(groups, map[string]any{"locations": []any{loc}, "rates": rates[p]})
	}
	return indentJSON(groups)
}
