package order

import (
	"fmt"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Return statuses (docs/api.md section 24).
const (
	ReturnRequested = "REQUESTED"
	ReturnReceived  = "RECEIVED"
	ReturnRefunded  = "REFUNDED"
	ReturnRejected  = "REJECTED"
	ReturnCancelled = "CANCELLED"
)

// ReturnStatuses are the values of a return's status, which return.list
// filters by.
var ReturnStatuses = []string{ReturnRequested, ReturnReceived, ReturnRefunded, ReturnRejected, ReturnCancelled}

// Reasons a unit is returned for.
const (
	ReasonDamaged        = "DAMAGED"
	ReasonWrongItem      = "WRONG_ITEM"
	ReasonNotAsDescribed = "NOT_AS_DESCRIBED"
	ReasonNoLongerNeeded = "NO_LONGER_NEEDED"
	ReasonOther          = "OTHER"
)

// returnNumberPrefix starts every return's number.
const returnNumberPrefix = "R"

// ReturnReasons lists the reasons of return.request's items.
var ReturnReasons = []string{ReasonDamaged, ReasonWrongItem, ReasonNotAsDescribed, ReasonNoLongerNeeded, ReasonOther}

// DefaultReturnWindow is how long after an order's last delivery (or last
// shipment) its customer may ask for a return (--return-window).
const DefaultReturnWindow = 720 * time.Hour

// Event types on RETURNS (payload {return}).
const (
	EventReturnRequest = "REQUEST"
	EventReturnReceive = "RECEIVE"
	EventReturnRefund  = "REFUND"
	EventReturnReject  = "REJECT"
	EventReturnCancel  = "CANCEL"
)

// The operations of a return, as the state machine names them.
const (
	opReceive = "receive"
	opRefund  = "refund"
	opReject  = "reject"
	opCancel  = "cancel"
)

// returnMachine is the return's state machine, one table: for each
// status, the operations allowed in it and the status each leads to. An
// operation absent from a status's row is invalid_return_state there.
// REFUNDED, REJECTED and CANCELLED are final. A return is rejected
// before it is received (nothing will be taken back) or after (staff
// inspected the parcel and refuse the refund; what was restocked at
// receipt stays in stock); only its customer's change of mind, while
// nothing is received, is a cancel.
var returnMachine = map[string]map[string]string{
	ReturnRequested: {opReceive: ReturnReceived, opReject: ReturnRejected, opCancel: ReturnCancelled},
	ReturnReceived:  {opRefund: ReturnRefunded, opReject: ReturnRejected},
}

// nextReturnStatus returns the status operation op leads r to, or
// invalid_return_state (data {status}) when op is not allowed in r's
// status.
func nextReturnStatus(r *Return, op string) (string, error) {
	next, ok := returnMachine[r.Status][op]
	if !ok {
		return "", &commerce.Error{Code: commerce.EInvalidReturnState, Data: map[string]string{"status": r.Status},
			Message: fmt.Sprintf("return %s: %s not allowed in status %s", r.ID, op, r.Status)}
	}
	return next, nil
}

// Return is a return of units of an order (docs/api.md section 24), as
// clients see it and as stored. CartID, Value and SKUs are kept by the
// store beside the document, never shown.
type Return struct {
	ID         string        `json:"id"`
	Number     string        `json:"number"`
	OrderID    string        `json:"orderId"`
	CustomerID string        `json:"customerId"`
	Status     string        `json:"status" openapi:"enum=REQUESTED|RECEIVED|REFUNDED|REJECTED|CANCELLED"`
	Items      []*ReturnItem `json:"items"`
	Exchange   *Exchange     `json:"exchange,omitempty"`
	Refund     *ReturnRefund `json:"refund,omitempty"`
	// RejectReason is the reason return.reject was given, if any.
	RejectReason string    `json:"rejectReason,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	Version      int64     `json:"version"`
}

// ReturnItem is units of an order item on a return: Quantity asked for,
// ReceivedQuantity received (return.receive), Restock whether they went
// back to stock, in WarehouseID.
type ReturnItem struct {
	ItemID           string `json:"itemId"`
	Quantity         int64  `json:"quantity"`
	Reason           string `json:"reason" openapi:"enum=DAMAGED|WRONG_ITEM|NOT_AS_DESCRIBED|NO_LONGER_NEEDED|OTHER"`
	Note             string `json:"note,omitempty"`
	ReceivedQuantity int64  `json:"receivedQuantity"`
	Restock          bool   `json:"restock"`
	WarehouseID      string `json:"warehouseId"`
}

// Exchange is what a return's customer gets instead of (part of) the
// money: Items reserved at return.request, at their price then; OrderID
// the order return.refund placed for them. CartID (the cart holding the
// reservations, which that order is checked out from), Value (what the
// items cost, tax included, minor units) and SKUs are the service's own.
type Exchange struct {
	Items   []ExchangeItem `json:"items"`
	OrderID string         `json:"orderId,omitempty"`

	CartID string            `json:"-"`
	Value  int64             `json:"-"`
	SKUs   map[string]string `json:"-"`
}

// ExchangeItem is units of a product given in exchange, from a warehouse,
// at UnitPrice.
type ExchangeItem struct {
	ProductID   string      `json:"productId"`
	Quantity    int64       `json:"quantity"`
	WarehouseID string      `json:"warehouseId"`
	UnitPrice   money.Money `json:"unitPrice"`
}

// ReturnRefund is what return.refund gave back: Amount, and whether the
// order's shipping was part of it.
type ReturnRefund struct {
	Amount   money.Money `json:"amount"`
	Shipping bool        `json:"shipping"`
}

// Item returns the return's line of the order item id, or nil.
func (r *Return) Item(itemID string) *ReturnItem {
	for _, it := range r.Items {
		if it.ItemID == itemID {
			return it
		}
	}
	return nil
}

// cartID returns the exchange's cart, "" without an exchange.
func (r *Return) cartID() string {
	if r.Exchange == nil {
		return ""
	}
	return r.Exchange.CartID
}

// FormatReturnNumber returns the number of a return from its sequence
// number: "R" and the digits.
func FormatReturnNumber(n int64) string { return fmt.Sprintf("%s%d", returnNumberPrefix, n) }

// ReturnNotFound returns the return_not_found error of an id, with the id
// as data.
func ReturnNotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EReturnNotFound, Data: id, Message: "no return with id " + id}
}

// exceeds returns the return_exceeds_quantity error of an item of which
// only remaining units can be returned (or received).
func exceeds(itemID string, want, remaining int64) *commerce.Error {
	return &commerce.Error{Code: commerce.EReturnExceedsQuantity, Data: map[string]any{"itemId": itemID, "remaining": remaining},
		Message: fmt.Sprintf("item %s: %d units asked, %d left", itemID, want, remaining)}
}
