package rpc

import (
	"context"

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
	Handle(s, Op{Service: "cart", Name: "shipping.create", Admin: true},
		func(ctx context.Context, a *shipping.CreateInput) (any, error) {
			m, err := svc.Create(ctx, *a)
			if err != nil {
				return nil, err
			}
			return shippingResult{m}, nil
		})
	Handle(s, Op{Service: "cart", Name: "shipping.info", Read: true},
		func(ctx context.Context, a *shipping.InfoInput) (any, error) {
			m, err := svc.Info(ctx, *a)
			if err != nil {
				return nil, err
			}
			return shippingResult{m}, nil
		})
	Handle(s, Op{Service: "cart", Name: "shipping.list", Read: true},
		func(ctx context.Context, a *shipping.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	Handle(s, Op{Service: "cart", Name: "shipping.remove", Admin: true},
		func(ctx context.Context, a *shipping.RemoveInput) (any, error) {
			m, err := svc.Remove(ctx, *a)
			if err != nil {
				return nil, err
			}
			return shippingResult{m}, nil
		})
}
