// Package order is the order a checkout places and what happens to it
// after: capture, fulfilment, delivery, cancellation and refunds
// (docs/api.md sections 13 and 14).
//
// An order is created by cart.checkout in the transaction that checks the
// cart out (Service.Place, through the cart's Tx.Orders()), as a snapshot:
// later catalog, promotion or tax changes never touch it. Every change is
// one store transaction that locks the order, checks its state and emits
// its ORDERS event.
//
// Payment operations (capture, cancel, refund) call the payment provider,
// which never happens inside a transaction. They run in two phases: a
// first transaction checks the state and records the intent (an
// Operation, with the idempotency key the provider is called with); the
// provider is called outside any transaction; a second transaction
// applies the result and clears the intent (or only clears it when the
// provider refused). An intent whose provider answer was lost (a
// provider_error: the provider may have acted) stays: the same operation
// asked again, or the recovery job (Service.Run), calls the provider again
// with the same key (same effect as one call) and applies the result
// once; so is an intent a crash left behind.
//
// Files: order.go (records, states, errors), input.go (arguments),
// store.go (the store), service.go (place, read, list, who sees what),
// service_fulfill.go (fulfil, deliver), service_payment.go (capture,
// cancel, refund, the recovery job), notify.go (provider notifications).
package order

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Error codes of the orders area (docs/api.md section 13).
const (
	ENotFound                   = commerce.EOrderNotFound
	EInvalidState               = commerce.EInvalidOrderState
	EFulfillmentExceedsQuantity = commerce.EFulfillmentExceedsQuantity
	EFulfillmentNotFound        = commerce.EFulfillmentNotFound
	ERefundExceedsCaptured      = commerce.ERefundExceedsCaptured
)

// Order statuses.
const (
	StatusPlaced    = "PLACED"
	StatusCompleted = "COMPLETED"
	StatusCancelled = "CANCELLED"
)

// Payment statuses of an order (paymentStatus).
const (
	PaymentAuthorized        = "AUTHORIZED"
	PaymentPaid              = "PAID"
	PaymentPartiallyRefunded = "PARTIALLY_REFUNDED"
	PaymentRefunded          = "REFUNDED"
	PaymentVoided            = "VOIDED"
)

// Statuses of a payment of an order (payments[].status).
const (
	PayAuthorized        = "AUTHORIZED"
	PayCaptured          = "CAPTURED"
	PayVoided            = "VOIDED"
	PayRefunded          = "REFUNDED"
	PayPartiallyRefunded = "PARTIALLY_REFUNDED"
	PayFailed            = "FAILED"
)

// Fulfillment statuses of an order (fulfillmentStatus).
const (
	NotShipped       = "NOT_SHIPPED"
	PartiallyShipped = "PARTIALLY_SHIPPED"
	Shipped          = "SHIPPED"
	Delivered        = "DELIVERED"
)

// Statuses of a fulfillment.
const (
	FulfillmentShipped   = "SHIPPED"
	FulfillmentDelivered = "DELIVERED"
)

// The values of an order's status, paymentStatus and fulfillmentStatus,
// which order.list filters by.
var (
	Statuses            = []string{StatusPlaced, StatusCompleted, StatusCancelled}
	PaymentStatuses     = []string{PaymentAuthorized, PaymentPaid, PaymentPartiallyRefunded, PaymentRefunded, PaymentVoided}
	FulfillmentStatuses = []string{NotShipped, PartiallyShipped, Shipped, Delivered}
)

// Sources of an order (source): a storefront's checkout, or a draft
// order completed by staff (docs/api.md section 24). Orders stored before
// sources existed read as SourceStorefront.
const (
	SourceStorefront = "STOREFRONT"
	SourceDraft      = "DRAFT"
)

// Anonymous is the customerId of an order placed from an anonymous cart.
const Anonymous = "ANON"

