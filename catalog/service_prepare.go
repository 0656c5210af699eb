package catalog

import (
	"context"
	"slices"
	"strings"

	"github.com/commercekit/commerce"
)

// prepare merges in into p (a new product when create), checks the result
// against every rule, in the order CreateProduct documents, and leaves p as
// it is to be stored (prices parsed, classifications normalised, Variants
// set for a Base).
func (s *Service) prepare(ctx context.Context, tx Tx, p *Product, in ProductFields, create bool) error {
	merge(p, in)
	if in.Translations != nil {
		var ps commerce.Problems
		p.Translations = applyTranslations(p.Translations, in.Translations, s.Locales, &ps)
		if err := ps.Err(); err != nil {
			return err
		}
	}
	if err := checkProduct(p); err != nil {
		return err
	}
	if len(p.Categories) > s.MaxCategories {
		return commerce.NewError(commerce.EMaxCategoriesPerProduct, s.MaxCategories)
	}

	// Base and Variant data, in the order docs/api.md section 6 gives.
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
	var ps commerce.Problems
	for i, v := range p.Variations {
		if !slices.Contains(base.Modifiers, v.ID) {
			ps.Add(commerce.Index("variations", i)+".id", "base product %s has no modifier %q", base.ID, v.ID)
		}
	}
	if err := ps.Err(); err != nil {
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

// merge sets the fields in gives on p. The sku and the tax code are
// stored as commerce.Key normalises them, so that codes that look the same
// are the same.
func merge(p *Product, in ProductFields) {
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
	p.SKU, p.TaxCode = commerce.Key(p.SKU), commerce.Key(p.TaxCode)
}
