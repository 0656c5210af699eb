package order

import (
	"encoding/json"

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

// ReturnItemInput is an item of return.request: quantity units of the
// order item itemId, for a reason (one of ReturnReasons; OTHER when
// absent), with an optional note.
type ReturnItemInput struct {
	ItemID   string  `json:"itemId"`
	Quantity int64   `json:"quantity"`
	Reason   *string `json:"reason"`
	Note     *string `json:"note"`
}

// ExchangeInput is return.request's exchange: the items the customer
// gets instead.
type ExchangeInput struct {
	Items []ExchangeItemInput `json:"items"`
}

// RequestInput is the argument of return.request.
type RequestInput struct {
	OrderID  string            `json:"orderId"`
	Items    []ReturnItemInput `json:"items"`
	Exchange *ExchangeInput    `json:"exchange"`
}

// ReceiveItemInput is an item of return.receive: quantity units of the
// return's item itemId received (0 or more), restocked (default true) in
// warehouseId (default the item's).
type ReceiveItemInput struct {
	ItemID      string  `json:"itemId"`
	Quantity    int64   `json:"quantity"`
	Restock     *bool   `json:"restock"`
	WarehouseID *string `json:"warehouseId"`
}

// ReceiveInput is the argument of return.receive; Items omitted means
// every unit asked for, restocked in its item's warehouse.
type ReceiveInput struct {
	ID    string             `json:"id"`
	Items []ReceiveItemInput `json:"items"`
}

// ReturnRefundInput is the argument of return.refund: Amount in major
// units (default: see Service.RefundReturn), Shipping to refund the
// order's shipping too, PaymentID and PaymentData to authorise what an
// exchange costs more than what was returned.
type ReturnRefundInput struct {
	ID          string          `json:"id"`
	Amount      *money.Number   `json:"amount"`
	Shipping    *bool           `json:"shipping"`
	PaymentID   *string         `json:"paymentId"`
	PaymentData json.RawMessage `json:"paymentData"`
}

// RejectInput is the argument of return.reject.
type RejectInput struct {
	ID     string  `json:"id"`
	Reason *string `json:"reason"`
}

// ReturnInput names a return (return.info, return.cancel).
type ReturnInput struct {
	ID string `json:"id"`
}

// ReturnListInput is the argument of return.list; every filter is
// optional.
type ReturnListInput struct {
	OrderID    commerce.StringList `json:"orderId"`
	CustomerID commerce.StringList `json:"customerId"`
	Status     commerce.StringList `json:"status"`
	commerce.PageArgs
}
