package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// threeLocales serves the store in English (the default), Spanish and
// French.
func threeLocales(o *app.Options) { o.Locales = commerce.Locales{"en", "es", "fr"} }

// translated is a product or category as read in a locale.
type translated struct {
	Title        string `json:"title"`
	Description  string `json:"description"`
	Slug         string `json:"slug"`
	Translations map[string]struct {
		Title, Description, Slug string
	} `json:"translations"`
}

// TestProductTranslationsInTheAdmin: the product page shows a product's
// Spanish and French text beside the default, saves them through
// product.update (the API then answers them in that locale, the default
// text unchanged), refuses a Spanish slug another product has with the
// problem at that field (what was typed kept), and removes a translation
// by its box or by emptying its fields.
func TestProductTranslationsInTheAdmin(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db, threeLocales)
		b := e.browser(t)
		b.mustSignIn()
		var cat, p1, p2 struct{ ID string }
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
			Must(t).Decode(t, "category", &cat)
		product := func(sku, title string, tr map[string]any) map[string]any {
			return map[string]any{"sku": sku, "status": "ONLINE", "title": title, "description": "Cold.", "stockStatus": 1,
				"categories": []string{cat.ID}, "translations": tr}
		}
		e.Post(t, "/catalog/v1/product.create", e.Admin, product("FR-1", "Combi fridge", map[string]any{"es": map[string]any{"title": "Frigorífico combi"}})).
			Must(t).Decode(t, "product", &p1)
		e.Post(t, "/catalog/v1/product.create", e.Admin, product("FR-2", "Mini fridge", map[string]any{"es": map[string]any{"slug": "nevera"}})).
			Must(t).Decode(t, "product", &p2)
		read := func(id, locale string) translated {
			var p translated
			e.Get(t, "/catalog/v1/product.info?id="+id+"&locale="+locale, e.Admin).Must(t).Decode(t, "product", &p)
			return p
		}

		path := "/admin/products/" + p1.ID
		page := b.get(path)
		for _, want := range []string{`id="tr-es-title" name="tr.es.title" lang="es" value="Frigorífico combi" placeholder="Combi fridge"`,
			`id="tr-fr-title" name="tr.fr.title" lang="fr" value="" placeholder="Combi fridge"`, "Spanish (es)", "French (fr)", `id="tr-es-remove"`} {
			if !strings.Contains(page.Body, want) {
				t.Errorf("the product page lacks %s", want)
			}
		}
		if strings.Contains(page.Body, "tr-en-") {
			t.Error("the product page has translation fields for the default locale")
		}

		form := url.Values{"csrf": {b.csrf(path)}, "sku": {"FR-1"}, "title": {"Combi fridge"}, "status": {"ONLINE"}, "stockStatus": {"1"},
			"description": {"Cold."}, "categories": {cat.ID},
			"tr.es.title": {"Frigorífico combi"}, "tr.es.slug": {"frigorifico-combi"}, "tr.es.description": {"Frío."},
			"tr.fr.title": {" Réfrigérateur combiné "}}
		if got := b.post(path, form); got.Status != http.StatusSeeOther {
			t.Fatalf("save the translations: %d\n%s", got.Status, got.Body)
		}
		if es := read(p1.ID, "es"); es.Title != "Frigorífico combi" || es.Slug != "frigorifico-combi" || es.Description != "Frío." {
			t.Errorf("product.info in es after saving: %+v", es)
		}
		if fr := read(p1.ID, "fr"); fr.Title != "Réfrigérateur combiné" || fr.Description != "Cold." || fr.Slug != "" {
			t.Errorf("product.info in fr after saving (the title trimmed, the description the default's): %+v", fr)
		}
		if en := read(p1.ID, "en"); en.Title != "Combi fridge" || en.Description != "Cold." {
			t.Errorf("the default text changed: %+v", en)
		}
		if page := b.get(path); !strings.Contains(page.Body, `value="frigorifico-combi"`) || !strings.Contains(page.Body, ">Frío.</textarea>") {
			t.Error("the product page does not show the saved Spanish slug and description")
		}

		// The Spanish slug of the other product: refused at the field.
		taken := url.Values{}
		for k, v := range form {
			taken[k] = v
		}
		taken.Set("tr.es.slug", "nevera")
		taken.Set("tr.es.title", "Otro título")
		got := b.post(path, taken)
		if got.Status != http.StatusConflict || !strings.Contains(got.Body, `data-code="duplicate_key"`) {
			t.Fatalf("a Spanish slug taken: %d, want 409 duplicate_key\n%s", got.Status, got.Body)
		}
		for _, want := range []string{`Another product already has the slug “nevera” in Spanish (es).`,
			`<a href="#tr-es-slug">Spanish slug</a>: is taken by another product in Spanish`,
			`<p class="field-error" id="tr-es-slug-error">Is taken by another product in Spanish</p>`,
			`aria-invalid="true" aria-describedby="tr-es-slug-error"`, `value="Otro título"`} {
			if !strings.Contains(got.Body, want) {
				t.Errorf("the refused form lacks %s", want)
			}
		}
		if es := read(p1.ID, "es"); es.Title != "Frigorífico combi" || es.Slug != "frigorifico-combi" {
			t.Errorf("a refused form changed the translation: %+v", es)
		}

		// French emptied, Spanish removed by its box: both gone.
		cleared := url.Values{}
		for k, v := range form {
			cleared[k] = v
		}
		cleared.Set("tr.fr.title", "")
		cleared.Set("tr.es.remove", "on")
		if got := b.post(path, cleared); got.Status != http.StatusSeeOther {
			t.Fatalf("remove the translations: %d\n%s", got.Status, got.Body)
		}
		if p := read(p1.ID, "es"); len(p.Translations) != 0 || p.Title != "Combi fridge" || p.Slug != "" {
			t.Errorf("after removing both translations: %+v", p)
		}
		// The slug is free again: the other product takes it.
		path2 := "/admin/products/" + p2.ID
		f2 := url.Values{"csrf": {b.csrf(path2)}, "sku": {"FR-2"}, "title": {"Mini fridge"}, "status": {"ONLINE"}, "stockStatus": {"1"},
			"categories": {cat.ID}, "tr.es.slug": {"frigorifico-combi"}}
		if got := b.post(path2, f2); got.Status != http.StatusSeeOther {
			t.Fatalf("take the freed slug: %d\n%s", got.Status, got.Body)
		}
		if p := read(p2.ID, "es"); p.Slug != "frigorifico-combi" {
			t.Errorf("the other product's Spanish slug: %q", p.Slug)
		}

		// A new product with its Spanish title from the new product's page.
		nf := url.Values{"csrf": {b.csrf("/admin/products/new")}, "sku": {"FR-3"}, "title": {"Wine fridge"}, "status": {"ONLINE"},
			"stockStatus": {"1"}, "categories": {cat.ID}, "tr.es.title": {"Vinoteca"}}
		if got := b.post("/admin/products/new", nf); got.Status != http.StatusSeeOther {
			t.Fatalf("create with a translation: %d\n%s", got.Status, got.Body)
		}
		var ps []translated
		e.Get(t, "/catalog/v1/product.list?sku=FR-3&locale=es", e.Admin).Must(t).Decode(t, "data", &ps)
		if len(ps) != 1 || ps[0].Title != "Vinoteca" {
			t.Errorf("the new product in es: %+v", ps)
		}
	})
}

