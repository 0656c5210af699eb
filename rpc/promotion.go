package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion"
)

type promotionResult struct {
	Promotion promotion.Promotion `json:"promotion"`
}

type promotionIDArgs struct {
	// ID is the promotion's id.
	ID string `json:"id" openapi:"required"`
}

// RegisterPromotion registers the promotion operations under /promotion/:
// promotion.create (admin; v2 and v1, the same operation), promotion.info,
// promotion.list, promotion.update (admin) under v1, and
// promotion.cartPromotions (any token; GET or POST) under v1 and v2, its
// form chosen by the shape of items[].price whatever the path's version.
func RegisterPromotion(s *Server, svc *promotion.Service) {
	Handle(s, Op{Service: "promotion", Name: "promotion.create", Versions: []string{"v1", "v2"}, Admin: true, Result: promotionResult{},
		Doc:    "Creates a promotion: a rule (if) and its effects (then) in the JSON rule language.",
		Errors: []string{commerce.EDuplicateKey}}, // a code taken (case-insensitively): data {index: "code", code}
		func(ctx context.Context, a *promotion.CreateInput) (any, error) {
			p, err := svc.Create(ctx, *a)
			if err != nil {
				return nil, err
			}
			return promotionResult{p}, nil
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.info", Read: true, Result: promotionResult{},
		Doc: "A promotion.", Errors: []string{commerce.EPromotionNotFound}},
		func(ctx context.Context, a *promotionIDArgs) (any, error) {
			p, err := svc.Info(ctx, a.ID)
			if err != nil {
				return nil, err
			}
			return promotionResult{p}, nil
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.list", Read: true, Result: Partial(promotionList{}),
		Doc: "Promotions matching the filters, a page at a time."},
		func(ctx context.Context, a *promotion.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.update", Admin: true, Result: promotionResult{},
		Doc: "Changes the fields given of a promotion.", Errors: []string{commerce.EPromotionNotFound, commerce.EDuplicateKey}},
		func(ctx context.Context, a *promotion.UpdateInput) (any, error) {
			p, err := svc.Update(ctx, *a)
			if err != nil {
				return nil, err
			}
			return promotionResult{p}, nil
		})
	Handle(s, Op{Service: "promotion", Name: "promotion.cartPromotions", Versions: []string{"v1", "v2"}, Read: true, Result: promotion.CartResult{},
		Doc:    "The promotions that apply to the items given (prices as plain numbers: v1; money objects: v2), and their effects.",
		Errors: []string{commerce.ECartNotFound, commerce.EProductNotFound}},
		func(ctx context.Context, a *promotion.CartInput) (any, error) {
			return svc.CartPromotions(ctx, *a)
		})
}

type promotionList struct {
	Page commerce.Page         `json:"page"`
	Data []promotion.Promotion `json:"data"`
}
