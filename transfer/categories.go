package transfer

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/loader"
)

// categoryIndex finds categories by their title path from the root, and
// creates those a file names that the store does not have (each with a
// slug made from its title, unique among its siblings). Categories made
// in a transaction are pending until it commits.
type categoryIndex struct {
	byKey   map[string]*catalog.Category // parent id + "\x00" + title
	byID    map[string]*catalog.Category
	slugs   map[string]map[string]bool // parent id -> slugs of its children
	pending []*catalog.Category
	saved   []savedCategory // categories changed in the transaction, as they were
	locked  bool
}

type savedCategory struct {
	c   *catalog.Category
	was catalog.Category
}

func newCategoryIndex(cs []*catalog.Category) *categoryIndex {
	x := &categoryIndex{byKey: map[string]*catalog.Category{}, byID: map[string]*catalog.Category{}, slugs: map[string]map[string]bool{}}
	for _, c := range cs {
		x.add(c)
	}
	return x
}

func titleKey(parent, title string) string {
	return parent + "\x00" + commerce.Key(strings.TrimSpace(title))
}

func (x *categoryIndex) add(c *catalog.Category) {
	x.byID[c.ID] = c
	if c.Parent == "" {
		return
	}
	if k := titleKey(c.Parent, c.Title); x.byKey[k] == nil {
		x.byKey[k] = c
	}
	if x.slugs[c.Parent] == nil {
		x.slugs[c.Parent] = map[string]bool{}
	}
	x.slugs[c.Parent][c.Slug] = true
}

func (x *categoryIndex) forget(c *catalog.Category) {
	delete(x.byID, c.ID)
	if k := titleKey(c.Parent, c.Title); x.byKey[k] == c {
		delete(x.byKey, k)
	}
	delete(x.slugs[c.Parent], c.Slug)
	for i, p := range x.pending {
		if p == c {
			x.pending = append(x.pending[:i], x.pending[i+1:]...)
			break
		}
	}
}

// begin starts a transaction's work (a retried transaction starts again).
func (x *categoryIndex) begin() {
	x.rollback()
	x.locked = false
}

func (x *categoryIndex) rollback() {
	for i := len(x.saved) - 1; i >= 0; i-- {
		sv := x.saved[i]
		delete(x.slugs[sv.c.Parent], sv.c.Slug)
		*sv.c = sv.was
		x.slugs[sv.c.Parent][sv.was.Slug] = true
	}
	x.saved = nil
	for _, c := range append([]*catalog.Category(nil), x.pending...) {
		x.forget(c)
	}
	x.pending = nil
}

func (x *categoryIndex) pendingList() []*catalog.Category {
	return append([]*catalog.Category(nil), x.pending...)
}

func (x *categoryIndex) commit([]*catalog.Category) { x.pending, x.saved = nil, nil }

// path returns a category's title path from the root.
func (x *categoryIndex) path(id string) []string {
	var out []string
	for c := x.byID[id]; c != nil && c.Parent != ""; c = x.byID[c.Parent] {
		out = append([]string{c.Title}, out...)
	}
	return out
}

// resolve returns the ids of the categories at the paths, creating those
// missing (made lists them, parents first).
func (x *categoryIndex) resolve(ctx context.Context, tx Tx, paths [][]string, now time.Time) (ids []string, made []*catalog.Category, err error) {
	seen := map[string]bool{}
	for _, path := range paths {
		parent := x.byID[catalog.RootID]
		if parent == nil {
			return nil, made, catalog.CategoryNotFound(catalog.RootID)
		}
		for _, title := range path {
			title = strings.TrimSpace(title)
			c := x.byKey[titleKey(parent.ID, title)]
			if c == nil {
				if !x.locked {
					if err := tx.Catalog().LockTree(ctx); err != nil {
						return nil, made, &writeError{err}
					}
					x.locked = true
				}
				if len(title) > commerce.MaxTitleLen {
					return nil, made, commerce.Invalid("categories: a title is longer than " + strconv.Itoa(commerce.MaxTitleLen) + " characters")
				}
				id := commerce.NewID()
				c = &catalog.Category{ID: id, Title: title, Slug: x.slug(parent.ID, title), Parent: parent.ID,
					Classifications: []catalog.ClassificationDef{}, Level: parent.Level + 1, Path: parent.Path + "." + id}
				if err := tx.Catalog().CreateCategory(ctx, c); err != nil {
					return nil, made, &writeError{err}
				}
				x.add(c)
				x.pending = append(x.pending, c)
				made = append(made, c)
			}
			parent = c
		}
		if !seen[parent.ID] && parent.ID != catalog.RootID {
			seen[parent.ID] = true
			ids = append(ids, parent.ID)
		}
	}
	_ = now
	return ids, made, nil
}

