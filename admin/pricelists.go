package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Price lists (docs/api.md section 26): the lists (filtered by group and
// status), a list's fields, and its price table: a product found with
// the product picker, its amount and tiers (minQuantity) set or removed.
// Price lists are catalog data: the permission table's "priceList"
// resource gates the pages; a role that may not read customer groups
// types the groups' codes.

// priceRoutes serves the pages of customer groups and price lists.
func (h *Handler) priceRoutes() {
	h.groupRoutes()
	h.priceListRoutes()
}

// priceListRoutes serves the price lists' pages when their operations are
// assembled.
func (h *Handler) priceListRoutes() {
	if !h.opts.RPC.Has("catalog/v1/priceList.list") {
		return
	}
	h.features["pricelists"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/pricelists", a(h.priceLists))
	h.mux.HandleFunc("GET /admin/pricelists/new", a(h.priceListNew))
	h.mux.HandleFunc("POST /admin/pricelists/new", a(h.priceListCreate))
	h.mux.HandleFunc("GET /admin/pricelists/{id}", a(h.priceListPage))
	h.mux.HandleFunc("POST /admin/pricelists/{id}", a(h.priceListUpdate))
	h.mux.HandleFunc("POST /admin/pricelists/{id}/prices", a(h.priceListSetPrices))
	h.mux.HandleFunc("POST /admin/pricelists/{id}/prices/remove", a(h.priceListRemovePrice))
	h.mux.HandleFunc("POST /admin/pricelists/{id}/remove", a(h.priceListRemove))
}

var priceListsSpec = formSpec{ID: "filters", Fields: map[string]field{"group": {"f-group", "Group"}, "status": {"f-status", "Status"}}}

func (h *Handler) priceLists(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	args := map[string]any{}
	if v := opt(q, "group"); v != nil {
		args["group"] = strings.ToUpper(*v)
	}
	p := page{Title: "Price lists", Nav: "pricelists", Form: q, Data: map[string]any{"groupChoices": h.groupChoices(r)}}
	rows, pg, err := h.listRows(r, "catalog/v1/priceList.list", args, "status")
	p.Data["lists"], p.Data["pager"] = rows, pg
	if q.Get("removed") != "" {
		p.Notice = "Removed."
	}
	h.fail(w, r, "pricelists", p, priceListsSpec, err)
}

// priceListSpec describes the list's form.
var priceListSpec = formSpec{ID: "pricelist-form", Fields: fieldsOf("code:Code", "title:Title", "status:Status", "groups:Groups",
	"channel:Channel", "country:Country", "currency:Currency", "validFrom:Valid from", "validUntil:Valid until", "priority:Priority")}

func (h *Handler) priceListNew(w http.ResponseWriter, r *http.Request) {
	p := h.priceListForm(r, url.Values{"status": {"ACTIVE"}, "currency": {"USD"}, "priority": {"0"}}, nil)
	h.render(w, r, http.StatusOK, "pricelist", p)
}

func (h *Handler) priceListCreate(w http.ResponseWriter, r *http.Request) {
	res, err := h.callOnce(r, "catalog/v1/priceList.create", priceListArgs(r.PostForm, false))
	if err != nil {
		h.fail(w, r, "pricelist", h.priceListForm(r, r.PostForm, nil), priceListSpec, err)
		return
	}
	l, _ := res["priceList"].(map[string]any)
	seeOther(w, r, "/admin/pricelists/"+url.PathEscape(str(l["id"]))+"?saved=1")
}

func (h *Handler) priceListUpdate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	args := priceListArgs(r.PostForm, true)
	args["id"] = id
	if _, err := h.call(r, "catalog/v1/priceList.update", args); err != nil {
		h.renderPriceList(w, r, id, r.PostForm, nil, priceListSpec, err)
		return
	}
	seeOther(w, r, "/admin/pricelists/"+url.PathEscape(id)+"?saved=1")
}

func (h *Handler) priceListRemove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	question := "Remove this price list? Carts priced by it go back to the other prices on their next recalculation."
	if !h.confirmFirst(w, r, confirmation{Title: "Remove a price list", Nav: "pricelists", Question: question, Yes: "Remove",
		Back: "/admin/pricelists/" + url.PathEscape(id)}) {
		return
	}
	if _, err := h.call(r, "catalog/v1/priceList.remove", map[string]any{"id": id}); err != nil {
		h.renderPriceList(w, r, id, nil, nil, formSpec{ID: "remove-form"}, err)
		return
	}
	seeOther(w, r, "/admin/pricelists?removed=1")
}

