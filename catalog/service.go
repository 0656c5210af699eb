package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Viewed receives VIEWED events, written in the background (event.Buffer).
type Viewed interface {
	Add(e event.Event)
}

// Service holds the catalog's use cases.
type Service struct {
	store  Store
	viewed Viewed
	now    func() time.Time

	// MaxCategories is the most categories a product may belong to
	// (max_categories_per_product_reached, data: this number, above it).
	MaxCategories int
	// UpdateAttempts is how often product.update re-reads and re-merges a
	// product that changed under it before answering product_not_saved.
	UpdateAttempts int
	// Logger receives what fails without failing the operation (a VIEWED
	// event that cannot be built); slog.Default() when nil.
	Logger *slog.Logger
}

// NewService returns the catalog over store. viewed receives the VIEWED
// events of product.info (nil: none are written); now is the clock
// (time.Now when nil).
func NewService(store Store, viewed Viewed, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, viewed: viewed, now: now, MaxCategories: DefaultMaxCategories, UpdateAttempts: 5}
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Service) emit(tx Tx, channel, typ string, payload any) error {
	e, err := event.New(channel, typ, s.now(), payload)
	if err != nil {
		return err
	}
	tx.Emit(e)
	return nil
}

// ---- Categories ----

// CreateCategory creates a category under in.Parent (ROOT when absent or
// empty) and emits CREATE on CATEGORIES with {new, data}. Errors:
// validation_error, parent_category_not_found (data: the parent id),
// duplicate_key (data: {index: "parent_slug", parent, slug}).
func (s *Service) CreateCategory(ctx context.Context, in CategoryInput) (*Category, error) {
	c := &Category{ID: commerce.NewID(), Parent: RootID}
	if err := applyCategory(c, in, true); err != nil {
		return nil, err
	}
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		parents, err := tx.Categories(ctx, []string{c.Parent})
		if err != nil {
			return err
		}
		parent := parents[c.Parent]
		if parent == nil {
			return commerce.NewError(commerce.EParentCategoryNotFound, c.Parent)
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

// applyCategory sets the fields in gives on c and checks the result;
// create requires title and slug.
func applyCategory(c *Category, in CategoryInput, create bool) error {
	var ps problems
	if in.Title != nil {
		c.Title = *in.Title
	} else if create {
		ps.add("title: required")
	}
	if in.Description != nil {
		d := *in.Description
		c.Description = &d
	}
	if in.Slug != nil {
		c.Slug = *in.Slug
	} else if create {
		ps.add("slug: required")
	}
	if in.Parent != nil && *in.Parent != "" {
		c.Parent = *in.Parent
	}
	if in.Classifications != nil {
		c.Classifications = classificationDefs(*in.Classifications, &ps)
	}
	if err := ps.err(); err != nil {
		return err
	}
	return checkCategory(c)
}

// UpdateCategory changes the fields in gives (title, description, slug,
// parent, classifications) of category id and emits UPDATE on CATEGORIES
// with {data, old, new}. A new parent moves the category with its subtree,
// whose levels and paths follow. Errors: validation_error (moving a
// category under itself or its own subtree, changing the slug or parent of
// ROOT), category_not_found, parent_category_not_found, duplicate_key.
// Products are not re-validated against changed classifications.
func (s *Service) UpdateCategory(ctx context.Context, id string, in CategoryInput) (*Category, error) {
	if blank(id) {
		return nil, commerce.Invalid("id: required")
	}
	var c *Category
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		cats, err := tx.Categories(ctx, []string{id})
		if err != nil {
			return err
		}
		old := cats[id]
		if old == nil {
			return commerce.NewError(commerce.ECategoryNotFound, id)
		}
		cc := *old
		c = &cc
		if id == RootID && (in.Parent != nil && *in.Parent != "" || in.Slug != nil && *in.Slug != old.Slug) {
			return commerce.Invalid("id: the slug and parent of the root category cannot change")
		}
		if err := applyCategory(c, in, false); err != nil {
			return err
		}
		if c.Parent != old.Parent {
			ps, err := tx.Categories(ctx, []string{c.Parent})
			if err != nil {
				return err
			}
			parent := ps[c.Parent]
			if parent == nil {
				return commerce.NewError(commerce.EParentCategoryNotFound, c.Parent)
			}
			if parent.ID == c.ID || strings.HasPrefix(parent.Path+".", old.Path+".") {
				return commerce.Invalid("parent: a category cannot move under itself or its own subtree")
			}
			c.Level, c.Path = parent.Level+1, parent.Path+"."+c.ID
		}
		if err := tx.UpdateCategory(ctx, old, c); err != nil {
			return err
		}
		data := map[string]any{"id": id}
		if err := addInput(data, in); err != nil {
			return err
		}
		return s.emit(tx, event.Categories, event.Update, map[string]any{"data": data, "old": old, "new": c})
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
	if blank(id) {
		return commerce.Invalid("id: required")
	}
	if id == RootID {
		return commerce.Invalid("id: the root category cannot be removed")
	}
	return s.store.Update(ctx, func(tx Tx) error {
		if err := tx.LockTree(ctx); err != nil {
			return err
		}
		cats, err := tx.Categories(ctx, []string{id})
		if err != nil {
			return err
		}
		old := cats[id]
		if old == nil {
			return commerce.NewError(commerce.ECategoryNotFound, id)
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
	if blank(id) {
		return nil, commerce.Invalid("id: required")
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

// checkListSize adds a problem when a String-List filter has more than
// commerce.commerce.MaxListValues values (the transport checks its arguments too;
// this guards in-process callers).
func checkListSize(ps *problems, field string, n int) {
	if n > commerce.MaxListValues {
		ps.add("%s: at most %d values", field, commerce.MaxListValues)
	}
}

// ListCategories returns a page of categories in creation order. Errors:
// validation_error for an invalid regular expression (or one the database
// cannot match as RE2 does) and for a String-List filter with more than
// commerce.MaxListValues values.
func (s *Service) ListCategories(ctx context.Context, f CategoryFilter) ([]*Category, error) {
	var ps problems
	checkListSize(&ps, "id", len(f.IDs))
	checkListSize(&ps, "slug", len(f.Slugs))
	checkListSize(&ps, "parent", len(f.Parents))
	checkRegexp(&ps, "title", f.Title)
	checkRegexp(&ps, "description", f.Description)
	checkRegexp(&ps, "path", f.Path)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return s.store.ListCategories(ctx, f)
}

func checkRegexp(ps *problems, field, pattern string) {
	if pattern == "" {
		return
	}
	if _, err := regexp.Compile("(?i)" + pattern); err != nil {
		ps.add("%s: invalid regular expression: %v", field, err)
	}
}

// ---- Products ----

// CreateProduct creates a product and emits CREATE on PRODUCTS with {new,
// data}. Errors, in the order checked: validation_error (shape),
// max_categories_per_product_reached, inconsistent_base_variants_data,
// inconsistent_base_variations_data, category_not_found,
// base_product_not_found, variation_data_not_found, no_modifiers_found,
// variant_not_found, the classification codes, the price codes,
// duplicate_key (data: {index: "sku", sku}).
func (s *Service) CreateProduct(ctx context.Context, in ProductInput) (*Product, error) {
	var ps problems
	for _, f := range []struct {
		name  string
		given bool
	}{{"sku", in.SKU != nil}, {"status", in.Status != nil}, {"title", in.Title != nil},
		{"categories", in.Categories != nil}, {"stockStatus", in.StockStatus != nil}} {
		if !f.given {
			ps.add("%s: required", f.name)
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	var p *Product
	err := s.store.Update(ctx, func(tx Tx) error {
		p = &Product{ID: commerce.NewID(), TaxCode: DefaultTaxCode, Categories: []string{}}
		if err := s.prepare(ctx, tx, p, in, true); err != nil {
			return err
		}
		if err := tx.CreateProducts(ctx, []*Product{p}); err != nil {
			return err
		}
		return s.emit(tx, event.Products, event.Create, map[string]any{"new": p, "data": in})
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateProduct changes the fields in gives of product id, validating the
// merged product as a whole as CreateProduct does, and emits UPDATE on
// PRODUCTS with {data, old, new}. Concurrent updates of one product never
// lose a write: the product is read, merged and written under its version,
// and re-done when the version moved; after UpdateAttempts tries it is
// product_not_saved. Errors: product_not_found, the codes of CreateProduct
// (inconsistent_base_variantions_data, sic, instead of
// inconsistent_base_variations_data), product_not_saved.
func (s *Service) UpdateProduct(ctx context.Context, id string, in ProductInput) (*Product, error) {
	if blank(id) {
		return nil, commerce.Invalid("id: required")
	}
	var p *Product
	var err error
	for range max(1, s.UpdateAttempts) {
		err = s.store.Update(ctx, func(tx Tx) error {
			old, version, err := tx.Product(ctx, id, true)
			if err != nil {
				return err
			}
			p = cloneProduct(old)
			if err := s.prepare(ctx, tx, p, in, false); err != nil {
				return err
			}
			if err := tx.UpdateProduct(ctx, p, version); err != nil {
				return err
			}
			data := map[string]any{"id": id}
			if err := addInput(data, in); err != nil {
				return err
			}
			return s.emit(tx, event.Products, event.Update, map[string]any{"data": data, "old": old, "new": p})
		})
		if commerce.ErrorCode(err) != commerce.EProductNotSaved {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// RemoveProduct removes a product and emits REMOVE on PRODUCTS with {id,
// old}. A Base product that still has Variants cannot be removed
// (validation_error): remove its Variants first. Removing a Variant takes
// it off its Base's variants. Error: product_not_found.
func (s *Service) RemoveProduct(ctx context.Context, id string) error {
	if blank(id) {
		return commerce.Invalid("id: required")
	}
	return s.store.Update(ctx, func(tx Tx) error {
		old, _, err := tx.Product(ctx, id, true)
		if err != nil {
			return err
		}
		has, err := tx.HasVariants(ctx, id)
		if err != nil {
			return err
		}
		if has {
			return commerce.Invalid("id: the product is the base of Variant products; remove them first")
		}
		if err := tx.RemoveProduct(ctx, id); err != nil {
			return err
		}
		return s.emit(tx, event.Products, event.Remove, map[string]any{"id": id, "old": old})
	})
}

// Product returns a product (any status). Error: product_not_found.
func (s *Service) Product(ctx context.Context, id string) (*Product, error) {
	if blank(id) {
		return nil, commerce.Invalid("id: required")
	}
	return s.store.Product(ctx, id)
}

// ViewProduct returns a product as Product does and records a VIEWED event
// on PRODUCTS with {date, productId, userId} (userId: the caller's token
// subject), written in the background.
func (s *Service) ViewProduct(ctx context.Context, id string) (*Product, error) {
	p, err := s.Product(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.viewed != nil {
		// The product is read; a VIEWED event that cannot be built is
		// logged, not the caller's failure (VIEWED events may be lost).
		claims, _ := commerce.ClaimsFrom(ctx) // no claims: an empty userId
		now := s.now().UTC()
		e, err := event.New(event.Products, event.Viewed, now,
			map[string]any{"date": now, "productId": p.ID, "userId": claims.Subject})
		if err != nil {
			s.logger().ErrorContext(ctx, "catalog: VIEWED event not recorded", "product", p.ID, "err", err)
		} else {
			s.viewed.Add(e)
		}
	}
	return p, nil
}

// Products returns the products with the given ids, by id, whatever their
// status (callers such as the cart decide what DRAFT and DISCONTINUED
// mean); unknown ids are left out of the map. One query, whatever the
// number of ids.
func (s *Service) Products(ctx context.Context, ids []string) (map[string]*Product, error) {
	if len(ids) == 0 {
		return map[string]*Product{}, nil
	}
	return s.store.Products(ctx, dedupe(ids))
}

// CategoryAncestors returns, for each given product id that exists, the
// ids of its categories and of all their ancestors (ROOT included), each
// once: the categories the product counts for in promotions. A Variant
// product without categories of its own counts for its Base's. Unknown ids
// are left out.
func (s *Service) CategoryAncestors(ctx context.Context, productIDs []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(productIDs) == 0 {
		return out, nil
	}
	paths, err := s.store.ProductCategoryPaths(ctx, dedupe(productIDs))
	if err != nil {
		return nil, err
	}
	for id, ps := range paths {
		seen := map[string]bool{}
		list := []string{}
		for _, path := range ps {
			for c := range strings.SplitSeq(path, ".") {
				if !seen[c] {
					seen[c] = true
					list = append(list, c)
				}
			}
		}
		out[id] = list
	}
	return out, nil
}

// ListProducts returns a page of products matching f in creation order.
// DRAFT products are left out unless f.Statuses names DRAFT. Errors:
// validation_error (invalid regular expression, or one the database
// cannot match as RE2 does; a String-List filter with more than
// commerce.MaxListValues values, named as the query names it; the aliases
// medias.customerType and medias.channel count with, and are reported as,
// prices.customerType and prices.channel).
func (s *Service) ListProducts(ctx context.Context, f ProductFilter) ([]*Product, error) {
	var ps problems
	for _, l := range []struct {
		field string
		n     int
	}{
		{"id", len(f.IDs)}, {"sku", len(f.SKUs)}, {"status", len(f.Statuses)}, {"taxCode", len(f.TaxCodes)},
		{"stockStatus", len(f.StockStatuses)}, {"base", len(f.Bases)}, {"categories", len(f.Categories)},
		{"prices.id", len(f.PriceIDs)}, {"prices.currency", len(f.PriceCurrencies)}, {"prices.country", len(f.PriceCountries)},
		{"prices.customerType", len(f.PriceCustomerTypes)}, {"prices.channel", len(f.PriceChannels)}, {"medias.id", len(f.MediaIDs)},
	} {
		checkListSize(&ps, l.field, l.n)
	}
	checkRegexp(&ps, "title", f.Title)
	checkRegexp(&ps, "description", f.Description)
	checkRegexp(&ps, "brand", f.Brand)
	if err := ps.err(); err != nil {
		return nil, err
	}
	if len(f.Statuses) == 0 {
		f.Statuses = []string{StatusOnline}
	}
	return s.store.ListProducts(ctx, f)
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// cloneProduct copies a product deeply enough for merging into the copy.
func cloneProduct(p *Product) *Product {
	c := *p
	c.Categories = slices.Clone(p.Categories)
	c.Prices = slices.Clone(p.Prices)
	c.Medias = slices.Clone(p.Medias)
	c.Classifications = slices.Clone(p.Classifications)
	c.Variations = slices.Clone(p.Variations)
	c.Modifiers = slices.Clone(p.Modifiers)
	c.Variants = slices.Clone(p.Variants)
	return &c
}

// addInput puts the fields of a request body into data, as given. It
// fails when the body does not marshal to a JSON object (a bug: the
// inputs are structs of JSON values).
func addInput(data map[string]any, in any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("event data: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("event data: %w", err)
	}
	for k, v := range m {
		data[k] = v
	}
	return nil
}

// prepare merges in into p (a new product when create), checks the result
// against every rule, in the order CreateProduct documents, and leaves p as
// it is to be stored (prices parsed, classifications normalised, Variants
// set for a Base).
func (s *Service) prepare(ctx context.Context, tx Tx, p *Product, in ProductInput, create bool) error {
	merge(p, in)
	if err := checkProduct(p); err != nil {
		return err
	}
	if len(p.Categories) > s.MaxCategories {
		return commerce.NewError(commerce.EMaxCategoriesPerProduct, s.MaxCategories)
	}

	// Base and Variant data, in the order CONTRACT.md section 6 gives.
	// For mixing the two sides, a field that is present counts, even
	// empty (variants: [] with a base is inconsistent_base_variants_data);
	// for pairing base with variations, an empty variations list counts as
	// absent (a base needs at least one variation).
	variantSide := p.Base != "" || p.Variations != nil
	if (p.Modifiers != nil || in.Variants != nil) && variantSide {
		return commerce.NewError(commerce.EInconsistentBaseVariants, nil)
	}
	baseSide := p.Modifiers != nil || in.Variants != nil && len(*in.Variants) > 0
	if (p.Base != "") != (len(p.Variations) > 0) {
		if create {
			return commerce.NewError(commerce.EInconsistentBaseVariations, nil)
		}
		return commerce.NewError(commerce.EInconsistentBaseVariantions, nil)
	}

	// Categories, with their ancestors for the classifications.
	cats, err := tx.Categories(ctx, p.Categories)
	if err != nil {
		return err
	}
	for _, id := range p.Categories {
		if cats[id] == nil {
			return commerce.NewError(commerce.ECategoryNotFound, id)
		}
	}
	defCategories := p.Categories

	if p.Base != "" {
		base, err := s.checkVariant(ctx, tx, p)
		if err != nil {
			return err
		}
		if len(p.Categories) == 0 {
			defCategories = base.Categories
			more, err := tx.Categories(ctx, base.Categories)
			if err != nil {
				return err
			}
			for k, v := range more {
				cats[k] = v
			}
		}
	}
	if baseSide {
		if len(p.Modifiers) == 0 {
			return commerce.NewError(commerce.ENoModifiersFound, nil)
		}
		if in.Variants != nil && len(*in.Variants) > 0 {
			bases, err := tx.ProductBases(ctx, *in.Variants)
			if err != nil {
				return err
			}
			for _, v := range *in.Variants {
				if b, ok := bases[v]; !ok || b != p.ID || create {
					return commerce.NewError(commerce.EVariantNotFound, v)
				}
			}
		}
		if p.Variants == nil {
			p.Variants = []string{}
		}
	} else {
		p.Variants = nil
	}

	// Classifications, from the categories and all their ancestors.
	var ancestors []string
	for _, id := range defCategories {
		if c := cats[id]; c != nil {
			for a := range strings.SplitSeq(c.Path, ".") {
				if cats[a] == nil {
					ancestors = append(ancestors, a)
				}
			}
		}
	}
	if len(ancestors) > 0 {
		more, err := tx.Categories(ctx, dedupe(ancestors))
		if err != nil {
			return err
		}
		for k, v := range more {
			cats[k] = v
		}
	}
	if p.Classifications, err = normalizeClassifications(p.Classifications, effectiveDefs(defCategories, cats)); err != nil {
		return err
	}

	// Prices (only when given: stored ones are valid).
	if in.Prices != nil {
		if p.Prices, err = parsePrices(*in.Prices); err != nil {
			return err
		}
	}
	if p.Prices == nil {
		p.Prices = []Price{}
	}
	return nil
}

// checkVariant checks a Variant product's base and variations and returns
// the base, in this order: base_product_not_found when the base does not
// exist or is not a Base product; variation_data_not_found (data: the
// modifier) for the first modifier of the base without a value; then
// validation_error for variations naming no modifier of the base. The
// base's row is locked, so that it cannot be removed before the
// transaction ends.
func (s *Service) checkVariant(ctx context.Context, tx Tx, p *Product) (*Product, error) {
	if p.Base == p.ID {
		return nil, commerce.NewError(commerce.EBaseProductNotFound, p.Base)
	}
	base, _, err := tx.Product(ctx, p.Base, true)
	if commerce.ErrorCode(err) == commerce.EProductNotFound {
		return nil, commerce.NewError(commerce.EBaseProductNotFound, p.Base)
	}
	if err != nil {
		return nil, err
	}
	if !base.IsBase() {
		return nil, commerce.NewError(commerce.EBaseProductNotFound, p.Base)
	}
	values := map[string]string{}
	for _, v := range p.Variations {
		values[v.ID] = v.Value
	}
	for _, m := range base.Modifiers {
		if blank(values[m]) {
			return nil, commerce.NewError(commerce.EVariationDataNotFound, m)
		}
	}
	var ps problems
	for i, v := range p.Variations {
		if !slices.Contains(base.Modifiers, v.ID) {
			ps.add("variations[%d].id: base product %s has no modifier %q", i, base.ID, v.ID)
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	// Store the variations in the order of the base's modifiers.
	ordered := make([]Variation, 0, len(base.Modifiers))
	for _, m := range base.Modifiers {
		ordered = append(ordered, Variation{ID: m, Value: values[m]})
	}
	p.Variations = ordered
	return base, nil
}

// merge sets the fields in gives on p.
func merge(p *Product, in ProductInput) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.SKU, in.SKU)
	set(&p.Status, in.Status)
	set(&p.Title, in.Title)
	set(&p.Description, in.Description)
	set(&p.Brand, in.Brand)
	set(&p.TaxCode, in.TaxCode)
	set(&p.Base, in.Base)
	if in.Categories != nil {
		p.Categories = slices.Clone(*in.Categories)
		if p.Categories == nil {
			p.Categories = []string{}
		}
	}
	if in.IsNetPrice != nil {
		p.IsNetPrice = *in.IsNetPrice
	}
	if in.StockStatus != nil {
		p.StockStatus = *in.StockStatus
	}
	if in.Medias != nil {
		p.Medias = slices.Clone(*in.Medias)
	}
	if in.Classifications != nil {
		p.Classifications = slices.Clone(*in.Classifications)
	}
	if in.Variations != nil {
		p.Variations = slices.Clone(*in.Variations)
		if p.Variations == nil {
			p.Variations = []Variation{}
		}
	}
	if in.Modifiers != nil {
		p.Modifiers = slices.Clone(*in.Modifiers)
		if p.Modifiers == nil {
			p.Modifiers = []string{}
		}
	}
	if p.Base == "" && in.Base != nil && in.Variations == nil {
		// base cleared: the product stops being a Variant
		p.Variations = nil
	}
	if p.Medias == nil {
		p.Medias = []Media{}
	}
	if p.Classifications == nil {
		p.Classifications = []ClassificationValue{}
	}
}