// TestCategoryTranslationsInTheAdmin: the category page saves a
// category's Spanish text through category.update, refuses a Spanish slug
// another category has at that field, and removes the translation.
func TestCategoryTranslationsInTheAdmin(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db, threeLocales)
		b := e.browser(t)
		b.mustSignIn()
		var c1, c2 struct{ ID string }
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
			Must(t).Decode(t, "category", &c1)
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Freezers", "slug": "freezers", "parent": "ROOT",
			"translations": map[string]any{"es": map[string]any{"slug": "congeladores"}}}).Must(t).Decode(t, "category", &c2)
		read := func(locale string) translated {
			var c translated
			e.Get(t, "/catalog/v1/category.info?id="+c1.ID+"&locale="+locale, e.Admin).Must(t).Decode(t, "category", &c)
			return c
		}
		path := "/admin/categories/" + c1.ID
		if page := b.get(path); !strings.Contains(page.Body, `id="tr-es-slug" name="tr.es.slug" lang="es" value="" placeholder="fridges"`) {
			t.Errorf("the category page lacks the Spanish slug field\n%s", page.Body)
		}
		form := url.Values{"csrf": {b.csrf(path)}, "title": {"Fridges"}, "slug": {"fridges"}, "parent": {"ROOT"}, "description": {""},
			"tr.es.title": {"Frigoríficos"}, "tr.es.slug": {"frigorificos"}}
		if got := b.post(path, form); got.Status != http.StatusSeeOther {
			t.Fatalf("save the translation: %d\n%s", got.Status, got.Body)
		}
		if es := read("es"); es.Title != "Frigoríficos" || es.Slug != "frigorificos" {
			t.Errorf("category.info in es: %+v", es)
		}
		if en := read("en"); en.Title != "Fridges" || en.Slug != "fridges" {
			t.Errorf("the default text changed: %+v", en)
		}
		if page := b.get(path); !strings.Contains(page.Body, `value="Frigoríficos"`) {
			t.Error("the category page does not show the saved Spanish title")
		}

		form.Set("tr.es.slug", "congeladores")
		got := b.post(path, form)
		if got.Status != http.StatusConflict || !strings.Contains(got.Body, `<p class="field-error" id="tr-es-slug-error">Is taken by another category in Spanish</p>`) ||
			!strings.Contains(got.Body, `Another category already has the slug “congeladores” in Spanish (es).`) {
			t.Errorf("a Spanish slug taken: %d\n%s", got.Status, got.Body)
		}

		form.Set("tr.es.remove", "on")
		if got := b.post(path, form); got.Status != http.StatusSeeOther {
			t.Fatalf("remove the translation: %d\n%s", got.Status, got.Body)
		}
		if es := read("es"); es.Title != "Fridges" || len(es.Translations) != 0 {
			t.Errorf("after removing the translation: %+v", es)
		}
	})
}

// TestNoTranslationsInOneLocale: a store of one locale shows no
// translation fields, and its pages save as before.
func TestNoTranslationsInOneLocale(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t))
	b := e.browser(t)
	b.mustSignIn()
	var cat struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	for _, p := range []string{"/admin/products/new", "/admin/categories/" + cat.ID} {
		if page := b.get(p); page.Status != http.StatusOK || strings.Contains(page.Body, `id="translations"`) {
			t.Errorf("%s: %d, translations shown in a store of one locale", p, page.Status)
		}
	}
	path := "/admin/categories/" + cat.ID
	if got := b.post(path, url.Values{"csrf": {b.csrf(path)}, "title": {"Cold"}, "slug": {"fridges"}, "parent": {"ROOT"}}); got.Status != http.StatusSeeOther {
		t.Fatalf("save a category: %d\n%s", got.Status, got.Body)
	}
}
