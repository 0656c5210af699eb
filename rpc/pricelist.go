package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/pricelist"
)

// The results of the groups' and price lists' operations, for
// /openapi.json.
type (
	groupResult struct {
		Group customer.Group `json:"group"`
	}
	groupList struct {
		Page commerce.Page    `json:"page"`
		Data []customer.Group `json:"data"`
	}
	priceListResult struct {
		PriceList pricelist.PriceList `json:"priceList"`
	}
	priceListList struct {
		Page commerce.Page         `json:"page"`
		Data []pricelist.PriceList `json:"data"`
	}
)

// RegisterGroups registers the customer groups (docs/api.md section 26)
// under /customer/v1/: group.create, group.update, group.remove and
// group.list (GET or POST); admin tokens only, others get forbidden.
func RegisterGroups(s *Server, svc *customer.Service) {
	const cs = "customer"
	Handle(s, Op{Service: cs, Name: "group.create", Admin: true, Result: groupResult{},
		Doc: "Creates a customer group (admin): a code ([A-Z0-9_-]{1,40}) and a title.", Errors: []string{commerce.EDuplicateKey}},
		func(ctx context.Context, a *customer.GroupInput) (any, error) {
			g, err := svc.CreateGroup(ctx, *a)
			return recordAnswer("group", g, err)
		})
	Handle(s, Op{Service: cs, Name: "group.update", Admin: true, Result: groupResult{},
		Doc: "Changes the title of the customer group with the code (admin).", Errors: []string{commerce.EGroupNotFound}},
		func(ctx context.Context, a *customer.GroupInput) (any, error) {
			g, err := svc.UpdateGroup(ctx, *a)
			return recordAnswer("group", g, err)
		})
	Handle(s, Op{Service: cs, Name: "group.remove", Admin: true, Result: struct{}{},
		Doc: "Removes the customer group with the code (admin).", Errors: []string{commerce.EGroupNotFound}},
		func(ctx context.Context, a *customer.GroupCodeInput) (any, error) {
			return nil, svc.RemoveGroup(ctx, a.Code)
		})
	Handle(s, Op{Service: cs, Name: "group.list", Read: true, Admin: true, Result: groupList{},
		Doc: "The customer groups, a page at a time, in creation order (admin)."},
		func(ctx context.Context, a *customer.GroupListInput) (any, error) {
			return svc.ListGroups(ctx, *a)
		})
}

// RegisterPriceLists registers the price lists (docs/api.md section 26)
// under /catalog/v1/: priceList.create, priceList.update,
// priceList.remove, priceList.info and priceList.list (GET or POST);
// admin tokens only, others get forbidden. priceList.remove answers with
// the removed list.
func RegisterPriceLists(s *Server, svc *pricelist.Service) {
	const cs = "catalog"
	Handle(s, Op{Service: cs, Name: "priceList.create", Admin: true, Result: priceListResult{},
		Doc:    "Creates a price list (admin): prices of products for groups, a channel, a country and a period, with a priority and quantity tiers.",
		Errors: []string{commerce.EDuplicateKey, commerce.EProductNotFound}},
		func(ctx context.Context, a *pricelist.CreateInput) (any, error) {
			l, err := svc.Create(ctx, *a)
			return recordAnswer("priceList", l, err)
		})
	Handle(s, Op{Service: cs, Name: "priceList.update", Admin: true, Result: priceListResult{},
		Doc:    "Changes the fields given of a price list (admin); prices replaces its prices, setPrices adds or changes some, removePrices removes some.",
		Errors: []string{commerce.EPriceListNotFound, commerce.EDuplicateKey, commerce.EProductNotFound}},
		func(ctx context.Context, a *pricelist.UpdateInput) (any, error) {
			l, err := svc.Update(ctx, *a)
			return recordAnswer("priceList", l, err)
		})
	Handle(s, Op{Service: cs, Name: "priceList.remove", Admin: true, Result: priceListResult{},
		Doc: "Removes a price list (admin), answering with it.", Errors: []string{commerce.EPriceListNotFound}},
		func(ctx context.Context, a *pricelist.IDInput) (any, error) {
			l, err := svc.Remove(ctx, a.ID)
			return recordAnswer("priceList", l, err)
		})
	Handle(s, Op{Service: cs, Name: "priceList.info", Read: true, Admin: true, Result: priceListResult{},
		Doc: "A price list with its prices (admin).", Errors: []string{commerce.EPriceListNotFound}},
		func(ctx context.Context, a *pricelist.IDInput) (any, error) {
			l, err := svc.Info(ctx, a.ID)
			return recordAnswer("priceList", l, err)
		})
	Handle(s, Op{Service: cs, Name: "priceList.list", Read: true, Admin: true, Result: priceListList{},
		Doc: "Price lists matching the filters, with their prices, a page at a time, in creation order (admin)."},
		func(ctx context.Context, a *pricelist.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
}
