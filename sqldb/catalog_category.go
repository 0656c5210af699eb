package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

const catalogCategoryColumns = `id, parent, slug, title, description, level, path, classifications, translations`

func catalogScanCategories(rows *sql.Rows) ([]*catalog.Category, error) {
	defer rows.Close()
	var out []*catalog.Category
	for rows.Next() {
		c := new(catalog.Category)
		var parent, description sql.NullString
		var classifications, translations string
		if err := rows.Scan(&c.ID, &parent, &c.Slug, &c.Title, &description, &c.Level, &c.Path, &classifications, &translations); err != nil {
			return nil, err
		}
		tr, err := decodeTranslations(translations)
		if err != nil {
			return nil, fmt.Errorf("category %s: %w", c.ID, err)
		}
		c.Translations = tr
		c.Parent = parent.String
		if description.Valid {
			c.Description = &description.String
		}
		if err := json.Unmarshal([]byte(classifications), &c.Classifications); err != nil {
			return nil, fmt.Errorf("category %s classifications: %w", c.ID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Category returns a category (catalog.Store).
func (s *CatalogStore) Category(ctx context.Context, id string) (*catalog.Category, error) {
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("category %s: %w", id, err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("category %s: %w", id, s.db.translate(err))
	}
	if len(cs) == 0 {
		return nil, catalog.CategoryNotFound(id)
	}
	return cs[0], nil
}

// CatalogPathPrefix returns the condition (and its arguments) that selects
// the categories whose path starts with prefix, written so that the
// categories_path index serves it: a bytewise range of the path
// (Dialect.ByteRange), prefix <= path < prefix with its last byte
// incremented. prefix must not be empty and must not end with byte 0xFF
// (paths are ids and dots).
func CatalogPathPrefix(d Dialect, prefix string) (cond string, args []any) {
	upper := []byte(prefix)
	upper[len(upper)-1]++
	return d.ByteRange("path"), []any{prefix, string(upper)}
}

// Descendants returns the subtree below c (catalog.Store).
func (s *CatalogStore) Descendants(ctx context.Context, c *catalog.Category) ([]*catalog.Category, error) {
	cond, args := CatalogPathPrefix(s.db.dialect, c.Path+".")
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE `+cond+` ORDER BY level, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("category %s descendants: %w", c.ID, err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("category %s descendants: %w", c.ID, s.db.translate(err))
	}
	return cs, nil
}

// Children returns the direct children of category id (catalog.Store), on
// the (parent, slug) index.
func (s *CatalogStore) Children(ctx context.Context, id string) ([]*catalog.Category, error) {
	rows, err := s.db.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE parent = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("category %s children: %w", id, err)
	}
	cs, err := catalogScanCategories(rows)
	if err != nil {
		return nil, fmt.Errorf("category %s children: %w", id, s.db.translate(err))
	}
	if cs == nil {
		cs = []*catalog.Category{}
	}
	return cs, nil
}

// LockTree locks the ROOT category's row (catalog.Tx): every change of the
// tree takes it first, so they run one at a time across processes (SQLite
// serialises all writes already).
func (t catalogTx) LockTree(ctx context.Context) error {
	var id string
	err := t.tx.QueryRow(ctx, `SELECT id FROM categories WHERE id = ?`+t.tx.ForUpdate(), catalog.RootID).Scan(&id)
	if err != nil {
		return fmt.Errorf("lock category tree: %w", t.tx.db.NotFound(err, catalog.CategoryNotFound(catalog.RootID)))
	}
	return nil
}

// Categories returns the categories that exist among ids (catalog.Tx).
func (t catalogTx) Categories(ctx context.Context, ids []string) (map[string]*catalog.Category, error) {
	out := make(map[string]*catalog.Category, len(ids))
	for _, chunk := range catalogChunks(ids) {
		rows, err := t.tx.Query(ctx, `SELECT `+catalogCategoryColumns+` FROM categories WHERE id IN (`+Placeholders(len(chunk))+`)`, catalogArgs(chunk)...)
		if err != nil {
			return nil, fmt.Errorf("categories: %w", err)
		}
		cs, err := catalogScanCategories(rows)
		if err != nil {
			return nil, fmt.Errorf("categories: %w", t.tx.Translate(err))
		}
		for _, c := range cs {
			out[c.ID] = c
		}
	}
	return out, nil
}

// CategoryUse reports children and products of a category (catalog.Tx).
func (t catalogTx) CategoryUse(ctx context.Context, id string) (children, products bool, err error) {
	var c, p int
	err = t.tx.QueryRow(ctx, `SELECT
		CASE WHEN EXISTS (SELECT 1 FROM categories WHERE parent = ?) THEN 1 ELSE 0 END,
		CASE WHEN EXISTS (SELECT 1 FROM product_categories WHERE category_id = ?) THEN 1 ELSE 0 END`, id, id).Scan(&c, &p)
	if err != nil {
		return false, false, fmt.Errorf("category %s use: %w", id, t.tx.Translate(err))
	}
	return c == 1, p == 1, nil
}

func catalogSlugDuplicate(err error, c *catalog.Category) error {
	if commerce.ErrorCode(err) == commerce.EDuplicateKey {
		return &commerce.Error{Code: commerce.EDuplicateKey, Message: err.Error(),
			Data: map[string]any{"index": "parent_slug", "parent": c.Parent, "slug": c.Slug}}
	}
	return err
}

func catalogDescription(d *string) any {
	if d == nil {
		return nil
	}
	return *d
}

// CreateCategory inserts a category (catalog.Tx).
func (t catalogTx) CreateCategory(ctx context.Context, c *catalog.Category) error {
	defs, err := json.Marshal(catalogDefs(c.Classifications))
	if err != nil {
		return err
	}
	tr, err := encodeTranslations(c.Translations)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO categories (`+catalogCategoryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, catalogNull(c.Parent), c.Slug, c.Title, catalogDescription(c.Description), c.Level, c.Path, string(defs), tr)
	if IsForeignKey(err) {
		return commerce.NewError(commerce.EParentCategoryNotFound, c.Parent)
	}
	if err != nil {
		return fmt.Errorf("create category: %w", catalogSlugDuplicate(err, c))
	}
	return t.writeSlugs(ctx, slugKindCategory, []slugOwner{{c.ID, c.Translations}})
}

func catalogDefs(d []catalog.ClassificationDef) []catalog.ClassificationDef {
	if d == nil {
		return []catalog.ClassificationDef{}
	}
	return d
}

// UpdateCategory stores a category and moves its subtree (catalog.Tx).
func (t catalogTx) UpdateCategory(ctx context.Context, old, c *catalog.Category) error {
	defs, err := json.Marshal(catalogDefs(c.Classifications))
	if err != nil {
		return err
	}
	tr, err := encodeTranslations(c.Translations)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `UPDATE categories SET parent = ?, slug = ?, title = ?, description = ?, level = ?, path = ?, classifications = ?, translations = ? WHERE id = ?`,
		catalogNull(c.Parent), c.Slug, c.Title, catalogDescription(c.Description), c.Level, c.Path, string(defs), tr, c.ID)
	if IsForeignKey(err) {
		return commerce.NewError(commerce.EParentCategoryNotFound, c.Parent)
	}
	if err != nil {
		return fmt.Errorf("update category: %w", catalogSlugDuplicate(err, c))
	}
	if err := t.writeSlugs(ctx, slugKindCategory, []slugOwner{{c.ID, c.Translations}}); err != nil {
		return err
	}
	if c.Path != old.Path {
		oldPrefix, newPrefix := old.Path+".", c.Path+"."
		cond, args := CatalogPathPrefix(t.tx.db.dialect, oldPrefix)
		d := t.tx.db.dialect
		_, err = t.tx.Exec(ctx, `UPDATE categories SET path = `+d.Concat(d.CastText("?"), "substr(path, ?)")+`, level = level + ?
			WHERE `+cond, append([]any{newPrefix, len(oldPrefix) + 1, c.Level - old.Level}, args...)...)
		if err != nil {
			return fmt.Errorf("move category subtree: %w", err)
		}
	}
	return nil
}

// RemoveCategory deletes a category (catalog.Tx).
func (t catalogTx) RemoveCategory(ctx context.Context, id string) error {
	r, err := t.tx.Exec(ctx, `DELETE FROM categories WHERE id = ?`, id)
	if IsForeignKey(err) {
		return commerce.NewError(commerce.ECategoryNotEmpty, id)
	}
	if err != nil {
		return fmt.Errorf("remove category: %w", err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return fmt.Errorf("remove category: rows affected: %w", err)
	}
	if n == 0 {
		return catalog.CategoryNotFound(id)
	}
	return t.removeSlugs(ctx, slugKindCategory, id)
}