func (h *Handler) priceListPage(w http.ResponseWriter, r *http.Request) {
	var tiers url.Values
	if pid := r.URL.Query().Get("product"); pid != "" {
		tiers = url.Values{"pl_product": {pid}}
	}
	h.renderPriceList(w, r, r.PathValue("id"), nil, tiers, formSpec{}, nil)
}

// renderPriceList draws a list's page: its fields' form (f, else the
// list's), its price table, and the form that sets a product's prices
// (tf: its fields; a product chosen without tiers gets the list's).
func (h *Handler) renderPriceList(w http.ResponseWriter, r *http.Request, id string, f, tf url.Values, spec formSpec, actionErr error) {
	l, ok := h.record(w, r, "catalog/v1/priceList.info", "priceList", id, page{Title: "Price list", Nav: "pricelists"})
	if !ok {
		return
	}
	if f == nil {
		f = priceListValues(l)
	}
	p := h.priceListForm(r, f, l)
	p.Title = "Price list " + str(l["code"])
	prices := asList(l["prices"])
	if tf == nil {
		tf = url.Values{}
	}
	if _, ok := tf["tq"]; !ok {
		pid := tf.Get("pl_product")
		for _, x := range prices {
			if m, _ := x.(map[string]any); pid != "" && str(m["productId"]) == pid {
				tf.Add("tq", strconv.FormatInt(toInt(m["minQuantity"]), 10))
				tf.Add("ta", numText(m["amount"]))
			}
		}
	}
	pick := pickOf(tf, "pl", "/admin/pricelists/"+url.PathEscape(id)+"/prices")
	rows, pg := h.listPriceRows(r, prices, str(l["currency"]))
	ids := []string{pick.Product}
	for _, row := range rows {
		ids = append(ids, row.Product.ID)
	}
	names := h.productsByID(r, ids)
	for i := range rows {
		if n, ok := names[rows[i].Product.ID]; ok {
			rows[i].Product = n
		}
	}
	h.find(r, &pick, names)
	p.Data["pick"] = pick
	p.Data["priceRows"] = rows
	p.Data["pager"] = pg
	p.Data["tiers"] = tierRows(tf)
	p.Data["priceCount"] = len(prices)
	p.failed(spec, actionErr)
	savedNotice(r, &p)
	h.render(w, r, statusOf(actionErr), "pricelist", p)
}

// priceListForm is the page of a list's form: a new list's (l nil) or
// the list l's.
func (h *Handler) priceListForm(r *http.Request, f url.Values, l map[string]any) page {
	p := page{Title: "New price list", Nav: "pricelists", Form: f, Data: map[string]any{}}
	if l != nil {
		p.Data["id"] = str(l["id"])
		p.Data["list"] = l
	}
	choices := h.groupChoices(r)
	p.Data["groupChoices"] = choices
	p.Data["groupsReadable"] = choices != nil
	p.Data["groups"] = groupCodes(f["groups"])
	return p
}

// groupCodes are the codes of a form's groups field(s): each value may
// hold several, separated by commas or spaces, in any case.
func groupCodes(vs []string) []string {
	out := []string{}
	for _, v := range vs {
		for _, c := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
			out = append(out, strings.ToUpper(c))
		}
	}
	return out
}

