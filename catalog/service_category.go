package catalog

import (
	"context"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// CreateCategory creates a category under in.Parent (ROOT when absent or
// empty) and emits CREATE on CATEGORIES with {new, data}. Errors:
// validation_error, parent_category_not_found (data: the parent id),
// duplicate_key (data: {index: "parent_slug", parent, slug}).
func (s *Service) CreateCategory(ctx context.Context, in CreateCategoryInput) (*Category, error) {
	c := &Category{ID: commerce.NewID(), Parent: RootID}
	if err := applyCategory(c, in.CategoryFields, s.Locales, true); err != nil {
		return nil, err
	}
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		parent, err := category(ctx, tx, c.Parent, parentNotFound)
		if err != nil {
			return err
		}
		c.Level, c.Path = parent.Level+1, parent.Path+"."+c.ID
		if err := tx.CreateCategory(ctx, c); err != nil {
			return err
		}
		return s.emit(tx, event.Categories, event.Create, map[string]any{"new": c, "data": in})
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// category reads category id in tx; missing is the error when there is
// none.
func category(ctx context.Context, tx Tx, id string, missing func(id string) *commerce.Error) (*Category, error) {
	cats, err := tx.Categories(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if c := cats[id]; c != nil {
		return c, nil
	}
	return nil, missing(id)
}

// parentNotFound is the error of a parent category that does not exist.
func parentNotFound(id string) *commerce.Error {
	return commerce.NewError(commerce.EParentCategoryNotFound, id)
}

// applyCategory sets the fields in gives on c and checks the result;
// create requires title and slug. The slug is stored as commerce.Key
// normalises it, so that slugs that look the same are the same.
func applyCategory(c *Category, in CategoryFields, locales commerce.Locales, create bool) error {
	var ps commerce.Problems
	if create {
		ps.CheckArgs("", CreateCategoryInput{CategoryFields: in}) // title, slug
	}
	if in.Title != nil {
		c.Title = *in.Title
	}
	if in.Description != nil {
		d := *in.Description
		c.Description = &d
	}
	if in.Slug != nil {
		c.Slug = commerce.Key(*in.Slug)
	}
	if in.Parent != nil && *in.Parent != "" {
		c.Parent = *in.Parent
	}
	if in.Classifications != nil {
		c.Classifications = classificationDefs(*in.Classifications, &ps)
	}
	if in.Translations != nil {
		c.Translations = applyTranslations(c.Translations, in.Translations, locales, &ps)
	}
	if err := ps.Err(); err != nil {
		return err
	}
	return checkCategory(c)
}

// UpdateCategory changes the fields in gives (title, description, slug,
// parent, classifications) of category in.ID and emits UPDATE on CATEGORIES
// with {data, old, new}. A new parent moves the category with its subtree,
// whose levels and paths follow. Errors: validation_error (moving a
// category under itself or its own subtree, changing the slug or parent of
// ROOT), category_not_found, parent_category_not_found, duplicate_key.
// Products are not re-validated against changed classifications.
func (s *Service) UpdateCategory(ctx context.Context, in UpdateCategoryInput) (*Category, error) {
	id := in.ID
	if err := commerce.CheckArgs(in); err != nil {
		return nil, err
	}
	var c *Category
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		old, err := category(ctx, tx, id, CategoryNotFound)
		if err != nil {
			return err
		}
		cc := *old
		c = &cc
		if id == RootID && (in.Parent != nil && *in.Parent != "" || in.Slug != nil && commerce.Key(*in.Slug) != old.Slug) {
			return commerce.Invalid("id: the slug and parent of the root category cannot change")
		}
		if err := applyCategory(c, in.CategoryFields, s.Locales, false); err != nil {
			return err
		}
		if c.Parent != old.Parent {
			parent, err := category(ctx, tx, c.Parent, parentNotFound)
			if err != nil {
				return err
			}
			if parent.ID == c.ID || strings.HasPrefix(parent.Path+".", old.Path+".") {
				return commerce.Invalid("parent: a category cannot move under itself or its own subtree")
			}
			c.Level, c.Path = parent.Level+1, parent.Path+"."+c.ID
		}
		if err := tx.UpdateCategory(ctx, old, c); err != nil {
			return err
		}
		return s.emit(tx, event.Categories, event.Update, map[string]any{"data": in, "old": old, "new": c})
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// RemoveCategory removes a category that has no children and no products
// and emits REMOVE on CATEGORIES with {id, old}. Errors: category_not_found,
// category_not_empty (data: the id), validation_error for ROOT.
func (s *Service) RemoveCategory(ctx context.Context, id string) error {
	if err := requireID(id); err != nil {
		return err
	}
	if id == RootID {
		return commerce.Invalid("id: the root category cannot be removed")
	}
	return s.store.Update(ctx, func(tx Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		old, err := category(ctx, tx, id, CategoryNotFound)
		if err != nil {
			return err
		}
		children, products, err := tx.CategoryUse(ctx, id)
		if err != nil {
			return err
		}
		if children || products {
			return commerce.NewError(commerce.ECategoryNotEmpty, id)
		}
		if err := tx.RemoveCategory(ctx, id); err != nil {
			return err
		}
		return s.emit(tx, event.Categories, event.Remove, map[string]any{"id": id, "old": old})
	})
}

// Category returns a category. With withChildren it carries its direct
// children; with recursive (which implies withChildren) each child carries
// its own, down the whole subtree. Children are in creation order. Error:
// category_not_found.
func (s *Service) Category(ctx context.Context, id string, withChildren, recursive bool) (*Category, error) {
	if err := requireID(id); err != nil {
		return nil, err
	}
	c, err := s.store.Category(ctx, id)
	if err != nil {
		return nil, err
	}
	if !withChildren && !recursive {
		return c, nil
	}
	if !recursive {
		// Direct children only: one indexed query on parent, not the
		// whole subtree.
		if c.Children, err = s.store.Children(ctx, c.ID); err != nil {
			return nil, err
		}
		if c.Children == nil {
			c.Children = []*Category{}
		}
		return c, nil
	}
	desc, err := s.store.Descendants(ctx, c)
	if err != nil {
		return nil, err
	}
	c.Children = []*Category{}
	byID := map[string]*Category{c.ID: c}
	for _, d := range desc { // parents come before their children
		p := byID[d.Parent]
		if p == nil {
			continue
		}
		d.Children = []*Category{}
		p.Children = append(p.Children, d)
		byID[d.ID] = d
	}
	return c, nil
}

// ListCategories returns a page of categories in creation order. Slugs
// are compared as commerce.Key normalises them. Errors: validation_error
// for an invalid regular expression, one the database cannot match as RE2
// does or one that runs beyond the store's time limit (naming the field),
// and for a String-List filter with more than commerce.MaxListValues
// values.
func (s *Service) ListCategories(ctx context.Context, f CategoryFilter) ([]*Category, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	f.Slugs = commerce.Keys(f.Slugs)
	return s.store.ListCategories(ctx, f)
}
