package catalog

import (
	"context"
	"maps"

	"github.com/commercekit/commerce"
)

// Translation is a record's text in one locale other than the default
// (docs/api.md section 27): any subset of the fields; an empty field falls
// back to the default's on reads.
type Translation struct {
	// Title is the record's name in the locale.
	Title string `json:"title,omitempty"`
	// Description is the record's text in the locale.
	Description string `json:"description,omitempty"`
	// Slug is the record's name in the locale's URLs, unique among the
	// records of its kind in that locale (duplicate_key).
	Slug string `json:"slug,omitempty"`
}

// TranslationInput is a translation as product.create, product.update,
// category.create and category.update take it.
type TranslationInput struct {
	// Title is the record's name in the locale ("" removes it).
	Title *string `json:"title,omitempty"`
	// Description is the record's text in the locale ("" removes it).
	Description *string `json:"description,omitempty"`
	// Slug is the record's name in the locale's URLs, unique per locale
	// ("" removes it).
	Slug *string `json:"slug,omitempty"`
}

// Translations are a record's translations by locale.
type Translations map[string]Translation

// TranslationsInput are the translations given, by locale: each given
// locale's fields replace that locale's (the fields not given are kept);
// null for a locale removes its translation.
type TranslationsInput map[string]*TranslationInput

// applyTranslations merges in into cur (a copy) and checks the locales
// against the store's: every key must be one of them and not the default
// (whose text is the record's own fields). Problems are added at
// translations.<locale>.
func applyTranslations(cur Translations, in TranslationsInput, locales commerce.Locales, ps *commerce.Problems) Translations {
	out := maps.Clone(cur)
	if out == nil {
		out = Translations{}
	}
	for locale, t := range in {
		path := "translations." + locale
		canon, ok := locales.Canonical(locale)
		if !ok {
			ps.Add(path, "not a locale of the store (%s)", joinLocales(locales))
			continue
		}
		if canon == locales.Default() {
			ps.Add(path, "the default locale's text is the record's own title, description and slug")
			continue
		}
		if t == nil {
			delete(out, canon)
			continue
		}
		tr := out[canon]
		if t.Title != nil {
			tr.Title = *t.Title
		}
		if t.Description != nil {
			tr.Description = *t.Description
		}
		if t.Slug != nil {
			tr.Slug = commerce.Key(*t.Slug)
		}
		if tr == (Translation{}) {
			delete(out, canon)
		} else {
			out[canon] = tr
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func joinLocales(l commerce.Locales) string {
	s := ""
	for i, x := range l.All() {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// ReadLocale returns the locale of a read (docs/api.md section 27): arg
// when given (validation_error when it is not one of the store's), else
// the request's Accept-Language, else the default.
func (s *Service) ReadLocale(ctx context.Context, arg *string) (string, error) {
	return s.Locales.Resolve(ctx, arg)
}

// Localized returns the product as read in locale: title, description and
// slug from its translation, field by field, falling back to the
// default's; p itself when locale has no translation. The translations
// themselves stay in the answer.
func (p *Product) Localized(locale string) *Product {
	t, ok := p.Translations[locale]
	if !ok {
		return p
	}
	c := *p
	if t.Title != "" {
		c.Title = t.Title
	}
	if t.Description != "" {
		c.Description = t.Description
	}
	if t.Slug != "" {
		c.Slug = t.Slug
	}
	return &c
}

// Localized returns the category as read in locale, as Product.Localized;
// its children (when listed) are localized too.
func (c *Category) Localized(locale string) *Category {
	t, ok := c.Translations[locale]
	if !ok && len(c.Children) == 0 {
		return c
	}
	out := *c
	if t.Title != "" {
		out.Title = t.Title
	}
	if t.Description != "" {
		d := t.Description
		out.Description = &d
	}
	if t.Slug != "" {
		out.Slug = t.Slug
	}
	if c.Children != nil {
		out.Children = make([]*Category, len(c.Children))
		for i, ch := range c.Children {
			out.Children[i] = ch.Localized(locale)
		}
	}
	return &out
}

// LocalizeProducts returns the products as read in locale.
func LocalizeProducts(ps []*Product, locale string) []*Product {
	out := make([]*Product, len(ps))
	for i, p := range ps {
		out[i] = p.Localized(locale)
	}
	return out
}

// LocalizeCategories returns the categories as read in locale.
func LocalizeCategories(cs []*Category, locale string) []*Category {
	out := make([]*Category, len(cs))
	for i, c := range cs {
		out[i] = c.Localized(locale)
	}
	return out
}

// SlugDuplicate is the duplicate_key of a translated slug taken by another
// record of the same kind in that locale: data {index: "locale_slug",
// locale, slug}.
func SlugDuplicate(locale, slug string) *commerce.Error {
	return &commerce.Error{Code: commerce.EDuplicateKey, Message: "slug " + slug + " is taken in locale " + locale,
		Data: map[string]any{"index": "locale_slug", "locale": locale, "slug": slug}}
}
