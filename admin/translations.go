package admin

import (
	"maps"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/commercekit/commerce"
)

// Translations on the product and category pages (docs/api.md section 27).
// For each of the store's locales but the default (Options.Locales), the
// form has the record's title, slug and description in that locale beside
// the default text (shown as each field's placeholder: what a reader of
// that locale sees while the field is empty), and a box that removes the
// locale's translation. The form's fields are named tr.<locale>.<field>;
// their elements tr-<locale>-<field>.
//
// Saving sends every translated locale's three fields to product.update or
// category.update (an empty field removes that field's translation, so a
// locale whose fields are all emptied has no translation left), and null
// for a locale whose box is ticked. A store of one locale shows and sends
// no translations.

// translationField is one field of a locale's translation in its form.
type translationField struct {
	ID, Name, Value string
}

// translationRow is one locale's translation as its form shows it.
type translationRow struct {
	Locale string
	// Language is the locale's name in English ("Spanish").
	Language                         string
	Title, Slug, Description, Remove translationField
}

// translationLocales are the store's locales whose text is translated:
// all but the default.
func (h *Handler) translationLocales() []string {
	all := h.opts.Locales.All()
	return all[1:]
}

// languageName names a locale in English ("Spanish", "Brazilian
// Portuguese"), or gives the tag itself when it names no known language.
func languageName(locale string) string {
	tag, err := language.Parse(locale)
	if err != nil {
		return locale
	}
	if n := display.English.Tags().Name(tag); n != "" {
		return n
	}
	return locale
}

func trName(locale, field string) string { return "tr." + locale + "." + field }
func trID(locale, field string) string   { return "tr-" + locale + "-" + field }

// addTranslations puts the translation rows of the form's values on a
// product or category page (Data "translations").
func (h *Handler) addTranslations(p *page, f url.Values) {
	var rows []translationRow
	for _, l := range h.translationLocales() {
		fl := func(name string) translationField {
			return translationField{ID: trID(l, name), Name: trName(l, name), Value: f.Get(trName(l, name))}
		}
		rows = append(rows, translationRow{Locale: l, Language: languageName(l),
			Title: fl("title"), Slug: fl("slug"), Description: fl("description"), Remove: fl("remove")})
	}
	if rows != nil {
		p.Data["translations"] = rows
	}
}

// translationValues adds a record's translations (its answer's
// "translations") to its form's values.
func translationValues(f url.Values, record map[string]any) {
	trs, _ := record["translations"].(map[string]any)
	for locale, x := range trs {
		t, _ := x.(map[string]any)
		for _, k := range []string{"title", "description", "slug"} {
			if v, ok := t[k].(string); ok {
				f.Set(trName(locale, k), v)
			}
		}
	}
}

// addTranslationArgs puts the form's translations in the arguments of
// product.create, product.update, category.create or category.update
// (none in a store of one locale).
func (h *Handler) addTranslationArgs(args map[string]any, f url.Values) {
	locales := h.translationLocales()
	if len(locales) == 0 {
		return
	}
	trs := map[string]any{}
	for _, l := range locales {
		if f.Get(trName(l, "remove")) == "on" {
			trs[l] = nil
			continue
		}
		trs[l] = map[string]any{"title": strings.TrimSpace(f.Get(trName(l, "title"))),
			"slug": strings.TrimSpace(f.Get(trName(l, "slug"))), "description": f.Get(trName(l, "description"))}
	}
	args["translations"] = trs
}

// withTranslations adds the translation fields to a form's spec, so that
// the API's problems at translations.<locale>.<field> are shown at their
// fields.
func (h *Handler) withTranslations(spec formSpec) formSpec {
	spec.Fields = maps.Clone(spec.Fields) // a page's spec may be shared
	if spec.Fields == nil {
		spec.Fields = map[string]field{}
	}
	for _, l := range h.translationLocales() {
		lang := languageName(l)
		spec.Fields["translations."+l] = field{trID(l, "title"), lang + " translation"}
		for _, k := range []struct{ name, label string }{{"title", "title"}, {"slug", "slug"}, {"description", "description"}} {
			spec.Fields["translations."+l+"."+k.name] = field{trID(l, k.name), lang + " " + k.label}
		}
	}
	return spec
}

// failTranslated renders a product or category page (kind "product" or
// "category") whose form failed, as fail does, and places a translated
// slug taken by another record of the kind in that locale (duplicate_key
// of index locale_slug, which names no field path) at that locale's slug
// field.
func (h *Handler) failTranslated(w http.ResponseWriter, r *http.Request, name string, p page, spec formSpec, kind string, err error) {
	p.failed(h.withTranslations(spec), err)
	if d, ok := plainData(err).(map[string]any); ok && commerce.ErrorCode(err) == commerce.EDuplicateKey && d["index"] == "locale_slug" {
		locale, _ := d["locale"].(string)
		slug, _ := d["slug"].(string)
		lang := languageName(locale)
		p.Error.Sentence = "Another " + kind + " already has the slug “" + slug + "” in " + lang + " (" + locale + ")."
		p.Error.Problems = append(p.Error.Problems, problem{Field: trID(locale, "slug"), Label: lang + " slug",
			Text: "is taken by another " + kind + " in " + lang})
	}
	h.render(w, r, statusOf(err), name, p)
}
