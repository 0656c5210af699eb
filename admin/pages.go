package admin

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// LowStockThreshold is the most available units a stock record may have
// to be listed as low on the dashboard.
const LowStockThreshold = 5

func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Dashboard", Nav: "dashboard", Data: map[string]any{}}
	ctx := r.Context()
	var errs []string
	code := ""
	failed := func(what string, err error) {
		h.opts.Logger.Error("admin: dashboard", "card", what, "err", err)
		errs = append(errs, what)
		code = commerce.ErrorCode(err)
	}
	// Each card is read only for a role that may read its resource
	// (staff.Resources): the page shows none of the rest, and reads none
	// of it either.
	role := who(r).staff.Role
	if role.Can("cart", false) {
		if n, err := h.reads.ActiveCarts(ctx); err == nil {
			p.Data["activeCarts"] = n
		} else {
			failed("active carts", err)
		}
	}
	if role.Can("stock", false) {
		if rows, err := h.reads.LowStock(ctx, LowStockThreshold, 10); err == nil {
			p.Data["lowStock"] = rows
			p.Data["lowStockNames"] = h.productNames(r, rows)
		} else {
			failed("low stock", err)
		}
	}
	if role.Can("event", false) {
		if evs, err := h.reads.LatestEvents(ctx, 10); err == nil {
			p.Data["events"] = evs
		} else {
			failed("latest events", err)
		}
	}
	p.Data["threshold"] = LowStockThreshold
	for _, f := range h.dashboardHooks {
		f(h, r, p.Data)
	}
	if errs != nil {
		p.Error = &formError{Code: code, Sentence: "Some cards could not be read just now (" + strings.Join(errs, ", ") +
			"). Reload the page to try again."}
	}
	h.render(w, r, http.StatusOK, "dashboard", p)
}

// --- taxes

func (h *Handler) taxes(w http.ResponseWriter, r *http.Request) {
	h.renderTaxes(w, r, url.Values{"isPercentage": {"on"}, "class": {"default"}}, nil)
}

func (h *Handler) renderTaxes(w http.ResponseWriter, r *http.Request, f url.Values, err error) {
	p := page{Title: "Taxes", Nav: "taxes", Form: f, Data: map[string]any{"filter": r.URL.Query()}}
	rows, pg, lerr := h.listRows(r, "tax/v1/tax.list", nil, "code")
	if err == nil {
		err = lerr
	}
	p.Data["taxes"], p.Data["pager"] = rows, pg
	if lerr != nil && err == lerr {
		p.failed(formSpec{ID: "filters", Fields: map[string]field{"code": {"f-code", "Code"}}}, err)
	} else {
		p.failed(taxSpec, err)
	}
	h.render(w, r, statusOf(err), "taxes", p)
}

// taxSpec describes the tax forms (new, edit) for their errors.
var taxSpec = formSpec{ID: "tax-form", Fields: fieldsOf("code:Code", "class:Class", "title:Title", "description:Description",
	"rate:Rate", "isPercentage:Percentage")}

func taxArgs(f url.Values) map[string]any {
	return map[string]any{"code": strings.TrimSpace(f.Get("code")), "class": strings.TrimSpace(f.Get("class")), "title": strings.TrimSpace(f.Get("title")),
		"description": f.Get("description"), "rate": number(f.Get("rate")), "isPercentage": f.Get("isPercentage") == "on"}
}

func (h *Handler) taxCreate(w http.ResponseWriter, r *http.Request) {
	if _, err := h.callOnce(r, "tax/v1/tax.create", taxArgs(r.PostForm)); err != nil {
		h.renderTaxes(w, r, r.PostForm, err)
		return
	}
	seeOther(w, r, "/admin/taxes?saved=1")
}

func (h *Handler) taxEdit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	t, ok := h.record(w, r, "tax/v1/tax.info", "tax", id, page{Title: "Tax", Nav: "taxes"})
	if !ok {
		return
	}
	f := formValues(url.Values{}, t, "code", "class", "title", "description", "rate")
	if t["isPercentage"] == true {
		f.Set("isPercentage", "on")
	}
	p := page{Title: "Tax " + f.Get("code"), Nav: "taxes", Form: f, Data: map[string]any{"id": id}}
	savedNotice(r, &p)
	h.render(w, r, http.StatusOK, "tax", p)
}

func (h *Handler) taxUpdate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	args := taxArgs(r.PostForm)
	args["id"] = id
	if _, err := h.call(r, "tax/v1/tax.update", args); err != nil {
		h.fail(w, r, "tax", page{Title: "Tax", Nav: "taxes", Form: r.PostForm, Data: map[string]any{"id": id}}, taxSpec, err)
		return
	}
	seeOther(w, r, "/admin/taxes/"+url.PathEscape(id)+"?saved=1")
}

// --- events

// Channels lists the event channels for the events page's filter and the
// webhooks' channel boxes: event.Channels, the channels the areas emit on,
// so that no channel is offered that nothing emits. Coupons are
// promotions: their changes are on PROMOTIONS.
var Channels = event.Channels

func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Events", Nav: "events", Form: r.URL.Query(), Data: map[string]any{"channels": Channels}}
	rows, pg, err := h.listRows(r, "event/v1/event.list", nil, "channel", "type", "after")
	if err != nil {
		h.fail(w, r, "events", p, formSpec{ID: "filters", Fields: map[string]field{"channel": {"f-channel", "Channel"}, "type": {"f-type", "Type"}}}, err)
		return
	}
	p.Data["events"], p.Data["pager"] = rows, pg
	h.render(w, r, http.StatusOK, "events", p)
}
