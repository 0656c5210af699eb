package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/order"
)

type returnResult struct {
	Return *order.Return `json:"return"`
}

// returnList is the answer of return.list, for /openapi.json.
type returnList struct {
	Page commerce.Page  `json:"page"`
	Data []order.Return `json:"data"`
}

type draftResult struct {
	Draft cart.View `json:"draft"`
}

// RegisterReturns registers the operations of returns, exchanges and
// draft orders under /order/v1/ (docs/api.md section 24).
// return.request, return.cancel, return.info and return.list (GET or POST)
// are open to any valid token, the service deciding who may (an admin
// token, or the order's customer); return.receive, return.refund,
// return.reject, draft.create and draft.complete need an admin token.
// Returns answer {ok, return} (return.list {ok, page, data}); draft.create
// answers {ok, draft} (the draft cart in the calculateCart form),
// draft.complete {ok, cart, order} as cart.checkout.
func RegisterReturns(s *Server, svc *order.Service, carts *cart.Service) {
	Handle(s, Op{Service: "order", Name: "return.request", Result: returnResult{},
		Doc: "Asks for a return of shipped units of an order (admin, or the order's customer within the return window), optionally with an exchange whose items are reserved at once.",
		Errors: []string{commerce.EOrderNotFound, commerce.EInvalidOrderState, commerce.EReturnWindowExpired, commerce.EReturnExceedsQuantity,
			commerce.EOutOfStock, commerce.EProductNotFound, commerce.EProductDiscontinued, commerce.ENoSuitablePrice,
			commerce.EMaxQuantityPerProduct, commerce.EMaxNumberOfEntries, commerce.EConcurrentMod}}, returnOp(svc.RequestReturn))
	Handle(s, Op{Service: "order", Name: "return.receive", Admin: true, Result: returnResult{},
		Doc:    "Records the units of a REQUESTED return received (by default every unit asked for) and restocks them (by default): RECEIVED.",
		Errors: []string{commerce.EReturnNotFound, commerce.EInvalidReturnState, commerce.EReturnExceedsQuantity, commerce.EConcurrentMod}}, returnOp(svc.ReceiveReturn))
	Handle(s, Op{Service: "order", Name: "return.refund", Admin: true, Result: returnResult{},
		Doc: "Refunds a RECEIVED return through the order's payment (by default what the received units cost, less the exchange's value) and places the exchange's order: REFUNDED.",
		Errors: []string{commerce.EReturnNotFound, commerce.EInvalidReturnState, commerce.EInvalidOrderState, commerce.ERefundExceedsCaptured,
			commerce.EPaymentRequired, commerce.EOutOfStock, commerce.EPaymentFailed, commerce.EConcurrentMod}}, returnOp(svc.RefundReturn))
	Handle(s, Op{Service: "order", Name: "return.reject", Admin: true, Result: returnResult{},
		Doc:    "Rejects a REQUESTED or RECEIVED return, releasing its exchange's reservations: REJECTED.",
		Errors: []string{commerce.EReturnNotFound, commerce.EInvalidReturnState, commerce.EConcurrentMod}}, returnOp(svc.RejectReturn))
	Handle(s, Op{Service: "order", Name: "return.cancel", Result: returnResult{},
		Doc:    "Cancels a REQUESTED return (admin, or its customer), releasing its exchange's reservations: CANCELLED.",
		Errors: []string{commerce.EReturnNotFound, commerce.EInvalidReturnState, commerce.EConcurrentMod}}, returnOp(svc.CancelReturn))
	Handle(s, Op{Service: "order", Name: "return.info", Read: true, Result: returnResult{},
		Doc:    "A return: any to an admin token, the customer's own to a customer token.",
		Errors: []string{commerce.EReturnNotFound}}, returnOp(svc.ReturnInfo))
	Handle(s, Op{Service: "order", Name: "return.list", Read: true, Result: returnList{},
		Doc: "Returns matching the filters, in creation order (a customer token sees only its own; a token with neither admin nor customerId is forbidden)."},
		func(ctx context.Context, a *order.ReturnListInput) (any, error) { return svc.ReturnList(ctx, *a) })
	Handle(s, Op{Service: "order", Name: "draft.create", Admin: true, Result: draftResult{},
		Doc: "Creates a draft order for a customer (by id or email): a DRAFT cart, priced, taxed and reserved as any cart, that only admin tokens see and change with the cart operations.",
		Errors: []string{commerce.ECustomerNotFound, commerce.EInvalidCountry, commerce.EInvalidState, commerce.EProductNotFound, commerce.EProductDiscontinued,
			commerce.ENoSuitablePrice, commerce.ENotEnoughStock, commerce.EMaxQuantityPerProduct, commerce.EMaxNumberOfEntries,
			commerce.EShippingAddressNotSet, commerce.EShippingAddressNotset, commerce.EInvalidShippingMethod, commerce.EShippingNotFound,
			commerce.ECouponNotFound, commerce.ECouponUsageLimitReached}},
		func(ctx context.Context, a *cart.DraftInput) (any, error) {
			c, err := carts.CreateDraft(ctx, *a)
			if err != nil {
				return nil, err
			}
			b, err := cart.Render(c, cart.CalculateForm).MarshalJSON()
			if err != nil {
				return nil, commerce.Errorf(commerce.EInternal, "draft %s: %w", c.ID, err)
			}
			return RawField{Name: "draft", JSON: b}, nil
		})
	Handle(s, Op{Service: "order", Name: "draft.complete", Admin: true, Result: cartOrderResult{},
		Doc: "Completes a draft order as cart.checkout checks a cart out; the order's source is DRAFT.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EShippingAddressNotset, commerce.EInvalidShippingMethod, commerce.EShippingNotFound,
			commerce.ENotEnoughStock, commerce.EProductNotFound, commerce.EProductDiscontinued, commerce.EPaymentFailed,
			commerce.ECouponUsageLimitReached, commerce.EConcurrentMod, commerce.ECustomerNotFound, commerce.EPricesChanged}},
		func(ctx context.Context, a *cart.CompleteInput) (any, error) {
			c, o, err := carts.CompleteDraft(ctx, *a)
			if err != nil {
				return nil, err
			}
			return cartOrderResult{Cart: cart.Render(c, cart.CalculateForm), Order: o}, nil
		})
}

// returnOp adapts a use case returning a return to an operation answering
// {ok, return}.
func returnOp[A any](fn func(context.Context, A) (*order.Return, error)) func(context.Context, *A) (any, error) {
	return func(ctx context.Context, a *A) (any, error) {
		r, err := fn(ctx, *a)
		if err != nil {
			return nil, err
		}
		return returnResult{r}, nil
	}
}
