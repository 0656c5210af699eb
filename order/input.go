package order

import (
	"encoding/json"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// InfoInput is the argument of order.info.
type InfoInput struct {
	// ID is the order's id.
	ID string `json:"id" openapi:"required"`
}

// ListInput is the argument of order.list; every filter is optional.
// createdFrom and createdTo are RFC 3339 times (inclusive).
type ListInput struct {
	// CustomerID matches the orders of any of these customers (a customer
	// token sees its own orders only).
	CustomerID commerce.StringList `json:"customerId"`
	// Status matches the orders with any of these statuses.
	Status commerce.StringList `json:"status" openapi:"enum=PLACED|COMPLETED|CANCELLED"`
	// PaymentStatus matches the orders with any of these payment statuses.
	PaymentStatus commerce.StringList `json:"paymentStatus" openapi:"enum=AUTHORIZED|PAID|PARTIALLY_REFUNDED|REFUNDED|VOIDED"`
	// FulfillmentStatus matches the orders with any of these fulfillment
	// statuses.
	FulfillmentStatus commerce.StringList `json:"fulfillmentStatus" openapi:"enum=NOT_SHIPPED|PARTIALLY_SHIPPED|SHIPPED|DELIVERED"`
	// Number matches the orders with any of these numbers ("1001"); a value
	// that is not a number matches nothing.
	Number commerce.StringList `json:"number"`
	// CreatedFrom matches the orders created at or after this RFC 3339
	// time.
	CreatedFrom *string `json:"createdFrom" openapi:"format=date-time"`
	// CreatedTo matches the orders created at or before this RFC 3339 time.
	CreatedTo *string `json:"createdTo" openapi:"format=date-time"`
	commerce.PageArgs
}

// CaptureInput is the argument of order.capture.
type CaptureInput struct {
	// ID is the order's id.
	ID string `json:"id" openapi:"required"`
}

// ItemQuantity is an {itemId, quantity} argument.
type ItemQuantity struct {
	// ItemID is the id of the order's item.
	ItemID string `json:"itemId" openapi:"required"`
	// Quantity is the number of its units.
	Quantity int64 `json:"quantity" openapi:"required,min=1"`
}

// checkItems records the problems of the items argument of order.fulfill
// and order.refund: each needs an itemId and a positive quantity.
func checkItems(p *commerce.Problems, items []ItemQuantity) {
	for i, it := range items {
		if it.ItemID == "" {
			p.Add(commerce.Index("items", i)+".itemId", "required")
		}
		if it.Quantity <= 0 {
			p.Add(commerce.Index("items", i)+".quantity", "must be a positive integer")
		}
	}
}

// FulfillInput is the argument of order.fulfill; Items omitted means
// every unit not yet shipped.
type FulfillInput struct {
	// ID is the order's id.
	ID string `json:"id" openapi:"required"`
	// Items are the units shipped, per item; absent, every unit not yet
	// shipped (an empty list is validation_error).
	Items []ItemQuantity `json:"items"`
	// Carrier is the shipping company.
	Carrier *string `json:"carrier"`
	// TrackingNumber is the carrier's tracking number.
	TrackingNumber *string `json:"trackingNumber"`
}

// DeliverInput is the argument of order.deliver.
type DeliverInput struct {
	// ID is the order's id.
	ID string `json:"id" openapi:"required"`
	// FulfillmentID is the id of the fulfillment delivered.
	FulfillmentID string `json:"fulfillmentId" openapi:"required"`
}

// CancelInput is the argument of order.cancel.
type CancelInput struct {
	// ID is the order's id.
	ID string `json:"id" openapi:"required"`
	// Reason says why the order is cancelled.
	Reason *string `json:"reason"`
}

// RefundInput is the argument of order.refund: Amount in major units of
// the order's currency, > 0.
type RefundInput struct {
	// ID is the order's id.
	ID string `json:"id" openapi:"required"`
	// Amount is the amount refunded, in major units of the order's
	// currency, more than 0 and at most what is left of the captured
	// amount (refund_exceeds_captured).
	Amount *money.Number `json:"amount" openapi:"required"`
	// Items are the units the refund is for, per item (at most what is left
	// to refund of each).
	Items []ItemQuantity `json:"items"`
	// Restock puts the items' units back in stock.
	Restock *bool `json:"restock"`
	// Reason says why the refund is made.
	Reason *string `json:"reason"`
}

// ReturnItemInput is an item of return.request: quantity units of the
// order item itemId, for a reason (one of ReturnReasons; OTHER when
// absent), with an optional note.
type ReturnItemInput struct {
	// ItemID is the order item returned.
	ItemID string `json:"itemId" openapi:"required"`
	// Quantity is how many of its shipped units are returned (more than 0).
	Quantity int64 `json:"quantity" openapi:"required,min=1"`
	// Reason is one of DAMAGED, WRONG_ITEM, NOT_AS_DESCRIBED, NO_LONGER_NEEDED, OTHER (OTHER when absent).
	Reason *string `json:"reason" openapi:"enum=DAMAGED|WRONG_ITEM|NOT_AS_DESCRIBED|NO_LONGER_NEEDED|OTHER"`
	// Note is the customer's or staff's words about the item.
	Note *string `json:"note"`
}

// ExchangeInput is return.request's exchange: the items the customer
// gets instead.
type ExchangeInput struct {
	// Items are the products sent instead, reserved at once at their current price.
	Items []ExchangeItemInput `json:"items" openapi:"required"`
}

// RequestInput is the argument of return.request.
type RequestInput struct {
	// OrderID is the order the units come from.
	OrderID string `json:"orderId" openapi:"required"`
	// Items are the order items returned, with quantities and reasons.
	Items []ReturnItemInput `json:"items" openapi:"required"`
	// Exchange, when given, asks for other products instead of (part of) the money.
	Exchange *ExchangeInput `json:"exchange"`
}

// ReceiveItemInput is an item of return.receive: quantity units of the
// return's item itemId received (0 or more), restocked (default true) in
// warehouseId (default the item's).
type ReceiveItemInput struct {
	// ItemID is the return's item received.
	ItemID string `json:"itemId" openapi:"required"`
	// Quantity is how many units arrived (0 or more, at most those asked for).
	Quantity int64 `json:"quantity" openapi:"required,min=0"`
	// Restock puts the units back in stock (default true).
	Restock *bool `json:"restock"`
	// WarehouseID is where restocked units go (default the item's warehouse).
	WarehouseID *string `json:"warehouseId"`
}

// ReceiveInput is the argument of return.receive; Items omitted means
// every unit asked for, restocked in its item's warehouse.
type ReceiveInput struct {
	// ID is the return's id.
	ID string `json:"id" openapi:"required"`
	// Items are the units received per item; absent: every unit asked for, restocked.
	Items []ReceiveItemInput `json:"items"`
}

// ReturnRefundInput is the argument of return.refund: Amount in major
// units (default: see Service.RefundReturn), Shipping to refund the
// order's shipping too, PaymentID and PaymentData to authorise what an
// exchange costs more than what was returned.
type ReturnRefundInput struct {
	// ID is the return's id.
	ID string `json:"id" openapi:"required"`
	// Amount is the refund in major units of the order's currency (default: what the customer paid for the received units, less the exchange's value).
	Amount *money.Number `json:"amount"`
	// Shipping also refunds the order's shipping (default false).
	Shipping *bool `json:"shipping"`
	// PaymentID is the payment provider authorising what an exchange costs more than what was returned.
	PaymentID *string `json:"paymentId"`
	// PaymentData is the provider's data for that authorisation (a Stripe payment method, ...).
	PaymentData json.RawMessage `json:"paymentData"`
}

// RejectInput is the argument of return.reject.
type RejectInput struct {
	// ID is the return's id.
	ID string `json:"id" openapi:"required"`
	// Reason says why the return is rejected.
	Reason *string `json:"reason"`
}

// ReturnInput names a return (return.info, return.cancel).
type ReturnInput struct {
	// ID is the return's id.
	ID string `json:"id" openapi:"required"`
}

// ReturnListInput is the argument of return.list; every filter is
// optional.
type ReturnListInput struct {
	// OrderID keeps the returns of these orders.
	OrderID commerce.StringList `json:"orderId"`
	// CustomerID keeps the returns of these customers (a customer's token sees only their own).
	CustomerID commerce.StringList `json:"customerId"`
	// Status keeps the returns in these statuses (REQUESTED, RECEIVED, REFUNDED, REJECTED, CANCELLED).
	Status commerce.StringList `json:"status" openapi:"enum=REQUESTED|RECEIVED|REFUNDED|REJECTED|CANCELLED"`
	commerce.PageArgs
}
