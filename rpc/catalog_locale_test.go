package rpc_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// localeServer is a service with the locales en (default), es and fr.
func localeServer(t *testing.T, db *sqldb.DB) *apitest.Server {
	return apitest.New(t, db, func(o *app.Options) { o.Locales = commerce.Locales{"en", "es", "fr"} })
}

// read answers a read operation with the query and Accept-Language given.
func read(t *testing.T, s *apitest.Server, op string, q url.Values, acceptLanguage string) apitest.Response {
	t.Helper()
	h := http.Header{}
	if acceptLanguage != "" {
		h.Set("Accept-Language", acceptLanguage)
	}
	return s.DoHeader(t, http.MethodGet, "/catalog/v1/"+op+"?"+q.Encode(), s.API, h, nil)
}

type localized struct {
	ID           string                       `json:"id"`
	Title        string                       `json:"title"`
	Description  *string                      `json:"description"`
	Slug         string                       `json:"slug"`
	Translations map[string]map[string]string `json:"translations"`
	Children     []localized                  `json:"children"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestCatalogLocales: every catalog read of docs/api.md section 27 answers
// the translated title, description and slug of a translated record, the
// default's for a field left untranslated or a locale without a
// translation, and names the locale it chose (argument, then
// Accept-Language with its q-values, then the default); an unknown
// locale is validation_error, in reads and in translations.
func TestCatalogLocales(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := localeServer(t, db)
		cat := s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{
			"title": "Fridges", "slug": "fridges", "description": "Cold things",
			"translations": map[string]any{"es": map[string]any{"title": "Frigoríficos", "slug": "frigorificos"}},
		}).Must(t)
		var c localized
		cat.Decode(t, "category", &c)
		if c.Translations["es"]["title"] != "Frigoríficos" || c.Translations["es"]["slug"] != "frigorificos" {
			t.Fatalf("category.create: translations %v", c.Translations)
		}
		child := s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{
			"title": "Combi", "slug": "combi", "parent": c.ID,
			"translations": map[string]any{"es": map[string]any{"title": "Combinados"}},
		}).Must(t)
		var ch localized
		child.Decode(t, "category", &ch)

		pr := s.Post(t, "/catalog/v1/product.create", s.Admin, map[string]any{
			"sku": "F1", "title": "Combi fridge", "description": "A big fridge", "status": "ONLINE", "stockStatus": 1,
			"categories": []string{c.ID}, "prices": []any{map[string]any{"amount": 100, "currency": "EUR"}},
			"translations": map[string]any{
				"es": map[string]any{"title": "Frigorífico combi", "description": "Un frigorífico grande", "slug": "frigorifico-combi"},
				"fr": map[string]any{"title": "Réfrigérateur combiné"},
			},
		}).Must(t)
		var p localized
		pr.Decode(t, "product", &p)
		plain := s.Post(t, "/catalog/v1/product.create", s.Admin, map[string]any{
			"sku": "P1", "title": "Plain fridge", "status": "ONLINE", "stockStatus": 1, "categories": []string{c.ID},
		}).Must(t)
		var pl localized
		plain.Decode(t, "product", &pl)

		type want struct{ locale, title, description, slug string }
		es := want{"es", "Frigorífico combi", "Un frigorífico grande", "frigorifico-combi"}
		fr := want{"fr", "Réfrigérateur combiné", "A big fridge", ""} // description and slug fall back
		en := want{"en", "Combi fridge", "A big fridge", ""}
		check := func(t *testing.T, what string, r apitest.Response, got localized, w want) {
			t.Helper()
			var locale string
			r.Decode(t, "locale", &locale)
			if locale != w.locale || got.Title != w.title || str(got.Description) != w.description || got.Slug != w.slug {
				t.Errorf("%s: locale %q title %q description %q slug %q, want %+v", what, locale, got.Title, str(got.Description), got.Slug, w)
			}
		}
		for _, tc := range []struct {
			name, arg, header string
			w                 want
		}{
			{"argument", "es", "", es},
			{"argument over header", "es", "fr", es},
			{"header", "", "es-ES,es;q=0.9,en;q=0.8", es},
			{"header q-values", "", "en;q=0.5, fr;q=0.9, de", fr},
			{"header without a store locale", "", "de-DE, it;q=0.9", en},
			{"header refusing with q=0", "", "es;q=0, fr;q=0.1", fr},
			{"default", "", "", en},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := url.Values{"id": {p.ID}}
				if tc.arg != "" {
					q.Set("locale", tc.arg)
				}
				r := read(t, s, "product.info", q, tc.header).Must(t)
				var got localized
				r.Decode(t, "product", &got)
				check(t, "product.info", r, got, tc.w)
			})
		}

		t.Run("product.info with fields", func(t *testing.T) {
			r := read(t, s, "product.info", url.Values{"id": {p.ID}, "locale": {"es"}, "fields": {"title,slug"}}, "").Must(t)
			var got localized
			r.Decode(t, "product", &got)
			check(t, "product.info fields", r, got, want{"es", es.title, "", es.slug})
		})
		t.Run("product.list", func(t *testing.T) {
			r := read(t, s, "product.list", url.Values{"locale": {"es"}}, "").Must(t)
			var got []localized
			r.Decode(t, "data", &got)
			if len(got) != 2 {
				t.Fatalf("%d products: %s", len(got), r.Raw)
			}
			check(t, "product.list translated", r, got[0], es)
			// An untranslated product keeps its own text.
			check(t, "product.list untranslated", r, got[1], want{"es", "Plain fridge", "", ""})
		})
		t.Run("product.search", func(t *testing.T) {
			r := read(t, s, "product.search", url.Values{"q": {"frigo"}, "locale": {"es"}}, "").Must(t)
			var got []localized
			r.Decode(t, "data", &got)
			if len(got) != 1 || got[0].ID != p.ID {
				t.Fatalf("search frigo in es: %s", r.Raw)
			}
			check(t, "product.search", r, got[0], es)
			// The default locale's search does not see the Spanish words;
			// the Spanish one still sees the default's.
			r = read(t, s, "product.search", url.Values{"q": {"frigo"}}, "").Must(t)
			var n int
			r.Decode(t, "total", &n)
			if n != 0 {
				t.Errorf("frigo in en: %s", r.Raw)
			}
			r = read(t, s, "product.search", url.Values{"q": {"big fri"}}, "es").Must(t)
			r.Decode(t, "total", &n)
			if n != 1 {
				t.Errorf("big fri in es: %s", r.Raw)
			}
		})
		t.Run("category.info", func(t *testing.T) {
			r := read(t, s, "category.info", url.Values{"id": {c.ID}, "withChildren": {"true"}}, "es").Must(t)
			var got localized
			r.Decode(t, "category", &got)
			check(t, "category.info", r, got, want{"es", "Frigoríficos", "Cold things", "frigorificos"})
			if len(got.Children) != 1 || got.Children[0].Title != "Combinados" || got.Children[0].Slug != "combi" {
				t.Errorf("category.info children: %+v", got.Children)
			}
			r = read(t, s, "category.info", url.Values{"id": {c.ID}}, "").Must(t)
			got = localized{}
			r.Decode(t, "category", &got)
			check(t, "category.info default", r, got, want{"en", "Fridges", "Cold things", "fridges"})
		})
		t.Run("category.list", func(t *testing.T) {
			r := read(t, s, "category.list", url.Values{"parent": {c.ID}, "locale": {"es"}}, "").Must(t)
			var got []localized
			r.Decode(t, "data", &got)
			if len(got) != 1 {
				t.Fatalf("category.list: %s", r.Raw)
			}
			check(t, "category.list", r, got[0], want{"es", "Combinados", "", "combi"})
			r = read(t, s, "category.list", url.Values{"parent": {c.ID}, "locale": {"fr"}}, "").Must(t)
			got = nil
			r.Decode(t, "data", &got)
			check(t, "category.list untranslated", r, got[0], want{"fr", "Combi", "", "combi"})
		})

		t.Run("unknown locale", func(t *testing.T) {
			for _, op := range []string{"product.info", "product.list", "product.search", "category.info", "category.list"} {
				r := read(t, s, op, url.Values{"id": {p.ID}, "locale": {"de"}}, "").Expect(t, http.StatusBadRequest, commerce.EValidation)
				if !json.Valid(r.Raw) {
					t.Fatal(string(r.Raw))
				}
			}
			for _, body := range []map[string]any{
				{"id": p.ID, "translations": map[string]any{"de": map[string]any{"title": "Kühlschrank"}}},
				{"id": p.ID, "translations": map[string]any{"en": map[string]any{"title": "Default"}}},
			} {
				s.Post(t, "/catalog/v1/product.update", s.Admin, body).Expect(t, http.StatusBadRequest, commerce.EValidation)
			}
			s.Post(t, "/catalog/v1/category.update", s.Admin, map[string]any{"id": c.ID,
				"translations": map[string]any{"xx": map[string]any{"title": "?"}}}).Expect(t, http.StatusBadRequest, commerce.EValidation)
			// Nothing changed.
			r := read(t, s, "product.info", url.Values{"id": {p.ID}, "locale": {"es"}}, "").Must(t)
			var got localized
			r.Decode(t, "product", &got)
			if len(got.Translations) != 2 || got.Title != es.title {
				t.Errorf("after refused updates: %s", r.Raw)
			}
		})

		t.Run("slugs unique per locale", func(t *testing.T) {
			r := s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": pl.ID,
				"translations": map[string]any{"es": map[string]any{"slug": "frigorifico-combi"}}}).Expect(t, http.StatusConflict, commerce.EDuplicateKey)
			var data map[string]any
			r.Decode(t, "data", &data)
			if data["index"] != "locale_slug" || data["locale"] != "es" || data["slug"] != "frigorifico-combi" {
				t.Errorf("duplicate data %v", data)
			}
			// The same slug in another locale is another slug.
			s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": pl.ID,
				"translations": map[string]any{"fr": map[string]any{"slug": "frigorifico-combi"}}}).Must(t)
			s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Other", "slug": "other",
				"translations": map[string]any{"es": map[string]any{"slug": "frigorificos"}}}).Expect(t, http.StatusConflict, commerce.EDuplicateKey)
			// A product's slug does not collide with a category's.
			s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": pl.ID,
				"translations": map[string]any{"es": map[string]any{"slug": "frigorificos"}}}).Must(t)
			// Freed by an update, a slug can be taken again.
			s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": p.ID,
				"translations": map[string]any{"es": map[string]any{"slug": "combi-nuevo"}}}).Must(t)
			s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": pl.ID,
				"translations": map[string]any{"es": map[string]any{"slug": "frigorifico-combi"}}}).Must(t)
		})

		t.Run("update merges a locale's fields, null removes the locale", func(t *testing.T) {
			s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": p.ID,
				"translations": map[string]any{"es": map[string]any{"title": "Nevera combi"}, "fr": nil}}).Must(t)
			r := read(t, s, "product.info", url.Values{"id": {p.ID}, "locale": {"es"}}, "").Must(t)
			var got localized
			r.Decode(t, "product", &got)
			check(t, "after update", r, got, want{"es", "Nevera combi", es.description, "combi-nuevo"})
			if _, ok := got.Translations["fr"]; ok {
				t.Errorf("fr not removed: %v", got.Translations)
			}
			// The search index follows: the new Spanish title is found,
			// the removed French one is not.
			r = read(t, s, "product.search", url.Values{"q": {"nevera"}, "locale": {"es"}}, "").Must(t)
			var n int
			r.Decode(t, "total", &n)
			if n != 1 {
				t.Errorf("nevera in es: %s", r.Raw)
			}
			r = read(t, s, "product.search", url.Values{"q": {"refrigerateur"}, "locale": {"fr"}}, "").Must(t)
			r.Decode(t, "total", &n)
			if n != 0 {
				t.Errorf("refrigerateur in fr after removal: %s", r.Raw)
			}
		})
	})
}
