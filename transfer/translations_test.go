package transfer_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

func withLocales(o *app.Options) { o.Locales = commerce.Locales{"en", "es", "pt-BR"} }

// TestImportTranslations: products' translations (docs/api.md section 27)
// go out in product.export as translations.<locale>.title, .description
// and .slug columns (JSON Lines: translations) for each of the store's
// other locales, and come back in by product.import: exported, imported
// into an empty store, the catalogs are equal, on both formats and both
// stores; the same file again is every row unchanged. A column naming a
// locale the store does not have, or the default one, refuses the file,
// naming the column.
func TestImportTranslations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		a := apitest.New(t, db, withLocales)
		var cat struct{ ID string }
		a.Post(t, "/catalog/v1/category.create", a.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
			Must(t).Decode(t, "category", &cat)
		for _, p := range []map[string]any{
			{"sku": "TR-1", "title": "Fridge", "description": "Cold, \"quiet\"\nand big", "translations": map[string]any{
				"es":    map[string]any{"title": "Frigorífico", "description": "Frío, \"silencioso\"\ny grande", "slug": "frigorifico"},
				"pt-BR": map[string]any{"title": "Geladeira"}}},
			{"sku": "TR-2", "title": "Freezer", "translations": map[string]any{"es": map[string]any{"slug": "congelador"}}},
			{"sku": "TR-3", "title": "Plain"},
		} {
			p["status"], p["stockStatus"], p["categories"] = "ONLINE", 0, []string{cat.ID}
			p["prices"] = []map[string]any{{"amount": json.Number("10.00"), "currency": "EUR"}}
			a.Post(t, "/catalog/v1/product.create", a.Admin, p).Must(t)
		}
		want := catalogOf(t, a, false)
		if !strings.Contains(want["TR-1"], `"pt-BR":{"title":"Geladeira"}`) || !strings.Contains(want["TR-2"], `"slug":"congelador"`) {
			t.Fatalf("the source catalog lacks its translations: %v", want)
		}

		_, _, csv := get(t, a, "/catalog/v1/product.export", a.Admin)
		head, _, _ := strings.Cut(csv, "\n")
		if !strings.HasSuffix(head, ",translations.es.title,translations.es.description,translations.es.slug,"+
			"translations.pt-BR.title,translations.pt-BR.description,translations.pt-BR.slug") {
			t.Errorf("CSV header: %s", head)
		}
		_, _, jsonl := get(t, a, "/catalog/v1/product.export?format=jsonl", a.Admin)
		for name, file := range map[string]string{"csv": csv, "jsonl": jsonl} {
			b := apitest.New(t, testdb.Stores[storeIndex(t)].Open(t), withLocales)
			j := importFile(t, b, file, nil)
			if j.Status != transfer.JobDone || j.Created != j.Rows || j.Rows < 3 || j.Rejected != 0 {
				t.Fatalf("%s import: %+v", name, j)
			}
			got := catalogOf(t, b, false)
			for sku, p := range want {
				if got[sku] != p {
					t.Errorf("%s: %s differs:\n%s\n%s", name, sku, p, got[sku])
				}
			}
			if j := importFile(t, b, file, nil); j.Unchanged != j.Rows {
				t.Errorf("%s re-import: %+v, want every row unchanged", name, j)
			}
		}

		// A translated field changed by a file; an empty cell removes it.
		j := importFile(t, a, "sku,translations.es.title,translations.pt-BR.title\nTR-1,Nevera,\n", nil)
		if j.Updated != 1 {
			t.Fatalf("update: %+v", j)
		}
		var p struct {
			Translations map[string]map[string]string `json:"translations"`
		}
		got := catalogOf(t, a, false)["TR-1"]
		if err := json.Unmarshal([]byte(got), &p); err != nil {
			t.Fatal(err)
		}
		if es := p.Translations["es"]; es["title"] != "Nevera" || es["slug"] != "frigorifico" || p.Translations["pt-BR"] != nil {
			t.Errorf("after the update: %v", p.Translations)
		}

		// Unknown locale, default locale: the file is refused, naming the column.
		for _, c := range []struct{ head, want string }{
			{"translations.de.title", `\"translations.de.title\": \"de\" is not a locale of the store`},
			{"translations.en.slug", `\"translations.en.slug\": en is the default locale`},
			{"translations.es.colour", `unknown column \"translations.es.colour\"`},
		} {
			r := upload(t, a, a.Admin, []byte("sku,"+c.head+"\nTR-1,x\n"), nil).Expect(t, 400, "validation_error")
			if !strings.Contains(string(r.Raw), c.want) {
				t.Errorf("%s: %s, want %s", c.head, r.Raw, c.want)
			}
		}
		// JSON Lines: the row is refused (its translations' locale).
		j = importFile(t, a, `{"sku":"TR-1","translations":{"de":{"title":"Kühlschrank"}}}`+"\n", nil)
		if j.Rejected != 1 || len(j.Errors) != 1 || !strings.Contains(strings.Join(toStrings(j.Errors[0].Data), " "), "translations.de") {
			t.Errorf("JSON Lines with an unknown locale: %+v", j)
		}
	})
}
