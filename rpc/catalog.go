package rpc

import (
	"context"
	"encoding/json"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

// RegisterCatalog registers the catalog's operations under /catalog/v1/:
// product.create, product.update, product.remove, category.create,
// category.update, category.remove (admin) and product.info, product.list,
// category.info, category.list (any token). product.remove and
// category.remove answer {ok: true} alone. The arguments are the catalog's
// <Op>Input types.
func RegisterCatalog(s *Server, svc *catalog.Service) {
	const service = "catalog"
	Handle(s, Op{Service: service, Name: "product.create", Admin: true, Result: productResult{},
		Doc: "Creates a product (a Base product with modifiers, or a Variant of one with its variations).",
		Errors: []string{commerce.ECategoryNotFound, commerce.EMaxCategoriesPerProduct, commerce.EMissingClassification, commerce.EEmptyClassificationValue,
			commerce.EClassificationValueNotBoolean, commerce.EClassificationValueNotNumber, commerce.EBaseProductNotFound, commerce.EVariationDataNotFound,
			commerce.ENoModifiersFound, commerce.EVariantNotFound, commerce.EPriceInvalid, commerce.EPriceCurrencyInvalid, commerce.EPriceCountryInvalid,
			commerce.EPriceValidDates, commerce.EDuplicateKey, commerce.EProductNotSaved, commerce.EInconsistentBaseVariants, commerce.EInconsistentBaseVariations}},
		func(ctx context.Context, a *catalog.CreateProductInput) (any, error) {
			v, err := svc.CreateProduct(ctx, *a)
			return recordAnswer("product", v, err)
		})
	Handle(s, Op{Service: service, Name: "product.update", Admin: true, Result: productResult{},
		Doc: "Changes the fields given of a product.",
		Errors: []string{commerce.EProductNotFound, commerce.ECategoryNotFound, commerce.EMaxCategoriesPerProduct, commerce.EMissingClassification, commerce.EEmptyClassificationValue,
			commerce.EClassificationValueNotBoolean, commerce.EClassificationValueNotNumber, commerce.EBaseProductNotFound, commerce.EVariationDataNotFound,
			commerce.ENoModifiersFound, commerce.EVariantNotFound, commerce.EPriceInvalid, commerce.EPriceCurrencyInvalid, commerce.EPriceCountryInvalid,
			commerce.EPriceValidDates, commerce.EDuplicateKey, commerce.EProductNotSaved, commerce.EInconsistentBaseVariants, commerce.EInconsistentBaseVariantions}},
		func(ctx context.Context, a *catalog.UpdateProductInput) (any, error) {
			v, err := svc.UpdateProduct(ctx, *a)
			return recordAnswer("product", v, err)
		})
	Handle(s, Op{Service: service, Name: "product.remove", Admin: true, Result: struct{}{},
		Doc: "Removes a product.", Errors: []string{commerce.EProductNotFound}},
		func(ctx context.Context, a *catalog.RemoveInput) (any, error) {
			return nil, svc.RemoveProduct(ctx, a.ID)
		})
	Handle(s, Op{Service: service, Name: "product.info", Read: true, Result: Partial(productRead{}),
		Doc: "A product, with the fields asked for (all by default), in the locale asked for (docs/api.md section 27).", Errors: []string{commerce.EProductNotFound}},
		func(ctx context.Context, a *catalog.ProductInfoInput) (any, error) {
			locale, err := svc.ReadLocale(ctx, a.Locale)
			if err != nil {
				return nil, err
			}
			q, err := catalog.CheckPriceQuery(a.Currency, a.Quantity)
			if err != nil {
				return nil, err
			}
			if q != nil {
				p, err := svc.ViewProduct(ctx, a.ID)
				if err != nil {
					return nil, err
				}
				out, err := withPrices(ctx, svc, []*catalog.Product{p.Localized(locale)}, a.Fields, q)
				if err != nil {
					return nil, err
				}
				return map[string]any{"product": out[0], "locale": locale}, nil
			}
			if len(a.Fields) == 0 && locale == svc.Locales.Default() {
				b, err := svc.ViewProductJSON(ctx, a.ID)
				if err != nil {
					return nil, err
				}
				return RawField{Name: "product", JSON: b, Locale: locale}, nil
			}
			p, err := svc.ViewProduct(ctx, a.ID)
			if err != nil {
				return nil, err
			}
			p = p.Localized(locale)
			if len(a.Fields) == 0 {
				return map[string]any{"product": p, "locale": locale}, nil
			}
			out, err := commerce.Project(p, a.Fields)
			if err != nil {
				return nil, err
			}
			return map[string]any{"product": out, "locale": locale}, nil
		})
	Handle(s, Op{Service: service, Name: "product.list", Read: true, Result: Partial(productList{}),
		Doc: "Products matching the filters (lists of values, or regular expressions for title, description and brand), a page at a time, in the locale asked for."},
		func(ctx context.Context, a *catalog.ListProductsInput) (any, error) {
			locale, err := svc.ReadLocale(ctx, a.Locale)
			if err != nil {
				return nil, err
			}
			f, page, err := a.Filter()
			if err != nil {
				return nil, err
			}
			q, err := catalog.CheckPriceQuery(a.Currency, a.Quantity)
			if err != nil {
				return nil, err
			}
			ps, err := svc.ListProducts(ctx, f)
			if err != nil {
				return nil, err
			}
			if q != nil {
				data, err := withPrices(ctx, svc, catalog.LocalizeProducts(ps, locale), a.Fields, q)
				if err != nil {
					return nil, err
				}
				return localeList{List: commerce.List{Page: page, Data: data}, Locale: locale}, nil
			}
			return localeListAnswer(page, catalog.LocalizeProducts(ps, locale), a.Fields, locale)
		})

	Handle(s, Op{Service: service, Name: "category.create", Admin: true, Result: categoryResult{},
		Doc:    "Creates a category under its parent (ROOT by default).",
		Errors: []string{commerce.EParentCategoryNotFound, commerce.EDuplicateKey}},
		func(ctx context.Context, a *catalog.CreateCategoryInput) (any, error) {
			v, err := svc.CreateCategory(ctx, *a)
			return recordAnswer("category", v, err)
		})
	Handle(s, Op{Service: service, Name: "category.update", Admin: true, Result: categoryResult{},
		Doc:    "Changes the fields given of a category.",
		Errors: []string{commerce.ECategoryNotFound, commerce.EParentCategoryNotFound, commerce.EDuplicateKey}},
		func(ctx context.Context, a *catalog.UpdateCategoryInput) (any, error) {
			v, err := svc.UpdateCategory(ctx, *a)
			return recordAnswer("category", v, err)
		})
	Handle(s, Op{Service: service, Name: "category.remove", Admin: true, Result: struct{}{},
		Doc:    "Removes a category without products or children.",
		Errors: []string{commerce.ECategoryNotFound, commerce.ECategoryNotEmpty}},
		func(ctx context.Context, a *catalog.RemoveInput) (any, error) {
			return nil, svc.RemoveCategory(ctx, a.ID)
		})
	Handle(s, Op{Service: service, Name: "category.info", Read: true, Result: categoryRead{},
		Doc:    "A category, with its children when asked (recursively with recursive), in the locale asked for.",
		Errors: []string{commerce.ECategoryNotFound}},
		func(ctx context.Context, a *catalog.CategoryInfoInput) (any, error) {
			locale, err := svc.ReadLocale(ctx, a.Locale)
			if err != nil {
				return nil, err
			}
			c, err := svc.Category(ctx, a.ID, a.WithChildren != nil && *a.WithChildren, a.Recursive != nil && *a.Recursive)
			if err != nil {
				return nil, err
			}
			return map[string]any{"category": c.Localized(locale), "locale": locale}, nil
		})
	Handle(s, Op{Service: service, Name: "category.list", Read: true, Result: Partial(categoryList{}),
		Doc: "Categories matching the filters, a page at a time, in the locale asked for."},
		func(ctx context.Context, a *catalog.ListCategoriesInput) (any, error) {
			locale, err := svc.ReadLocale(ctx, a.Locale)
			if err != nil {
				return nil, err
			}
			f, page, err := a.Filter()
			if err != nil {
				return nil, err
			}
			cs, err := svc.ListCategories(ctx, f)
			if err != nil {
				return nil, err
			}
			return localeListAnswer(page, catalog.LocalizeCategories(cs, locale), a.Fields, locale)
		})
}

// withPrices returns the products with the fields asked for and price:
// the unit price the caller would get (catalog.Service.PricesOf; null
// when it has none).
func withPrices(ctx context.Context, svc *catalog.Service, ps []*catalog.Product, fields []string, q *catalog.PriceQuery) ([]any, error) {
	prices, err := svc.PricesOf(ctx, ps, *q)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ps))
	for i, p := range ps {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "product %s: %w", p.ID, err)
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(b, &all); err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "product %s: %w", p.ID, err)
		}
		if len(fields) > 0 {
			kept := map[string]json.RawMessage{"id": all["id"]}
			for _, f := range fields {
				if raw, ok := all[f]; ok {
					kept[f] = raw
				}
			}
			all = kept
		}
		price, err := json.Marshal(prices[p.ID])
		if err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "product %s: price: %w", p.ID, err)
		}
		all["price"] = price
		out[i] = all
	}
	return out, nil
}

