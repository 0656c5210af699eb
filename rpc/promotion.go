package rpc

import (
	"context"

	"github.com/commercekit/commerce/promotion"
)

type promotionResult struct {
	Promotion promotion.Promotion `json:"promotion"`
}

type promotionIDArgs struct {
	ID string `json:"id"`
}

// RegisterPromotion registers the promotion operations under /promotion/:
// promotion.create (admin; v2 and v1, the same operation), promotion.info,
// promotion.list, promotion.update (admin) under v1, and
// promotion.cartPromotions (any token; GET or POST) under v1 and v2, its
// form chosen by the shape of items[].price whatever the path's version.
func RegisterPromotion(s *Server, svc *promotion.Service) {
	Handle(s, Op{Service: "promotion", Name: "promotion.create", Versions: []string{"v1", "v2"}, Admin: true},
		func(ctx context.Context, a *promotion.CreateInput) (any, error) {
			p, err := svc.Create(ctx, *a)
			if err != nil {
				return nil, err
			}
			return promotionResult{p}, nil
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.info", Read: true},
		func(ctx context.Context, a *promotionIDArgs) (any, error) {
			p, err := svc.Info(ctx, a.ID)
			if err != nil {
				return nil, err
			}
			return promotionResult{p}, nil
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.list", Read: true},
		func(ctx context.Context, a *promotion.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.update", Admin: true},
		func(ctx context.Context, a *promotion.UpdateInput) (any, error) {
			p, err := svc.Update(ctx, *a)
			if err != nil {
				return nil, err
			}
			return promotionResult{p}, nil
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.cartPromotions", Versions: []string{"v1", "v2"}, Read: true},
		func(ctx context.Context, a *promotion.CartInput) (any, error) {
			return svc.CartPromotions(ctx, *a)
		})
}
