package admin_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/testkit/testdb"
)

// TestAdminTranslationsEndToEnd: in a store in English, Spanish and
// French, staff give a product its Spanish title and slug on its page,
// save, and see them after a reload; product.info in es answers them. A
// Spanish slug another product has is refused with the problem at that
// field; a category's Spanish title is saved from its page the same way.
func TestAdminTranslationsEndToEnd(t *testing.T) {
	chromium(t)
	e := newEnv(t, testdb.SQLite(t), threeLocales)
	var cat, p1, p2 struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	for _, p := range []struct {
		sku, title string
		into       *struct{ ID string }
		tr         map[string]any
	}{{"FR-1", "Combi fridge", &p1, nil}, {"FR-2", "Mini fridge", &p2, map[string]any{"es": map[string]any{"slug": "nevera-mini"}}}} {
		args := map[string]any{"sku": p.sku, "status": "ONLINE", "title": p.title, "description": "Keeps food cold.", "stockStatus": 1,
			"categories": []string{cat.ID}}
		if p.tr != nil {
			args["translations"] = p.tr
		}
		e.Post(t, "/catalog/v1/product.create", e.Admin, args).Must(t).Decode(t, "product", p.into)
	}

	u := newUI(t, e.URL)
	u.open("/admin/")
	u.fill("#email", staffEmail, "#password", staffPassword)
	u.submit(`form button[type=submit]`)
	u.run(chromedp.WaitVisible(css("#active-carts")))

	u.open("/admin/products/" + p1.ID)
	if ph := get(u, chromedp.AttributeValue(css("#tr-es-title"), "placeholder")).Value; ph != "Combi fridge" {
		t.Errorf("the Spanish title's placeholder: %q, want the default title", ph)
	}
	u.fill("#tr-es-title", "Frigorífico combi", "#tr-es-slug", "frigorifico-combi", "#tr-fr-title", "Réfrigérateur combiné")
	u.submit("#save-product")
	u.expect(".notice", "Saved")
	u.open("/admin/products/" + p1.ID)
	if v, s, f := u.value("#tr-es-title"), u.value("#tr-es-slug"), u.value("#tr-fr-title"); v != "Frigorífico combi" || s != "frigorifico-combi" || f != "Réfrigérateur combiné" {
		t.Errorf("after a reload: Spanish title %q, slug %q, French title %q", v, s, f)
	}
	if v := u.value("#title"); v != "Combi fridge" {
		t.Errorf("the default title after saving the translations: %q", v)
	}
	u.run(chromedp.ScrollIntoView(css("#translations")))
	u.screenshot("product-translations")
	var es translated
	e.Get(t, "/catalog/v1/product.info?id="+p1.ID+"&locale=es", e.API).Must(t).Decode(t, "product", &es)
	if es.Title != "Frigorífico combi" || es.Slug != "frigorifico-combi" || es.Description != "Keeps food cold." {
		t.Errorf("product.info in es: %+v", es)
	}

	// The other product's Spanish slug: refused at the field.
	u.fill("#tr-es-slug", "nevera-mini")
	u.submit("#save-product")
	u.expect("#tr-es-slug-error", "Is taken by another product in Spanish")
	u.expect("#error", "Another product already has the slug “nevera-mini” in Spanish (es).")
	u.expectErrorShown("#product-form", "product-translation-error")
	if inv := get(u, chromedp.AttributeValue(css("#tr-es-slug"), "aria-invalid")).Value; inv != "true" {
		t.Errorf("the taken slug's field is not marked invalid: %q", inv)
	}
	u.run(chromedp.ScrollIntoView(css("#tr-es-slug")))
	u.screenshot("product-translation-taken")
	e.Get(t, "/catalog/v1/product.info?id="+p1.ID+"&locale=es", e.API).Must(t).Decode(t, "product", &es)
	if es.Slug != "frigorifico-combi" {
		t.Errorf("a refused form changed the Spanish slug: %q", es.Slug)
	}

	// A category's Spanish title.
	u.open("/admin/categories/" + cat.ID)
	u.fill("#tr-es-title", "Frigoríficos", "#tr-es-slug", "frigorificos")
	u.submit(`#category-form button[type=submit]`)
	u.expect(".notice", "Saved")
	if v := u.value("#tr-es-title"); v != "Frigoríficos" {
		t.Errorf("the category's Spanish title after saving: %q", v)
	}
	u.screenshot("category-translations")
	var c translated
	e.DoHeader(t, http.MethodGet, "/catalog/v1/category.info?id="+cat.ID, e.API, http.Header{"Accept-Language": {"es-ES,es;q=0.9,en;q=0.5"}}, nil).
		Must(t).Decode(t, "category", &c)
	if c.Title != "Frigoríficos" || c.Slug != "frigorificos" {
		t.Errorf("category.info with Accept-Language es: %+v", c)
	}
}
