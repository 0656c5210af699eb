package order

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// InfoInput is the argument of order.info.
type InfoInput struct {
	// ID is the order's id.
	ID string `json:"id"`
}

// ListInput is the argument of order.list; every filter is optional.
// createdFrom and createdTo are RFC 3339 times (inclusive).
type ListInput struct {
	// CustomerID matches the orders of any of these customers (a customer
	// token sees its own orders only).
	CustomerID commerce.StringList `json:"customerId"`
	// Status matches the orders with any of these statuses.
	Status commerce.StringList `json:"status"`
	// PaymentStatus matches the orders with any of these payment statuses.
	PaymentStatus commerce.StringList `json:"paymentStatus"`
	// FulfillmentStatus matches the orders with any of these fulfillment
	// statuses.
	FulfillmentStatus commerce.StringList `json:"fulfillmentStatus"`
	// Number matches the orders with any of these numbers ("1001"); a value
	// that is not a number matches nothing.
	Number commerce.StringList `json:"number"`
	// CreatedFrom matches the orders created at or after this RFC 3339
	// time.
	CreatedFrom *string `json:"createdFrom"`
	// CreatedTo matches the orders created at or before this RFC 3339 time.
	CreatedTo *string `json:"createdTo"`
	commerce.PageArgs
}

// CaptureInput is the argument of order.capture.
type CaptureInput struct {
	// ID is the order's id.
	ID string `json:"id"`
}

// ItemQuantity is an {itemId, quantity} argument.
type ItemQuantity struct {
	// ItemID is the id of the order's item.
	ItemID string `json:"itemId"`
	// Quantity is the number of its units.
	Quantity int64 `json:"quantity"`
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
	ID string `json:"id"`
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
	ID string `json:"id"`
	// FulfillmentID is the id of the fulfillment delivered.
	FulfillmentID string `json:"fulfillmentId"`
}

// CancelInput is the argument of order.cancel.
type CancelInput struct {
	// ID is the order's id.
	ID string `json:"id"`
	// Reason says why the order is cancelled.
	Reason *string `json:"reason"`
}

// RefundInput is the argument of order.refund: Amount in major units of
// the order's currency, > 0.
type RefundInput struct {
	// ID is the order's id.
	ID string `json:"id"`
	// Amount is the amount refunded, in major units of the order's
	// currency, more than 0 and at most what is left of the captured
	// amount (refund_exceeds_captured).
	Amount *money.Number `json:"amount"`
	// Items are the units the refund is for, per item (at most what is left
	// to refund of each).
	Items []ItemQuantity `json:"items"`
	// Restock puts the items' units back in stock.
	Restock *bool `json:"restock"`
	// Reason says why the refund is made.
	Reason *string `json:"reason"`
}
