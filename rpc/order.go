package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/order"
)

type orderResult struct {
	Order *order.Order `json:"order"`
}

// orderList is the answer of order.list, for /openapi.json.
type orderList struct {
	Page commerce.Page `json:"page"`
	Data []order.Order `json:"data"`
}

// RegisterOrder registers the order operations under /order/v1/
// (docs/api.md section 13). order.info and order.list (GET or POST) and
// order.cancel are open to any valid token, the service deciding who
// sees what (an admin token every order, a token with customerId that
// customer's, any other token ANON orders by id and no order.list);
// order.capture, order.fulfill, order.deliver and order.refund need an
// admin token. Each answers {ok, order} except order.list.
func RegisterOrder(s *Server, svc *order.Service) {
	Handle(s, Op{Service: "order", Name: "order.info", Read: true, Result: orderResult{},
		Doc:    "An order: any to an admin token, the customer's own to a customer token, an ANON order by its id to other tokens.",
		Errors: []string{commerce.EOrderNotFound}}, orderOp(svc.Info))
	Handle(s, Op{Service: "order", Name: "order.list", Read: true, Result: orderList{},
		Doc: "Orders matching the filters, newest first, a page at a time (a customer token sees only its own; a token with neither admin nor customerId is forbidden)."},
		func(ctx context.Context, a *order.ListInput) (any, error) { return svc.List(ctx, *a) })
	Handle(s, Op{Service: "order", Name: "order.capture", Admin: true, Result: orderResult{},
		Doc:    "Captures the whole authorised amount; paymentStatus becomes PAID.",
		Errors: []string{commerce.EOrderNotFound, commerce.EInvalidOrderState, commerce.EPaymentFailed, commerce.EConcurrentMod}}, orderOp(svc.Capture))
	Handle(s, Op{Service: "order", Name: "order.fulfill", Admin: true, Result: orderResult{},
		Doc:    "Ships items of the order (by default every unit not yet shipped), adding a SHIPPED fulfillment.",
		Errors: []string{commerce.EOrderNotFound, commerce.EInvalidOrderState, commerce.EFulfillmentExceedsQuantity, commerce.EConcurrentMod}}, orderOp(svc.Fulfill))
	Handle(s, Op{Service: "order", Name: "order.deliver", Admin: true, Result: orderResult{},
		Doc:    "Marks a fulfillment DELIVERED.",
		Errors: []string{commerce.EOrderNotFound, commerce.EFulfillmentNotFound, commerce.EInvalidOrderState, commerce.EConcurrentMod}}, orderOp(svc.Deliver))
	Handle(s, Op{Service: "order", Name: "order.cancel", Result: orderResult{},
		Doc:    "Cancels an order nothing of which is shipped: restocks it, voids or refunds the payment, gives coupon uses back.",
		Errors: []string{commerce.EOrderNotFound, commerce.EInvalidOrderState, commerce.EPaymentFailed, commerce.EConcurrentMod}}, orderOp(svc.Cancel))
	Handle(s, Op{Service: "order", Name: "order.refund", Admin: true, Result: orderResult{},
		Doc:    "Refunds an amount of the captured payment (optionally restocking the items named); never more than was captured.",
		Errors: []string{commerce.EOrderNotFound, commerce.EInvalidOrderState, commerce.ERefundExceedsCaptured, commerce.EPaymentFailed, commerce.EConcurrentMod}}, orderOp(svc.Refund))
}

// orderOp adapts a use case returning an order to an operation answering
// {ok, order}.
func orderOp[A any](fn func(context.Context, A) (*order.Order, error)) func(context.Context, *A) (any, error) {
	return func(ctx context.Context, a *A) (any, error) {
		o, err := fn(ctx, *a)
		if err != nil {
			return nil, err
		}
		return orderResult{o}, nil
	}
}