// priceListArgs are the arguments of priceList.create (update false:
// empty fields left out) or priceList.update (empty fields clear the
// list's channel, country and dates).
func priceListArgs(f url.Values, update bool) map[string]any {
	args := map[string]any{"groups": groupCodes(f["groups"])}
	for _, k := range []string{"code", "title", "status", "currency"} {
		if v := opt(f, k); v != nil {
			args[k] = *v
		}
	}
	for _, k := range []string{"channel", "country", "validFrom", "validUntil"} {
		if v := opt(f, k); v != nil {
			args[k] = *v
		} else if update {
			args[k] = ""
		}
	}
	if v := number(f.Get("priority")); v != nil {
		args["priority"] = v
	}
	return args
}

// priceListValues are a list's fields as its form shows them: a bound at
// the start (validFrom) or the last millisecond (validUntil) of a UTC day
// as that date, as priceList.update takes it back.
func priceListValues(l map[string]any) url.Values {
	f := url.Values{}
	for _, k := range []string{"code", "title", "status", "channel", "country", "currency", "priority"} {
		f.Set(k, str(l[k]))
		if k == "priority" {
			f.Set(k, strconv.FormatInt(toInt(l[k]), 10))
		}
	}
	for _, g := range asList(l["groups"]) {
		f.Add("groups", str(g))
	}
	for _, b := range []struct {
		key, day string
	}{{"validFrom", "00:00:00.000"}, {"validUntil", "23:59:59.999"}} {
		s := str(l[b.key])
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			t = t.UTC()
			if t.Format("15:04:05.000") == b.day {
				s = t.Format(time.DateOnly)
			} else {
				s = t.Format(time.RFC3339Nano)
			}
		}
		f.Set(b.key, s)
	}
	return f
}

// listPriceRow is a product's prices in the price table: its tiers.
type listPriceRow struct {
	Product productRef
	Tiers   []tierView
}

// tierView is a price of the table: from MinQuantity units on, Amount
// (in major units) and Money (for reading: 1,250.00 USD).
type tierView struct {
	MinQuantity int64
	Amount      string
	Money       string
}

// pricesPerPage is how many products the price table shows at once.
const pricesPerPage = 25

// listPriceRows are the list's prices, one row per product (the list keeps
// them by product and tier), a page of pricesPerPage products at a time.
func (h *Handler) listPriceRows(r *http.Request, prices []any, currency string) ([]listPriceRow, pager) {
	var rows []listPriceRow
	for _, x := range prices {
		m, _ := x.(map[string]any)
		pid := str(m["productId"])
		if len(rows) == 0 || rows[len(rows)-1].Product.ID != pid {
			rows = append(rows, listPriceRow{Product: productRef{ID: pid, SKU: pid}})
		}
		last := &rows[len(rows)-1]
		last.Tiers = append(last.Tiers, tierView{MinQuantity: toInt(m["minQuantity"]), Amount: numText(m["amount"]),
			Money: majorMoney(m["amount"], currency)})
	}
	q := r.URL.Query()
	_, skip := pageArgs(q)
	skip = min(skip, len(rows))
	end := min(skip+pricesPerPage, len(rows))
	return rows[skip:end], newPager(q, pricesPerPage, skip, end-skip)
}

// majorMoney writes an amount in major units (as the API gives it) with
// the currency's decimals and thousands separators: 1,250.00 USD.
func majorMoney(v any, currency string) string {
	s := numText(v)
	prec, err := money.Precision(currency)
	if err != nil {
		return s + " " + currency
	}
	minor, err := money.ParseMajor(s, prec)
	if err != nil {
		return s + " " + currency
	}
	return grouped(fixed(minor, prec)) + " " + currency
}

