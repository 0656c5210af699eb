package admin

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Customer groups (docs/api.md section 26): the groups' page (list,
// create, rename, remove) and a customer's groups on the customer's page.
// Groups are customer data: the permission table's "group" resource gates
// the groups' page, "customer" the customer's (customer.update sets a
// customer's groups).

// groupRoutes serves the groups' pages when the groups' operations are
// assembled.
func (h *Handler) groupRoutes() {
	if !h.opts.RPC.Has("customer/v1/group.list") {
		return
	}
	h.features["groups"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/groups", a(h.groups))
	h.mux.HandleFunc("POST /admin/groups", a(h.groupCreate))
	h.mux.HandleFunc("POST /admin/groups/{code}", a(h.groupUpdate))
	h.mux.HandleFunc("POST /admin/groups/{code}/remove", a(h.groupRemove))
	if h.opts.RPC.Has("customer/v1/customer.update") {
		h.mux.HandleFunc("POST /admin/customers/{id}/groups", a(h.customerGroups))
	}
}

// groupSpec describes the new group's form; the list's forms (rename,
// remove) are groupListSpec.
var (
	groupSpec     = formSpec{ID: "group-form", Fields: fieldsOf("code:Code", "title:Title")}
	groupListSpec = formSpec{ID: "group-list", Fields: map[string]field{"title": {"", "Title"}}}
)

// maxGroups is the most groups a page lists (and offers in a select):
// group.list's largest page.
const maxGroups = 200

func (h *Handler) groups(w http.ResponseWriter, r *http.Request) {
	h.renderGroups(w, r, url.Values{}, groupSpec, nil)
}

func (h *Handler) renderGroups(w http.ResponseWriter, r *http.Request, f url.Values, spec formSpec, err error) {
	q := r.URL.Query()
	p := page{Title: "Customer groups", Nav: "groups", Form: f, Data: map[string]any{}}
	rows, pg, lerr := h.listRows(r, "customer/v1/group.list", nil)
	if err == nil && lerr != nil {
		err, spec = lerr, groupListSpec
	}
	p.Data["groups"], p.Data["pager"] = rows, pg
	p.failed(spec, err)
	switch {
	case q.Get("removed") != "":
		p.Notice = "Removed."
	case q.Get("saved") != "":
		p.Notice = "Saved."
	}
	h.render(w, r, statusOf(err), "groups", p)
}

func (h *Handler) groupCreate(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	args := map[string]any{"code": strings.ToUpper(strings.TrimSpace(f.Get("code")))}
	if v := opt(f, "title"); v != nil {
		args["title"] = *v
	}
	if _, err := h.callOnce(r, "customer/v1/group.create", args); err != nil {
		h.renderGroups(w, r, f, groupSpec, err)
		return
	}
	seeOther(w, r, "/admin/groups?saved=1")
}

// groupUpdate renames a group (its title: the code is its key).
func (h *Handler) groupUpdate(w http.ResponseWriter, r *http.Request) {
	args := map[string]any{"code": r.PathValue("code"), "title": strings.TrimSpace(r.PostForm.Get("title"))}
	if _, err := h.call(r, "customer/v1/group.update", args); err != nil {
		h.renderGroups(w, r, url.Values{}, groupListSpec, err)
		return
	}
	seeOther(w, r, "/admin/groups?saved=1")
}

func (h *Handler) groupRemove(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	question := "Remove the customer group " + code + "? Price lists for it no longer apply to its customers."
	if !h.confirmFirst(w, r, confirmation{Title: "Remove a customer group", Nav: "groups", Question: question, Yes: "Remove",
		Back: "/admin/groups"}) {
		return
	}
	if _, err := h.call(r, "customer/v1/group.remove", map[string]any{"code": code}); err != nil {
		h.renderGroups(w, r, url.Values{}, groupListSpec, err)
		return
	}
	seeOther(w, r, "/admin/groups?removed=1")
}

// groupChoices are the groups a select offers (the first maxGroups), or
// nil when the member may not read them (the page then takes a code as
// typed).
func (h *Handler) groupChoices(r *http.Request) []any {
	if !who(r).staff.Can("group", false) {
		return nil
	}
	res, err := h.call(r, "customer/v1/group.list", map[string]any{"limit": maxGroups})
	if err != nil {
		h.opts.Logger.Warn("admin: groups", "err", err)
		return nil
	}
	return list(res)
}

// addCustomerGroups gives the customer's page what its groups' card
// shows: the groups it may add.
func (h *Handler) addCustomerGroups(r *http.Request, p *page) {
	if !h.features["groups"] {
		return
	}
	c, _ := p.Data["customer"].(map[string]any)
	in := asList(c["groups"])
	var choices []any
	for _, g := range h.groupChoices(r) {
		m, _ := g.(map[string]any)
		if !slices.Contains(in, m["code"]) {
			choices = append(choices, g)
		}
	}
	p.Data["groupChoices"] = choices
	p.Data["groupsReadable"] = who(r).staff.Can("group", false)
	if r.URL.Query().Get("groups") != "" {
		p.Notice = "Groups saved."
	}
}

// customerGroupsSpec describes the customer's groups' form.
var customerGroupsSpec = formSpec{ID: "groups-form", Fields: map[string]field{"groups": {"add-group", "Group"}}}

// customerGroups adds (add=CODE) or removes (remove=CODE) a group of a
// customer: customer.update with the customer's groups so changed.
func (h *Handler) customerGroups(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	c, ok := h.record(w, r, "customer/v1/customer.info", "customer", id, page{Title: "Customer", Nav: "customers"})
	if !ok {
		return
	}
	groups := []string{}
	for _, g := range asList(c["groups"]) {
		groups = append(groups, str(g))
	}
	f := r.PostForm
	if add := strings.ToUpper(strings.TrimSpace(f.Get("add"))); add != "" && !slices.Contains(groups, add) {
		groups = append(groups, add)
	}
	if rm := f.Get("remove"); rm != "" {
		groups = slices.DeleteFunc(groups, func(g string) bool { return g == rm })
	}
	if _, err := h.call(r, "customer/v1/customer.update", map[string]any{"id": id, "groups": groups}); err != nil {
		rr := r.Clone(r.Context())
		rr.URL.RawQuery = ""
		h.customerPageWith(w, rr, customerGroupsSpec, err)
		return
	}
	seeOther(w, r, "/admin/customers/"+url.PathEscape(id)+"?groups=saved")
}
