package search_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestCategoryFacetInLocale: product.search's categories facet titles
// each category in the reader's locale (the locale argument, else
// Accept-Language), its default title when it has no translation in that
// locale or no translated title, and by its default title for a reader of
// the default locale; the facet is sorted by count, then by the titles
// answered. On both stores.
func TestCategoryFacetInLocale(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db, func(o *app.Options) { o.Locales = commerce.Locales{"en", "es", "fr"} })
		category := func(title, slug string, tr map[string]any) string {
			args := map[string]any{"title": title, "slug": slug, "parent": "ROOT"}
			if tr != nil {
				args["translations"] = tr
			}
			var c struct{ ID string }
			srv.Post(t, "/catalog/v1/category.create", srv.Admin, args).Must(t).Decode(t, "category", &c)
			return c.ID
		}
		fridges := category("Fridges", "fridges", map[string]any{"es": map[string]any{"title": "Frigoríficos"},
			"fr": map[string]any{"slug": "refrigerateurs"}}) // no French title: the default's
		ovens := category("Ovens", "ovens", map[string]any{"es": map[string]any{"title": "Hornos"}})
		freezers := category("Freezers", "freezers", nil)
		for i, cats := range [][]string{{fridges}, {fridges, ovens}, {ovens}, {freezers}, {fridges}} {
			srv.Post(t, "/catalog/v1/product.create", srv.Admin, map[string]any{"sku": "K-" + string(rune('A'+i)), "status": "ONLINE",
				"title": "Kitchen thing", "stockStatus": 1, "categories": cats}).Must(t)
		}
		facet := func(q url.Values, acceptLanguage string) (string, []string) {
			t.Helper()
			q.Set("q", "kitchen")
			q.Set("facets", "categories")
			h := http.Header{}
			if acceptLanguage != "" {
				h.Set("Accept-Language", acceptLanguage)
			}
			r := srv.DoHeader(t, http.MethodGet, "/catalog/v1/product.search?"+q.Encode(), srv.API, h, nil).Must(t)
			var locale string
			r.Decode(t, "locale", &locale)
			var f struct {
				Categories []struct {
					ID, Title string
					Count     int
				}
			}
			r.Decode(t, "facets", &f)
			var got []string
			for _, c := range f.Categories {
				got = append(got, c.Title+":"+string(rune('0'+c.Count)))
			}
			return locale, got
		}
		for _, tc := range []struct {
			name, locale, acceptLanguage, wantLocale string
			want                                     []string
		}{
			{"default", "", "", "en", []string{"Fridges:3", "Ovens:2", "Freezers:1"}},
			{"es argument", "es", "", "es", []string{"Frigoríficos:3", "Hornos:2", "Freezers:1"}},
			{"es by Accept-Language", "", "es-ES,es;q=0.9", "es", []string{"Frigoríficos:3", "Hornos:2", "Freezers:1"}},
			{"fr: no titles translated", "fr", "", "fr", []string{"Fridges:3", "Ovens:2", "Freezers:1"}},
			{"en argument over Accept-Language", "en", "es", "en", []string{"Fridges:3", "Ovens:2", "Freezers:1"}},
		} {
			q := url.Values{}
			if tc.locale != "" {
				q.Set("locale", tc.locale)
			}
			locale, got := facet(q, tc.acceptLanguage)
			if locale != tc.wantLocale || !slices.Equal(got, tc.want) {
				t.Errorf("%s: locale %s, facet %q; want %s, %q", tc.name, locale, got, tc.wantLocale, tc.want)
			}
		}

		// Equal counts: sorted by the title answered (in Spanish the
		// fridges, renamed Neveras, come after Hornos; in English before
		// Ovens).
		srv.Post(t, "/catalog/v1/product.create", srv.Admin, map[string]any{"sku": "K-Z", "status": "ONLINE",
			"title": "Kitchen thing", "stockStatus": 1, "categories": []string{ovens}}).Must(t)
		srv.Post(t, "/catalog/v1/category.update", srv.Admin, map[string]any{"id": fridges,
			"translations": map[string]any{"es": map[string]any{"title": "Neveras"}}}).Must(t)
		if _, got := facet(url.Values{"locale": {"es"}}, ""); !slices.Equal(got, []string{"Hornos:3", "Neveras:3", "Freezers:1"}) {
			t.Errorf("es, equal counts, a title changed: %q", got)
		}
		if _, got := facet(url.Values{}, ""); !slices.Equal(got, []string{"Fridges:3", "Ovens:3", "Freezers:1"}) {
			t.Errorf("en, equal counts: %q", got)
		}
	})
}
