package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
)

// priceRow is one row of a product form's price table.
type priceRow struct {
	ID, Amount, Currency, Country, CustomerType, Channel string
}

func priceRows(f url.Values) []priceRow {
	ids, amounts, curs := f["price_id"], f["price_amount"], f["price_currency"]
	countries, types, channels := f["price_country"], f["price_customerType"], f["price_channel"]
	at := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return ""
	}
	var rows []priceRow
	for i := range max(len(amounts), len(curs)) {
		r := priceRow{at(ids, i), at(amounts, i), at(curs, i), at(countries, i), at(types, i), at(channels, i)}
		if strings.TrimSpace(r.Amount+r.Currency+r.Country+r.CustomerType+r.Channel) != "" {
			rows = append(rows, r)
		}
	}
	return append(rows, priceRow{}) // a blank row for a new price
}

func (h *Handler) products(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	args := map[string]any{"fields": "id,sku,title,status,stockStatus,prices,categories"}
	if v := opt(q, "category"); v != nil {
		args["categories"] = *v
	}
	p := page{Title: "Products", Nav: "products", Form: q, Data: map[string]any{}}
	rows, pg, err := h.listRows(r, "catalog/v1/product.list", args, "title", "sku", "status")
	if err != nil {
		h.addCategories(r, &p) // the filter's choices stay
		h.fail(w, r, "products", p, formSpec{ID: "filters", Fields: map[string]field{"title": {"f-title", "Title"},
			"sku": {"f-sku", "SKU"}, "status": {"f-status", "Status"}, "categories": {"f-category", "Category"}}}, err)
		return
	}
	p.Data["products"], p.Data["pager"] = rows, pg
	h.addCategories(r, &p)
	h.render(w, r, http.StatusOK, "products", p)
}

// Category selects and the tree list every category, read a page of
// categoryPage at a time (category.list, in creation order), up to
// maxCategoryOptions; past it the page says that only the first ones are
// listed.
var (
	categoryPage       = commerce.MaxLimit
	maxCategoryOptions = 10 * commerce.MaxLimit
)

// addCategories puts the categories for a select or the tree, in tree
// order, in the page's data ("categories"), with "categoriesCut" (the
// number listed) when there are more than maxCategoryOptions. A failed
// read is the page's error, unless it has one already.
func (h *Handler) addCategories(r *http.Request, p *page) {
	cs, cut, err := h.categoryOptions(r)
	p.Data["categories"] = cs
	if cut {
		p.Data["categoriesCut"] = len(cs)
	}
	if err != nil && p.Error == nil {
		p.failed(formSpec{}, err)
	}
}

// categoryOptions lists the categories, in tree order, each with its
// "label" (its titles from the top, joined by " / ") and its "choice",
// what a select shows: its own title first, then where it is ("Combi —
// in Kitchen / Fridges"), so that the choices of one branch do not all
// start alike and are not cut to the same prefix on a narrow screen; cut
// is true when there are more than maxCategoryOptions.
func (h *Handler) categoryOptions(r *http.Request) (cs []any, cut bool, err error) {
	for skip := 0; ; skip += categoryPage {
		res, err := h.call(r, "catalog/v1/category.list", map[string]any{"limit": categoryPage, "skip": skip})
		if err != nil {
			return nil, false, err
		}
		rows := list(res)
		cs = append(cs, rows...)
		if len(cs) > maxCategoryOptions {
			cs, cut = cs[:maxCategoryOptions], true
			break
		}
		if len(rows) < categoryPage {
			break
		}
	}
	titles := map[string]string{}
	for _, c := range cs {
		m, _ := c.(map[string]any)
		id, _ := m["id"].(string)
		titles[id], _ = m["title"].(string)
	}
	for _, c := range cs {
		m, _ := c.(map[string]any)
		path, _ := m["path"].(string)
		var parts []string
		for _, id := range strings.Split(path, ".") {
			if id != "" && id != "ROOT" {
				parts = append(parts, titles[id])
			}
		}
		m["label"] = strings.Join(parts, " / ")
		m["choice"] = m["label"]
		if n := len(parts); n > 1 {
			m["choice"] = parts[n-1] + " — in " + strings.Join(parts[:n-1], " / ")
		}
		if m["label"] == "" {
			m["label"], m["choice"] = "(top level)", "(top level)"
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		return cs[i].(map[string]any)["label"].(string) < cs[j].(map[string]any)["label"].(string)
	})
	return cs, cut, nil
}

func (h *Handler) productPage(r *http.Request, f url.Values, id string) page {
	p := page{Title: "New product", Nav: "products", Form: f, Data: map[string]any{}}
	if id != "" {
		p.Title = "Product " + f.Get("sku")
		p.Data["id"] = id
		stock, err := h.reads.StockOf(r.Context(), id)
		if err == nil {
			p.Data["stock"] = stock
		}
	}
	p.Data["prices"] = priceRows(f)
	h.addTranslations(&p, f)
	h.addCategories(r, &p)
	return p
}