// slug makes a slug from a title, unique among the parent's children.
func (x *categoryIndex) slug(parent, title string) string {
	base := commerce.Key(loader.Slug(title))
	if base == "" {
		base = "category"
	}
	s := base
	for n := 2; x.slugs[parent][s]; n++ {
		s = base + "-" + strconv.Itoa(n)
	}
	return s
}

// category writes a category line: the category at the path is created
// (its ancestors too, when missing) or changed to the fields given.
func (w *batchWriter) category(ctx context.Context, r *Row) (int, error) {
	now := w.s.now()
	x := w.idx
	path := r.Category.Path
	var parent *catalog.Category
	var made []*catalog.Category
	if len(path) > 0 {
		ids, m, err := x.resolve(ctx, w.tx, [][]string{path[:len(path)-1]}, now)
		made = m
		if err != nil {
			return 0, err
		}
		parent = x.byID[catalog.RootID]
		if len(ids) == 1 {
			parent = x.byID[ids[0]]
		}
	}
	emitMade := func() error {
		for _, c := range made {
			if err := event.Emit(w.tx, event.Categories, event.Create, now, map[string]any{"new": c, "data": c}); err != nil {
				return err
			}
		}
		return nil
	}
	undo := func(err error) (int, error) {
		for i := len(made) - 1; i >= 0; i-- {
			if rerr := w.tx.Catalog().RemoveCategory(ctx, made[i].ID); rerr != nil {
				return 0, &writeError{rerr}
			}
			x.forget(made[i])
		}
		return 0, err
	}
	var old *catalog.Category
	if parent == nil {
		old = x.byID[catalog.RootID]
	} else {
		old = x.byKey[titleKey(parent.ID, path[len(path)-1])]
	}
	if old == nil {
		title := strings.TrimSpace(path[len(path)-1])
		id := commerce.NewID()
		c := &catalog.Category{ID: id, Title: title, Parent: parent.ID, Classifications: []catalog.ClassificationDef{},
			Level: parent.Level + 1, Path: parent.Path + "." + id}
		f := r.Category.Fields
		f.Title = &c.Title
		if f.Slug == nil {
			f.Slug = ptr(x.slug(parent.ID, title))
		}
		if err := catalog.ApplyCategoryImport(c, f); err != nil {
			return undo(err)
		}
		if x.slugs[parent.ID][c.Slug] {
			return undo(commerce.NewError(commerce.EDuplicateKey, map[string]any{"index": "parent_slug", "parent": parent.ID, "slug": c.Slug}))
		}
		if err := w.tx.Catalog().LockTree(ctx); err != nil {
			return 0, &writeError{err}
		}
		if err := w.tx.Catalog().CreateCategory(ctx, c); err != nil {
			return 0, &writeError{err}
		}
		x.add(c)
		x.pending = append(x.pending, c)
		if err := emitMade(); err != nil {
			return 0, err
		}
		return outCreated, event.Emit(w.tx, event.Categories, event.Create, now, map[string]any{"new": c, "data": r.Category.Fields})
	}
	c := *old
	c.Classifications = append([]catalog.ClassificationDef(nil), old.Classifications...)
	f := r.Category.Fields
	if old.ID == catalog.RootID {
		f.Slug = nil // the root's slug does not change
	}
	if err := catalog.ApplyCategoryImport(&c, f); err != nil {
		return undo(err)
	}
	if c.Slug != old.Slug && x.slugs[old.Parent][c.Slug] {
		return undo(commerce.NewError(commerce.EDuplicateKey, map[string]any{"index": "parent_slug", "parent": old.Parent, "slug": c.Slug}))
	}
	if err := emitMade(); err != nil {
		return 0, err
	}
	if sameJSON(old, &c) {
		return outUnchanged, nil
	}
	if err := w.tx.Catalog().LockTree(ctx); err != nil {
		return 0, &writeError{err}
	}
	if err := w.tx.Catalog().UpdateCategory(ctx, old, &c); err != nil {
		return 0, &writeError{err}
	}
	if w.cached != nil {
		delete(w.cached.byID, old.ID)
	}
	// The index follows (a rolled-back batch reloads nothing: the change
	// is the same when the batch is done again).
	prev := *old
	x.saved = append(x.saved, savedCategory{old, prev})
	delete(x.slugs[old.Parent], old.Slug)
	*old = c
	if x.slugs[old.Parent] == nil {
		x.slugs[old.Parent] = map[string]bool{}
	}
	x.slugs[old.Parent][c.Slug] = true
	return outUpdated, event.Emit(w.tx, event.Categories, event.Update, now, map[string]any{"data": r.Category.Fields, "old": prev, "new": c})
}
