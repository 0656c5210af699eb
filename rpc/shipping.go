package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/shipping"
)

type shippingResult struct {
	Shipping shipping.Method `json:"shipping"`
}

// RegisterShipping registers the shipping-method operations under
// /cart/v1/: shipping.create and shipping.remove (admin), shipping.info and
// shipping.list (any token, GET or POST). create, info and remove answer
// {ok, shipping}; remove answers with the removed method. info and remove
// take the method's id as `id` or `shippingId`.
func RegisterShipping(s *Server, svc *shipping.Service) {
	Handle(s, Op{Service: "cart", Name: "shipping.create", Admin: true, Result: shippingResult{},
		Doc: "Creates a shipping method with its rates by location group.", Errors: []string{commerce.EInvalidCountry, commerce.EInvalidState}},
		func(ctx context.Context, a *shipping.CreateInput) (any, error) {
			m, err := svc.Create(ctx, *a)
			if err != nil {
				return nil, err
			}
			return shippingResult{m}, nil
		})
	Handle(s, Op{Service: "cart", Name: "shipping.info", Read: true, Result: shippingResult{},
		Doc: "A shipping method (id or shippingId).", Errors: []string{commerce.EShippingNotFound}},
		func(ctx context.Context, a *shipping.InfoInput) (any, error) {
			m, err := svc.Info(ctx, *a)
			if err != nil {
				return nil, err
			}
			return shippingResult{m}, nil
		})
	Handle(s, Op{Service: "cart", Name: "shipping.list", Read: true, Result: Partial(shippingList{}),
		Doc: "Shipping methods matching the filters, a page at a time."},
		func(ctx context.Context, a *shipping.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	Handle(s, Op{Service: "cart", Name: "shipping.remove", Admin: true, Result: shippingResult{},
		Doc: "Removes a shipping method, answering with it.", Errors: []string{commerce.EShippingNotFound}},
		func(ctx context.Context, a *shipping.RemoveInput) (any, error) {
			m, err := svc.Remove(ctx, *a)
			if err != nil {
				return nil, err
			}
			return shippingResult{m}, nil
		})
}

type shippingList struct {
	Page commerce.Page     `json:"page"`
	Data []shipping.Method `json:"data"`
}