// numText is a number of an answer (json.Number) as text ("" for none).
func numText(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// tierRow is a row of the form that sets a product's prices.
type tierRow struct{ MinQuantity, Amount string }

// tierRows are the form's tier rows (tq, ta): those given, then blank ones
// (three at least, one blank at least); the first row's minQuantity is 1
// when the form is new.
func tierRows(f url.Values) []tierRow {
	var rows []tierRow
	qs, as := f["tq"], f["ta"]
	for i := range max(len(qs), len(as)) {
		var row tierRow
		if i < len(qs) {
			row.MinQuantity = strings.TrimSpace(qs[i])
		}
		if i < len(as) {
			row.Amount = strings.TrimSpace(as[i])
		}
		if row != (tierRow{}) {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		rows = append(rows, tierRow{MinQuantity: "1"})
	}
	for len(rows) < 3 || rows[len(rows)-1] != (tierRow{}) {
		rows = append(rows, tierRow{})
	}
	return rows
}

// setPricesSpec describes the form that sets a product's prices:
// setPrices[k] is the k-th tier row that has an amount (the others are
// not sent).
func setPricesSpec(rows []tierRow) formSpec {
	spec := formSpec{ID: "prices-form", Fields: map[string]field{"setPrices": {"pl_product", "Product"}}}
	k := 0
	for i, row := range rows {
		if row.Amount == "" {
			continue
		}
		n := strconv.Itoa(i)
		at := commerce.Index("setPrices", k)
		spec.Fields[at] = field{"ta" + n, "Tier " + strconv.Itoa(i+1)}
		spec.Fields[at+".productId"] = field{"pl_product", "Product"}
		spec.Fields[at+".amount"] = field{"ta" + n, "Tier " + strconv.Itoa(i+1) + " amount"}
		spec.Fields[at+".minQuantity"] = field{"tq" + n, "Tier " + strconv.Itoa(i+1) + " from quantity"}
		k++
	}
	return spec
}

// pickSpec describes the problems the page finds in the prices' form
// before any operation runs.
var pickSpec = formSpec{ID: "prices-form", Fields: map[string]field{"product": {"pl_product", "Product"}, "amount": {"ta0", "Amount"}}}

// priceListSetPrices sets a product's prices (priceList.update's
// setPrices: one per tier row with an amount), or with the picker's Find
// button, shows the form again with what the search found.
func (h *Handler) priceListSetPrices(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f := r.PostForm
	if f.Get("find") != "" {
		h.renderPriceList(w, r, id, nil, f, formSpec{}, nil)
		return
	}
	rows := tierRows(f)
	product := strings.TrimSpace(f.Get("pl_product"))
	if product == "" {
		h.renderPriceList(w, r, id, nil, f, pickSpec, commerce.Invalid("product: choose one (find it by its title or SKU)"))
		return
	}
	set := []any{}
	for _, row := range rows {
		if row.Amount == "" {
			continue
		}
		pr := map[string]any{"productId": product, "amount": number(row.Amount)}
		if q := number(row.MinQuantity); q != nil {
			pr["minQuantity"] = q
		}
		set = append(set, pr)
	}
	if len(set) == 0 {
		h.renderPriceList(w, r, id, nil, f, pickSpec, commerce.Invalid("amount: give the amount of a tier at least"))
		return
	}
	if _, err := h.call(r, "catalog/v1/priceList.update", map[string]any{"id": id, "setPrices": set}); err != nil {
		h.renderPriceList(w, r, id, nil, f, setPricesSpec(rows), err)
		return
	}
	seeOther(w, r, "/admin/pricelists/"+url.PathEscape(id)+"?saved=1")
}

// priceListRemovePrice removes a product's tier (minQuantity given) or
// all its prices.
func (h *Handler) priceListRemovePrice(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f := r.PostForm
	key := map[string]any{"productId": f.Get("productId")}
	if q := number(f.Get("minQuantity")); q != nil {
		key["minQuantity"] = q
	}
	if _, err := h.call(r, "catalog/v1/priceList.update", map[string]any{"id": id, "removePrices": []any{key}}); err != nil {
		h.renderPriceList(w, r, id, nil, nil, formSpec{ID: "price-table"}, err)
		return
	}
	seeOther(w, r, "/admin/pricelists/"+url.PathEscape(id)+"?saved=1")
}