// Event types on ORDERS.
const (
	EventCreate  = "CREATE"
	EventCapture = "CAPTURE"
	EventFulfill = "FULFILL"
	EventDeliver = "DELIVER"
	EventCancel  = "CANCEL"
	EventRefund  = "REFUND"
)

// FirstNumber is the number of the first order.
const FirstNumber = 1001

// Order is an order as clients see it (its JSON form) and as stored.
// Pending and the items' Allocations are kept by the store beside the
// document, never shown.
type Order struct {
	ID                string `json:"id"`
	Number            string `json:"number"`
	CartID            string `json:"cartId"`
	CustomerID        string `json:"customerId"`
	Email             string `json:"email,omitempty"`
	Status            string `json:"status" openapi:"enum=PLACED|COMPLETED|CANCELLED"`
	PaymentStatus     string `json:"paymentStatus" openapi:"enum=AUTHORIZED|PAID|PARTIALLY_REFUNDED|REFUNDED|VOIDED"`
	FulfillmentStatus string `json:"fulfillmentStatus" openapi:"enum=NOT_SHIPPED|PARTIALLY_SHIPPED|SHIPPED|DELIVERED"`
	Currency          string `json:"currency"`
	Country           string `json:"country"`
	Channel           string `json:"channel"`
	// Locale is the language of the cart the order was placed from
	// (docs/api.md section 27): its emails are written in it.
	Locale          string          `json:"locale,omitempty"`
	Items           []*Item         `json:"items"`
	ShippingAddress json.RawMessage `json:"shippingAddress,omitempty"`
	BillingAddress  json.RawMessage `json:"billingAddress,omitempty"`
	ShippingMethod  *ShippingMethod `json:"shippingMethod,omitempty"`
	Coupons         []string        `json:"coupons"`
	Totals          Totals          `json:"totals"`
	Payments        []*Payment      `json:"payments"`
	Fulfillments    []*Fulfillment  `json:"fulfillments"`
	Refunds         []*Refund       `json:"refunds"`
	// Returns are the ids of the order's returns (docs/api.md section
	// 24), in creation order.
	Returns []string `json:"returns"`
	// Source is where the order was taken: SourceStorefront, or
	// SourceDraft for a draft order completed by staff.
	Source string `json:"source" openapi:"enum=STOREFRONT|DRAFT"`
	// ExchangeOf is, for the order of a return's exchange, the id of the
	// order the return was of.
	ExchangeOf string    `json:"exchangeOf,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	Version    int64     `json:"version"`

	// Pending are the payment operations begun and not finished.
	Pending []*Operation `json:"-"`
	// keepStatus: refresh leaves Status as it is (a provider's report).
	keepStatus bool
}

// Item is an order line: one per cart entry.
type Item struct {
	ID               string      `json:"id"`
	ProductID        string      `json:"productId"`
	SKU              string      `json:"sku"`
	Title            string      `json:"title"`
	Quantity         int64       `json:"quantity"`
	WarehouseID      string      `json:"warehouseId,omitempty"`
	UnitPrice        money.Money `json:"unitPrice"`
	Discount         money.Money `json:"discount"`
	Tax              money.Money `json:"tax"`
	Total            money.Money `json:"total"`
	ShippedQuantity  int64       `json:"shippedQuantity"`
	RefundedQuantity int64       `json:"refundedQuantity"`
	// ReturnedQuantity is the units received back by the order's
	// returns (return.receive).
	ReturnedQuantity int64 `json:"returnedQuantity"`
	// Allocations are the warehouses the units were taken from at
	// checkout (none for a product with UNLIMITED stock).
	Allocations []Allocation `json:"-"`
	// Restocked counts the units given back to stock (by a refund with
	// restock, or a cancel): from the first allocations on.
	Restocked int64 `json:"-"`
}

// Allocation is Quantity units of an item taken from a warehouse.
type Allocation struct {
	WarehouseID string `json:"warehouseId"`
	Quantity    int64  `json:"quantity"`
}

// ShippingMethod is the order's shipping method.
type ShippingMethod struct {
	ID    string      `json:"id"`
	Title string      `json:"title"`
	Rate  money.Money `json:"rate"`
}

// Totals are the order's totals (docs/api.md section 13).
type Totals struct {
	Items    money.Money `json:"items"`
	Discount money.Money `json:"discount"`
	Shipping money.Money `json:"shipping"`
	Tax      money.Money `json:"tax"`
	Total    money.Money `json:"total"`
}

// Payment is a payment of an order.
type Payment struct {
	ID        string      `json:"id"`
	Provider  string      `json:"provider"`
	Status    string      `json:"status" openapi:"enum=AUTHORIZED|CAPTURED|VOIDED|REFUNDED|PARTIALLY_REFUNDED|FAILED"`
	Amount    money.Money `json:"amount"`
	Captured  money.Money `json:"captured"`
	Refunded  money.Money `json:"refunded"`
	Reference string      `json:"reference"`
}

// Fulfillment is a shipment of units of an order.
type Fulfillment struct {
	ID             string     `json:"id"`
	Items          []Quantity `json:"items"`
	Carrier        string     `json:"carrier,omitempty"`
	TrackingNumber string     `json:"trackingNumber,omitempty"`
	Status         string     `json:"status" openapi:"enum=SHIPPED|DELIVERED"`
	ShippedAt      time.Time  `json:"shippedAt"`
	DeliveredAt    *time.Time `json:"deliveredAt,omitempty"`
}

// Quantity is a quantity of an item.
type Quantity struct {
	ItemID   string `json:"itemId"`
	Quantity int64  `json:"quantity"`
}

// Refund is a refund of an order.
type Refund struct {
	ID        string      `json:"id"`
	Amount    money.Money `json:"amount"`
	Reason    string      `json:"reason,omitempty"`
	Items     []Quantity  `json:"items"`
	CreatedAt time.Time   `json:"createdAt"`
}

// Operation is a payment operation begun (its intent recorded) and not
// finished: the provider is called with Key, which stays the same
// however many times it is called.
type Operation struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // OpCapture, OpCancel, OpRefund
	Key  string `json:"key"`
	// Amount is what is captured or refunded (minor units).
	Amount  int64      `json:"amount"`
	Reason  string     `json:"reason,omitempty"`
	Items   []Quantity `json:"items,omitempty"`
	Restock bool       `json:"restock,omitempty"`
	// Void: a cancel voids the authorisation (else it refunds Amount,
	// or calls nothing when Amount is 0).
	Void    bool      `json:"void,omitempty"`
	Created time.Time `json:"created"`
	// Unsettled: the provider was called and its answer lost (a
	// provider_error, or the request ended): it may have acted, so the
	// operation is only ever finished by calling it again with Key.
	Unsettled bool `json:"unsettled,omitempty"`
	// Return is the return a return.refund operation refunds (its Items
	// are the units received); Shipping, whether the order's shipping
	// is part of Amount.
	Return   string `json:"return,omitempty"`
	Shipping bool   `json:"shipping,omitempty"`
	// Charge is the payment of what the return's exchange costs more
	// than what was returned, authorised before the refund.
	Charge *Charge `json:"charge,omitempty"`
}

// Charge is an amount to authorise with a provider (Operation.Charge),
// under the operation's key plus ":exchange".
type Charge struct {
	Provider string          `json:"provider"`
	Data     json.RawMessage `json:"data,omitempty"`
	Amount   int64           `json:"amount"`
}

// Kinds of Operation.
const (
	OpCapture = "capture"
	OpCancel  = "cancel"
	OpRefund  = "refund"
)

// Item returns the item with the id, or nil.
func (o *Order) Item(id string) *Item {
	for _, it := range o.Items {
		if it.ID == id {
			return it
		}
	}
	return nil
}

// Fulfillment returns the fulfillment with the id, or nil.
func (o *Order) Fulfillment(id string) *Fulfillment {
	for _, f := range o.Fulfillments {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// Payment returns the order's payment (the first; an order has one), or nil.
func (o *Order) Payment() *Payment {
	if len(o.Payments) == 0 {
		return nil
	}
	return o.Payments[0]
}

// PendingOp returns the pending operation with the id, or nil.
func (o *Order) PendingOp(id string) *Operation {
	for _, op := range o.Pending {
		if op.ID == id {
			return op
		}
	}
	return nil
}

// money returns an amount in the order's currency.
func (o *Order) money(amount int64) money.Money {
	p, _ := money.Precision(o.Currency)
	return money.Money{Amount: amount, Currency: o.Currency, Precision: p}
}

// shipped reports whether any unit was shipped.
func (o *Order) shipped() bool {
	for _, it := range o.Items {
		if it.ShippedQuantity > 0 {
			return true
		}
	}
	return false
}

// refresh recomputes fulfillmentStatus, paymentStatus and status from the
// items, fulfillments and payment.
func (o *Order) refresh() {
	var total, shipped int64
	for _, it := range o.Items {
		total += it.Quantity
		shipped += it.ShippedQuantity
	}
	switch {
	case shipped == 0:
		o.FulfillmentStatus = NotShipped
	case shipped < total:
		o.FulfillmentStatus = PartiallyShipped
	default:
		o.FulfillmentStatus = Shipped
		delivered := true
		for _, f := range o.Fulfillments {
			if f.Status != FulfillmentDelivered {
				delivered = false
			}
		}
		if delivered {
			o.FulfillmentStatus = Delivered
		}
	}
	if p := o.Payment(); p != nil {
		switch p.Status {
		case PayAuthorized:
			o.PaymentStatus = PaymentAuthorized
		case PayCaptured:
			o.PaymentStatus = PaymentPaid
		case PayPartiallyRefunded:
			o.PaymentStatus = PaymentPartiallyRefunded
		case PayRefunded:
			o.PaymentStatus = PaymentRefunded
		case PayVoided:
			o.PaymentStatus = PaymentVoided
		}
	}
	if !o.keepStatus && o.Status == StatusPlaced && o.FulfillmentStatus == Delivered &&
		(o.PaymentStatus == PaymentPaid || o.PaymentStatus == PaymentPartiallyRefunded) {
		o.Status = StatusCompleted
	}
}

// NotFound returns the order_not_found error of an id, with the id as data.
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: ENotFound, Data: id, Message: "no order with id " + id}
}

// StateData is the data of invalid_order_state.
type StateData struct {
	Status            string `json:"status" openapi:"enum=PLACED|COMPLETED|CANCELLED"`
	PaymentStatus     string `json:"paymentStatus" openapi:"enum=AUTHORIZED|PAID|PARTIALLY_REFUNDED|REFUNDED|VOIDED"`
	FulfillmentStatus string `json:"fulfillmentStatus" openapi:"enum=NOT_SHIPPED|PARTIALLY_SHIPPED|SHIPPED|DELIVERED"`
}

// invalidState returns the invalid_order_state error of o for the
// operation op.
func invalidState(o *Order, op string) *commerce.Error {
	return &commerce.Error{Code: EInvalidState,
		Data:    StateData{Status: o.Status, PaymentStatus: o.PaymentStatus, FulfillmentStatus: o.FulfillmentStatus},
		Message: fmt.Sprintf("order %s: %s not allowed in status %s, payment %s, fulfillment %s", o.ID, op, o.Status, o.PaymentStatus, o.FulfillmentStatus)}
}

// busy returns the error of an operation refused because a payment
// operation of the order is in progress.
func busy(o *Order) *commerce.Error {
	return commerce.Errorf(commerce.EConcurrentMod, "order %s: a payment operation is in progress", o.ID)
}