// recordAnswer returns the answer {<name>: v} of an operation returning one
// record, or its error.
func recordAnswer(name string, v any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return map[string]any{name: v}, nil
}

// listAnswer returns the answer of a list operation: the page and the
// records with the fields asked for.
func listAnswer[T any](page commerce.Page, list []T, fields []string) (any, error) {
	data, err := commerce.ProjectAll(list, fields)
	if err != nil {
		return nil, err
	}
	return commerce.List{Page: page, Data: data}, nil
}

// localeList is the answer of a list read in a locale (docs/api.md
// section 27): the page, the records and the locale.
type localeList struct {
	commerce.List
	Locale string `json:"locale"`
}

// localeListAnswer is listAnswer naming the locale the records are in.
func localeListAnswer[T any](page commerce.Page, list []T, fields []string, locale string) (any, error) {
	data, err := commerce.ProjectAll(list, fields)
	if err != nil {
		return nil, err
	}
	return localeList{List: commerce.List{Page: page, Data: data}, Locale: locale}, nil
}

// The results of the catalog's operations, for /openapi.json.
type (
	productResult struct {
		Product catalog.Product `json:"product"`
	}
	categoryResult struct {
		Category catalog.Category `json:"category"`
	}
	productRead struct {
		Product catalog.Product `json:"product"`
		Locale  string          `json:"locale"`
	}
	categoryRead struct {
		Category catalog.Category `json:"category"`
		Locale   string           `json:"locale"`
	}
	productList struct {
		Page   commerce.Page     `json:"page"`
		Data   []catalog.Product `json:"data"`
		Locale string            `json:"locale"`
	}
	categoryList struct {
		Page   commerce.Page      `json:"page"`
		Data   []catalog.Category `json:"data"`
		Locale string             `json:"locale"`
	}
)
