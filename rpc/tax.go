package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/tax"
)

type taxIDArgs struct {
	// ID is the tax's id.
	ID string `json:"id" openapi:"required"`
}

type taxResult struct {
	Tax tax.Tax `json:"tax"`
}

// RegisterTax registers the tax operations under /tax/v1/: tax.create,
// tax.update and tax.remove (admin), tax.info and tax.list (any token,
// GET or POST), and tax.cartTaxes (any token, GET or POST), which is
// served under /catalog/v1/ as well. tax.remove answers with the removed
// tax under "tax".
func RegisterTax(s *Server, svc *tax.Service) {
	Handle(s, Op{Service: "tax", Name: "tax.create", Admin: true, Result: taxResult{},
		Doc: "Creates a tax (a rate in percent or an amount) for a tax code.", Errors: []string{commerce.EDuplicateKey}},
		func(ctx context.Context, a *tax.CreateInput) (any, error) {
			t, err := svc.Create(ctx, *a)
			return taxResult{t}, err
		})
	Handle(s, Op{Service: "tax", Name: "tax.info", Read: true, Result: taxResult{},
		Doc: "A tax.", Errors: []string{commerce.ETaxNotFound}},
		func(ctx context.Context, a *taxIDArgs) (any, error) {
			t, err := svc.Info(ctx, a.ID)
			return taxResult{t}, err
		})
	Handle(s, Op{Service: "tax", Name: "tax.update", Admin: true, Result: taxResult{},
		Doc: "Changes the fields given of a tax.", Errors: []string{commerce.ETaxNotFound, commerce.EDuplicateKey}},
		func(ctx context.Context, a *tax.UpdateInput) (any, error) {
			t, err := svc.Update(ctx, *a)
			return taxResult{t}, err
		})
	Handle(s, Op{Service: "tax", Name: "tax.remove", Admin: true, Result: taxResult{},
		Doc: "Removes a tax, answering with it.", Errors: []string{commerce.ETaxNotFound}},
		func(ctx context.Context, a *taxIDArgs) (any, error) {
			t, err := svc.Remove(ctx, a.ID)
			return taxResult{t}, err
		})
	Handle(s, Op{Service: "tax", Name: "tax.list", Read: true, Result: Partial(taxList{}),
		Doc: "Taxes matching the filters, a page at a time."},
		func(ctx context.Context, a *tax.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	cartTaxes := func(ctx context.Context, a *tax.CartTaxesInput) (any, error) {
		return svc.CartTaxes(ctx, *a)
	}
	Handle(s, Op{Service: "tax", Name: "tax.cartTaxes", Read: true, Result: tax.CartTaxesResult{}, Doc: cartTaxesDoc, Errors: cartTaxesErrors}, cartTaxes)
	Handle(s, Op{Service: "catalog", Name: "tax.cartTaxes", Read: true, Result: tax.CartTaxesResult{}, Doc: cartTaxesDoc, Errors: cartTaxesErrors}, cartTaxes)
}

const cartTaxesDoc = "The taxes of the items given (or of a cart's entries), by their products' tax codes."

var cartTaxesErrors = []string{commerce.ECartNotFound, commerce.EProductNotFound}

type taxList struct {
	Page commerce.Page `json:"page"`
	Data []tax.Tax     `json:"data"`
}