// productSpec describes the product form for its errors: prices[k] of
// the arguments is the k-th row of the form that has an amount or a
// currency (productArgs leaves the others out).
func productSpec(f url.Values) formSpec {
	spec := formSpec{ID: "product-form", Fields: fieldsOf("sku:SKU", "title:Title", "brand:Brand", "status:Status",
		"stockStatus:Stock status", "taxCode:Tax code", "isNetPrice:Prices are net", "description:Description", "categories:Categories")}
	k := 0
	for i, row := range priceRows(f) {
		if strings.TrimSpace(row.Amount+row.Currency) == "" {
			continue
		}
		n := strconv.Itoa(i)
		label := "Price " + strconv.Itoa(i+1)
		spec.Fields[commerce.Index("prices", k)] = field{"pa" + n, label}
		for _, c := range []struct{ name, id, label string }{{"amount", "pa", "amount"}, {"currency", "pc", "currency"},
			{"country", "pk", "country"}, {"customerType", "pt", "customer type"}, {"channel", "ph", "channel"}} {
			spec.Fields[commerce.Index("prices", k)+"."+c.name] = field{c.id + n, label + " " + c.label}
		}
		k++
	}
	return spec
}

// stockSpec describes the product page's stock form.
var stockSpec = formSpec{ID: "stock-form", Fields: fieldsOf("warehouseId:Warehouse", "quantity:Quantity on hand")}

func (h *Handler) productNew(w http.ResponseWriter, r *http.Request) {
	f := url.Values{"status": {"ONLINE"}, "stockStatus": {"0"}}
	h.render(w, r, http.StatusOK, "product", h.productPage(r, f, ""))
}

// productArgs are the fields of product.create and product.update from a
// form.
func productArgs(f url.Values) map[string]any {
	a := map[string]any{}
	for _, k := range []string{"sku", "title", "status"} {
		a[k] = strings.TrimSpace(f.Get(k))
	}
	if v := opt(f, "taxCode"); v != nil {
		a["taxCode"] = *v
	}
	for _, k := range []string{"description", "brand"} {
		a[k] = f.Get(k)
	}
	a["stockStatus"] = number(f.Get("stockStatus"))
	a["isNetPrice"] = f.Get("isNetPrice") == "on"
	cats := []string{}
	for _, c := range f["categories"] {
		if c = strings.TrimSpace(c); c != "" {
			cats = append(cats, c)
		}
	}
	a["categories"] = cats
	prices := []map[string]any{}
	for _, row := range priceRows(f) {
		if strings.TrimSpace(row.Amount+row.Currency) == "" {
			continue
		}
		pr := map[string]any{"amount": number(row.Amount), "currency": strings.TrimSpace(row.Currency)}
		for k, v := range map[string]string{"id": row.ID, "country": row.Country, "customerType": row.CustomerType, "channel": row.Channel} {
			if v = strings.TrimSpace(v); v != "" {
				pr[k] = v
			}
		}
		prices = append(prices, pr)
	}
	a["prices"] = prices
	return a
}

func (h *Handler) productCreate(w http.ResponseWriter, r *http.Request) {
	args := productArgs(r.PostForm)
	h.addTranslationArgs(args, r.PostForm)
	res, err := h.callOnce(r, "catalog/v1/product.create", args)
	if err != nil {
		h.failTranslated(w, r, "product", h.productPage(r, r.PostForm, ""), productSpec(r.PostForm), "product", err)
		return
	}
	id, _ := res["product"].(map[string]any)["id"].(string)
	seeOther(w, r, "/admin/products/"+url.PathEscape(id)+"?saved=1")
}

// productForm is a product as its form's values.
func productForm(p map[string]any) url.Values {
	f := formValues(url.Values{}, p, "sku", "title", "status", "taxCode", "description", "brand", "stockStatus")
	if p["isNetPrice"] == true {
		f.Set("isNetPrice", "on")
	}
	if cs, ok := p["categories"].([]any); ok {
		for _, c := range cs {
			f.Add("categories", fmt.Sprint(c))
		}
	}
	if ps, ok := p["prices"].([]any); ok {
		for _, x := range ps {
			pr, _ := x.(map[string]any)
			get := func(k string) string {
				if v, ok := pr[k]; ok && v != nil {
					return fmt.Sprint(v)
				}
				return ""
			}
			f.Add("price_id", get("id"))
			f.Add("price_amount", get("amount"))
			f.Add("price_currency", get("currency"))
			f.Add("price_country", get("country"))
			f.Add("price_customerType", get("customerType"))
			f.Add("price_channel", get("channel"))
		}
	}
	translationValues(f, p)
	return f
}

