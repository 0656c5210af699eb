package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
)

// Languages (docs/api.md section 27): a product's translations are kept in
// its stored form and, as the search index reads them, in the columns
// i18n_title and i18n_text (every word marked with its locale,
// search.LocaleText); a category's in its column translations. Translated
// slugs are unique per kind and locale: catalog_slugs holds each with its
// owner, written in the record's transaction.

// Kinds of catalog_slugs rows.
const (
	slugKindProduct  = "product"
	slugKindCategory = "category"
)

// catalogI18n returns the values of the columns i18n_title and i18n_text
// of a product (NULL without translations), the locales in order so that
// an unchanged product writes the same text.
func catalogI18n(p *catalog.Product) (title, text any) {
	if len(p.Translations) == 0 {
		return nil, nil
	}
	locales := make([]string, 0, len(p.Translations))
	for l := range p.Translations {
		locales = append(locales, l)
	}
	slices.Sort(locales)
	var ti, tx []string
	for _, l := range locales {
		t := p.Translations[l]
		if s := search.LocaleText(l, t.Title); s != "" {
			ti = append(ti, s)
		}
		if s := search.LocaleText(l, t.Description); s != "" {
			tx = append(tx, s)
		}
	}
	join := func(parts []string) any {
		if len(parts) == 0 {
			return nil
		}
		s := parts[0]
		for _, p := range parts[1:] {
			s += " " + p
		}
		return s
	}
	return join(ti), join(tx)
}

// slugOwner is a record whose translated slugs are written.
type slugOwner struct {
	id           string
	translations catalog.Translations
}

// writeSlugs replaces the translated slugs of the owners of kind: a slug
// another record of the kind holds in the locale (or another owner of the
// batch) is duplicate_key (catalog.SlugDuplicate).
func (t catalogTx) writeSlugs(ctx context.Context, kind string, owners []slugOwner) error {
	type key struct{ locale, slug string }
	var rows [][]any
	mine := map[key]string{}
	var ids []string
	for _, o := range owners {
		ids = append(ids, o.id)
		for locale, tr := range o.translations {
			if tr.Slug == "" {
				continue
			}
			k := key{locale, tr.Slug}
			if other, ok := mine[k]; ok && other != o.id {
				return catalog.SlugDuplicate(locale, tr.Slug)
			}
			mine[k] = o.id
			rows = append(rows, []any{kind, locale, tr.Slug, o.id})
		}
	}
	for _, chunk := range catalogChunks(ids) {
		if _, err := t.tx.Exec(ctx, `DELETE FROM catalog_slugs WHERE kind = ? AND owner IN (`+Placeholders(len(chunk))+`)`,
			append([]any{kind}, catalogArgs(chunk)...)...); err != nil {
			return fmt.Errorf("translated slugs: %w", err)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	// Name the slug taken, if one is (the unique key would not say which).
	for k := range mine {
		var owner string
		err := t.tx.QueryRow(ctx, `SELECT owner FROM catalog_slugs WHERE kind = ? AND locale = ? AND slug = ?`, kind, k.locale, k.slug).Scan(&owner)
		if err == nil {
			return catalog.SlugDuplicate(k.locale, k.slug)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("translated slugs: %w", t.tx.Translate(err))
		}
	}
	err := t.insertRows(ctx, `INSERT INTO catalog_slugs (kind, locale, slug, owner) VALUES `, 4, rows)
	if err != nil && commerce.ErrorCode(t.tx.Translate(err)) == commerce.EDuplicateKey {
		// Taken by a transaction that committed meanwhile.
		k := rows[0]
		return catalog.SlugDuplicate(k[1].(string), k[2].(string))
	}
	if err != nil {
		return fmt.Errorf("translated slugs: %w", err)
	}
	return nil
}

// removeSlugs deletes the translated slugs of a record of kind.
func (t catalogTx) removeSlugs(ctx context.Context, kind, id string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM catalog_slugs WHERE kind = ? AND owner = ?`, kind, id); err != nil {
		return fmt.Errorf("translated slugs: %w", err)
	}
	return nil
}

// encodeTranslations returns the column translations of a category.
func encodeTranslations(tr catalog.Translations) (string, error) {
	if len(tr) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(tr)
	if err != nil {
		return "", fmt.Errorf("translations: %w", err)
	}
	return string(b), nil
}

// decodeTranslations reads the column translations of a category (nil
// when it holds none).
func decodeTranslations(s string) (catalog.Translations, error) {
	if s == "" || s == "{}" {
		return nil, nil
	}
	var tr catalog.Translations
	if err := json.Unmarshal([]byte(s), &tr); err != nil {
		return nil, fmt.Errorf("translations: %w", err)
	}
	if len(tr) == 0 {
		return nil, nil
	}
	return tr, nil
}
