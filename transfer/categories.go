package transfer

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
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
	locked  bool
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
	for _, c := range append([]*catalog.Category(nil), x.pending...) {
		x.forget(c)
	}
	x.pending = nil
}

func (x *categoryIndex) pendingList() []*catalog.Category {
	return append([]*catalog.Category(nil), x.pending...)
}

func (x *categoryIndex) commit([]*catalog.Category) { x.pending = nil }

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