func (h *Handler) productEdit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	pr, ok := h.record(w, r, "catalog/v1/product.info", "product", id, page{Title: "Product", Nav: "products"})
	if !ok {
		return
	}
	p := h.productPage(r, productForm(pr), id)
	h.addMedias(&p, pr)
	h.addEffectivePrice(r, &p, pr)
	savedNotice(r, &p)
	h.render(w, r, http.StatusOK, "product", p)
}

func (h *Handler) productUpdate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	args := productArgs(r.PostForm)
	h.addTranslationArgs(args, r.PostForm)
	args["id"] = id
	if _, err := h.call(r, "catalog/v1/product.update", args); err != nil {
		h.failTranslated(w, r, "product", h.productPage(r, r.PostForm, id), productSpec(r.PostForm), "product", err)
		return
	}
	seeOther(w, r, "/admin/products/"+url.PathEscape(id)+"?saved=1")
}

// productStock sets the quantity of a product in a warehouse: stock.update
// of the record, or stock.create when there is none yet.
func (h *Handler) productStock(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	args := map[string]any{"productId": id, "warehouseId": strings.TrimSpace(r.PostFormValue("warehouseId")),
		"quantity": number(r.PostFormValue("quantity"))}
	_, err := h.call(r, "stock/v1/stock.update", args)
	if commerce.ErrorCode(err) == commerce.EStockNotFound {
		_, err = h.call(r, "stock/v1/stock.create", args)
	}
	if err != nil {
		pr, ok := h.record(w, r, "catalog/v1/product.info", "product", id, page{Title: "Product", Nav: "products"})
		if !ok {
			return
		}
		p := h.productPage(r, productForm(pr), id)
		p.Data["stockForm"] = r.PostForm
		h.fail(w, r, "product", p, stockSpec, err)
		return
	}
	seeOther(w, r, "/admin/products/"+url.PathEscape(id)+"?saved=1")
}

func (h *Handler) categories(w http.ResponseWriter, r *http.Request) {
	h.renderCategories(w, r, http.StatusOK, url.Values{"parent": {"ROOT"}}, nil)
}

func (h *Handler) renderCategories(w http.ResponseWriter, r *http.Request, status int, f url.Values, err error) {
	p := page{Title: "Categories", Nav: "categories", Form: f, Data: map[string]any{}}
	p.failed(categorySpec, err)
	if err != nil {
		status = statusOf(err)
	}
	h.addCategories(r, &p)
	h.render(w, r, status, "categories", p)
}

// categorySpec describes the category forms (new, edit) for their errors.
var categorySpec = formSpec{ID: "category-form", Fields: fieldsOf("title:Title", "slug:Slug", "parent:Parent", "description:Description")}

func categoryArgs(f url.Values) map[string]any {
	a := map[string]any{"title": strings.TrimSpace(f.Get("title")), "slug": strings.TrimSpace(f.Get("slug")),
		"description": f.Get("description")}
	if v := opt(f, "parent"); v != nil {
		a["parent"] = *v
	}
	return a
}

func (h *Handler) categoryCreate(w http.ResponseWriter, r *http.Request) {
	if _, err := h.callOnce(r, "catalog/v1/category.create", categoryArgs(r.PostForm)); err != nil {
		h.renderCategories(w, r, 0, r.PostForm, err)
		return
	}
	seeOther(w, r, "/admin/categories?saved=1")
}

func (h *Handler) categoryPage(r *http.Request, id string, f url.Values) page {
	p := page{Title: "Category " + f.Get("title"), Nav: "categories", Form: f, Data: map[string]any{"id": id}}
	h.addTranslations(&p, f)
	h.addCategories(r, &p)
	return p
}

func (h *Handler) categoryEdit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	c, ok := h.record(w, r, "catalog/v1/category.info", "category", id, page{Title: "Category", Nav: "categories"})
	if !ok {
		return
	}
	f := formValues(url.Values{}, c, "title", "slug", "description", "parent")
	translationValues(f, c)
	p := h.categoryPage(r, id, f)
	savedNotice(r, &p)
	h.render(w, r, http.StatusOK, "category", p)
}

func (h *Handler) categoryUpdate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	args := categoryArgs(r.PostForm)
	h.addTranslationArgs(args, r.PostForm)
	args["id"] = id
	if _, err := h.call(r, "catalog/v1/category.update", args); err != nil {
		h.failTranslated(w, r, "category", h.categoryPage(r, id, r.PostForm), categorySpec, "category", err)
		return
	}
	seeOther(w, r, "/admin/categories/"+url.PathEscape(id)+"?saved=1")
}
