package rpc

import (
	"context"
	"fmt"
	"strconv"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

type idArgs struct {
	ID string `json:"id"`
}

type productUpdateArgs struct {
	ID string `json:"id"`
	catalog.ProductInput
}

type productInfoArgs struct {
	ID     string              `json:"id"`
	Fields commerce.StringList `json:"fields"`
}

type productListArgs struct {
	ID                commerce.StringList `json:"id"`
	SKU               commerce.StringList `json:"sku"`
	Title             string              `json:"title"`
	Description       string              `json:"description"`
	Status            commerce.StringList `json:"status"`
	Brand             string              `json:"brand"`
	TaxCode           commerce.StringList `json:"taxCode"`
	StockStatus       commerce.StringList `json:"stockStatus"`
	IsNetPrice        *bool               `json:"isNetPrice"`
	Base              commerce.StringList `json:"base"`
	Categories        commerce.StringList `json:"categories"`
	PriceID           commerce.StringList `json:"prices.id"`
	PriceCurrency     commerce.StringList `json:"prices.currency"`
	PriceCountry      commerce.StringList `json:"prices.country"`
	PriceCustomerType commerce.StringList `json:"prices.customerType"`
	PriceChannel      commerce.StringList `json:"prices.channel"`
	MediaID           commerce.StringList `json:"medias.id"`
	MediaCustomerType commerce.StringList `json:"medias.customerType"`
	MediaChannel      commerce.StringList `json:"medias.channel"`
	Fields            commerce.StringList `json:"fields"`
	commerce.PageArgs
}

type categoryUpdateArgs struct {
	ID string `json:"id"`
	catalog.CategoryInput
}

type categoryInfoArgs struct {
	ID           string `json:"id"`
	WithChildren *bool  `json:"withChildren"`
	Recursive    *bool  `json:"recursive"`
}

type categoryListArgs struct {
	ID          commerce.StringList `json:"id"`
	Title       string              `json:"title"`
	Description string              `json:"description"`
	Slug        commerce.StringList `json:"slug"`
	Parent      commerce.StringList `json:"parent"`
	Path        string              `json:"path"`
	Fields      commerce.StringList `json:"fields"`
	commerce.PageArgs
}

type listResult struct {
	Page commerce.Page `json:"page"`
	Data []any         `json:"data"`
}

// RegisterCatalog registers the catalog's operations under /catalog/v1/:
// product.create, product.update, product.remove, category.create,
// category.update, category.remove (admin) and product.info, product.list,
// category.info, category.list (any token). product.remove and
// category.remove answer {ok: true} alone.
func RegisterCatalog(s *Server, svc *catalog.Service) {
	const service = "catalog"
	Handle(s, Op{Service: service, Name: "product.create", Admin: true},
		func(ctx context.Context, a *catalog.ProductInput) (any, error) {
			p, err := svc.CreateProduct(ctx, *a)
			if err != nil {
				return nil, err
			}
			return map[string]any{"product": p}, nil
		})
	Handle(s, Op{Service: service, Name: "product.update", Admin: true},
		func(ctx context.Context, a *productUpdateArgs) (any, error) {
			p, err := svc.UpdateProduct(ctx, a.ID, a.ProductInput)
			if err != nil {
				return nil, err
			}
			return map[string]any{"product": p}, nil
		})
	Handle(s, Op{Service: service, Name: "product.remove", Admin: true},
		func(ctx context.Context, a *idArgs) (any, error) {
			return nil, svc.RemoveProduct(ctx, a.ID)
		})
	Handle(s, Op{Service: service, Name: "product.info", Read: true},
		func(ctx context.Context, a *productInfoArgs) (any, error) {
			p, err := svc.ViewProduct(ctx, a.ID)
			if err != nil {
				return nil, err
			}
			out, err := commerce.Project(p, a.Fields)
			if err != nil {
				return nil, err
			}
			return map[string]any{"product": out}, nil
		})
	Handle(s, Op{Service: service, Name: "product.list", Read: true},
		func(ctx context.Context, a *productListArgs) (any, error) {
			page, err := a.Page()
			if err != nil {
				return nil, err
			}
			f := catalog.ProductFilter{
				IDs: a.ID, SKUs: a.SKU, Title: a.Title, Description: a.Description, Statuses: a.Status,
				Brand: a.Brand, TaxCodes: a.TaxCode, IsNetPrice: a.IsNetPrice, Bases: a.Base,
				Categories: a.Categories, PriceIDs: a.PriceID, PriceCurrencies: a.PriceCurrency,
				PriceCountries: a.PriceCountry,
				// medias.customerType and medias.channel (SPEC.md) are aliases.
				PriceCustomerTypes: append(a.PriceCustomerType, a.MediaCustomerType...),
				PriceChannels:      append(a.PriceChannel, a.MediaChannel...),
				MediaIDs:           a.MediaID, Limit: page.Limit, Skip: page.Skip,
			}
			for i, v := range a.StockStatus {
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, commerce.Invalid(fmt.Sprintf("stockStatus[%d]: must be an integer", i))
				}
				f.StockStatuses = append(f.StockStatuses, n)
			}
			ps, err := svc.ListProducts(ctx, f)
			if err != nil {
				return nil, err
			}
			data, err := commerce.ProjectAll(ps, a.Fields)
			if err != nil {
				return nil, err
			}
			return listResult{Page: page, Data: data}, nil
		})

	Handle(s, Op{Service: service, Name: "category.create", Admin: true},
		func(ctx context.Context, a *catalog.CategoryInput) (any, error) {
			c, err := svc.CreateCategory(ctx, *a)
			if err != nil {
				return nil, err
			}
			return map[string]any{"category": c}, nil
		})
	Handle(s, Op{Service: service, Name: "category.update", Admin: true},
		func(ctx context.Context, a *categoryUpdateArgs) (any, error) {
			c, err := svc.UpdateCategory(ctx, a.ID, a.CategoryInput)
			if err != nil {
				return nil, err
			}
			return map[string]any{"category": c}, nil
		})
	Handle(s, Op{Service: service, Name: "category.remove", Admin: true},
		func(ctx context.Context, a *idArgs) (any, error) {
			return nil, svc.RemoveCategory(ctx, a.ID)
		})
	Handle(s, Op{Service: service, Name: "category.info", Read: true},
		func(ctx context.Context, a *categoryInfoArgs) (any, error) {
			c, err := svc.Category(ctx, a.ID, a.WithChildren != nil && *a.WithChildren, a.Recursive != nil && *a.Recursive)
			if err != nil {
				return nil, err
			}
			return map[string]any{"category": c}, nil
		})
	Handle(s, Op{Service: service, Name: "category.list", Read: true},
		func(ctx context.Context, a *categoryListArgs) (any, error) {
			page, err := a.Page()
			if err != nil {
				return nil, err
			}
			cs, err := svc.ListCategories(ctx, catalog.CategoryFilter{IDs: a.ID, Title: a.Title, Description: a.Description,
				Slugs: a.Slug, Parents: a.Parent, Path: a.Path, Limit: page.Limit, Skip: page.Skip})
			if err != nil {
				return nil, err
			}
			data, err := commerce.ProjectAll(cs, a.Fields)
			if err != nil {
				return nil, err
			}
			return listResult{Page: page, Data: data}, nil
		})
}
