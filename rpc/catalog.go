package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"commerce"
	"commerce/catalog"
)

// stringList is a String List argument: a JSON array (of strings or
// numbers) or a comma-separated string, in the body as in the query string.
type stringList []string

// UnmarshalJSON reads an array of strings or numbers, a comma-separated
// string, or a single number.
func (l *stringList) UnmarshalJSON(b []byte) error {
	typeErr := &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[stringList](), Offset: math.MaxInt64}
	b = bytes.TrimSpace(b)
	var s string
	var n json.Number
	if json.Unmarshal(b, &s) == nil {
		*l = splitList(s)
		return nil
	}
	if json.Unmarshal(b, &n) == nil {
		*l = stringList{n.String()}
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return typeErr
	}
	out := make(stringList, 0, len(raw))
	for _, r := range raw {
		if err := json.Unmarshal(r, &s); err != nil {
			if err := json.Unmarshal(r, &n); err != nil {
				return typeErr
			}
			s = n.String()
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	*l = out
	return nil
}

func splitList(s string) stringList {
	out := stringList{}
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// project returns the JSON object of v reduced to id plus fields (unknown
// names ignored), or v itself when fields is empty.
func project(v any, fields []string) (any, error) {
	if len(fields) == 0 {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{"id": all["id"]}
	for _, f := range fields {
		if raw, ok := all[f]; ok {
			out[f] = raw
		}
	}
	return out, nil
}

func projectAll[T any](list []T, fields []string) ([]any, error) {
	out := make([]any, len(list))
	for i, v := range list {
		p, err := project(v, fields)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

type idArgs struct {
	ID string `json:"id"`
}

type productUpdateArgs struct {
	ID string `json:"id"`
	catalog.ProductInput
}

type productInfoArgs struct {
	ID     string     `json:"id"`
	Fields stringList `json:"fields"`
}

type productListArgs struct {
	ID                stringList `json:"id"`
	SKU               stringList `json:"sku"`
	Title             string     `json:"title"`
	Description       string     `json:"description"`
	Status            stringList `json:"status"`
	Brand             string     `json:"brand"`
	TaxCode           stringList `json:"taxCode"`
	StockStatus       stringList `json:"stockStatus"`
	IsNetPrice        *bool      `json:"isNetPrice"`
	Base              stringList `json:"base"`
	Categories        stringList `json:"categories"`
	PriceID           stringList `json:"prices.id"`
	PriceCurrency     stringList `json:"prices.currency"`
	PriceCountry      stringList `json:"prices.country"`
	PriceCustomerType stringList `json:"prices.customerType"`
	PriceChannel      stringList `json:"prices.channel"`
	MediaID           stringList `json:"medias.id"`
	MediaCustomerType stringList `json:"medias.customerType"`
	MediaChannel      stringList `json:"medias.channel"`
	Fields            stringList `json:"fields"`
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
	ID          stringList `json:"id"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Slug        stringList `json:"slug"`
	Parent      stringList `json:"parent"`
	Path        string     `json:"path"`
	Fields      stringList `json:"fields"`
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
			out, err := project(p, a.Fields)
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
			data, err := projectAll(ps, a.Fields)
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
			data, err := projectAll(cs, a.Fields)
			if err != nil {
				return nil, err
			}
			return listResult{Page: page, Data: data}, nil
		})
}
