package order

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// InfoInput is the argument of order.info.
type InfoInput struct {
	ID string `json:"id"`
}

// ListInput is the argument of order.list; every filter is optional.
// createdFrom and createdTo are RFC 3339 times (inclusive).
type ListInput struct {
	CustomerID        commerce.StringList `json:"customerId"`
	Status            commerce.StringList `json:"status"`
	PaymentStatus     commerce.StringList `json:"paymentStatus"`
	FulfillmentStatus commerce.StringList `json:"fulfillmentStatus"`
	Number            commerce.StringList `json:"number"`
	CreatedFrom       *string             `json:"createdFrom"`
	CreatedTo         *string             `json:"createdTo"`
	commerce.PageArgs
}

// CaptureInput is the argument of order.capture.
type CaptureInput struct {
	ID string `json:"id"`
}

// ItemQuantity is an {itemId, quantity} argument.
type ItemQuantity struct {
	ItemID   string `json:"itemId"`
	Quantity int64  `json:"quantity"`
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
	ID             string         `json:"id"`
	Items          []ItemQuantity `json:"items"`
	Carrier        *string        `json:"carrier"`
	TrackingNumber *string        `json:"trackingNumber"`
}

// DeliverInput is the argument of order.deliver.
type DeliverInput struct {
	ID            string `json:"id"`
	FulfillmentID string `json:"fulfillmentId"`
}

// CancelInput is the argument of order.cancel.
type CancelInput struct {
	ID     string  `json:"id"`
	Reason *string `json:"reason"`
}

// RefundInput is the argument of order.refund: Amount in major units of
// the order's currency, > 0.
type RefundInput struct {
	ID      string         `json:"id"`
	Amount  *money.Number  `json:"amount"`
	Items   []ItemQuantity `json:"items"`
	Restock *bool          `json:"restock"`
	Reason  *string        `json:"reason"`
}
