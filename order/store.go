package order

import (
	"context"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/stock"
)

// Store keeps the orders (implemented by package sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may run more than once, so it must have no effect outside the
	// transaction.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Order returns the stored order, without locking it.
	// Errors: order_not_found (data: the id).
	Order(ctx context.Context, id string) (*Order, error)
	// Orders returns the orders matching f, newest first.
	Orders(ctx context.Context, f Filter) ([]*Order, error)
	// NextNumber allocates an order number in a transaction of its own:
	// numbers never repeat (even with several processes on one
	// database, even when the order using it is rolled back) and increase;
	// the first is FirstNumber.
	NextNumber(ctx context.Context) (int64, error)
	// BeginCheckout allocates an order number (as NextNumber) and, in the
	// same transaction, records the checkout attempt a (its
	// authorisation request, with OrderNumber set to the number).
	BeginCheckout(ctx context.Context, a *Attempt) (int64, error)
	// EndCheckout deletes the attempt with the key, in a transaction of
	// its own (a failed checkout whose authorisation was voided).
	EndCheckout(ctx context.Context, key string) error
	// StaleCheckouts returns up to limit attempts made at or before t.
	StaleCheckouts(ctx context.Context, t time.Time, limit int) ([]*Attempt, error)
	// OrderIDByPayment returns the id of the order whose payment by the
	// provider has the reference, or "" when there is none.
	OrderIDByPayment(ctx context.Context, provider, reference string) (string, error)
	// PendingSince returns up to limit orders with a payment operation
	// begun at or before t (the recovery job's work).
	PendingSince(ctx context.Context, t time.Time, limit int) ([]string, error)
	// Return returns the stored return, without locking it.
	// Errors: return_not_found (data: the id).
	Return(ctx context.Context, id string) (*Return, error)
	// Returns returns the returns matching f, in creation order.
	Returns(ctx context.Context, f ReturnFilter) ([]*Return, error)
}

// ReturnFilter selects returns for Store.Returns; empty fields do not
// filter.
type ReturnFilter struct {
	OrderIDs    []string
	CustomerIDs []string
	Statuses    []string
	Limit, Skip int
}

// Attempt is a checkout attempt: the provider's id and the authorisation
// request (its IdempotencyKey names the attempt).
type Attempt struct {
	Provider string                   `json:"provider"`
	Request  payment.AuthorizeRequest `json:"request"`
	Created  time.Time                `json:"created"`
}

// Filter selects orders for Store.Orders; empty fields do not filter.
type Filter struct {
	CustomerIDs         []string
	Statuses            []string
	PaymentStatuses     []string
	FulfillmentStatuses []string
	// Numbers: a string that is not an order number (ValidNumber)
	// matches no order.
	Numbers     []string
	CreatedFrom *time.Time
	CreatedTo   *time.Time
	Limit, Skip int
}

// Tx is a write transaction of the order store. The cart's store gives
// one inside its own transaction (cart.Tx.Orders) so that checkout
// creates the order with the cart's change.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)
	// Stock gives the stock inside this transaction (cancel and restock
	// return units to it).
	Stock() stock.Tx
	// Promotions gives the promotion store inside this transaction
	// (cancel gives back the uses of the order's promotions).
	Promotions() promotion.Tx
	// Lock returns the order and holds its row until the transaction ends.
	// Errors: order_not_found (data: the id).
	Lock(ctx context.Context, id string) (*Order, error)
	// Insert stores a new order (o.Version is stored as given).
	// Errors: duplicate_key when the id, the number or the cart is taken.
	Insert(ctx context.Context, o *Order) error
	// Save stores o, which the transaction locked (Lock).
	// Errors: order_not_found when it is not stored.
	Save(ctx context.Context, o *Order) error
	// EndCheckout deletes the checkout attempt with the key (the order
	// placed, in the checkout's transaction).
	EndCheckout(ctx context.Context, key string) error
	// NextNumber allocates an order number in this transaction (a
	// checkout with a local provider, which records no attempt).
	NextNumber(ctx context.Context) (int64, error)
	// CustomerOrders returns the customer's orders, locked (their
	// personal data is erased when the customer is removed).
	CustomerOrders(ctx context.Context, customerID string) ([]*Order, error)
	// SeeNotification records a provider's event id and reports whether
	// it was seen before (then nothing is recorded).
	SeeNotification(ctx context.Context, provider, eventID string) (seen bool, err error)

	// NextReturnNumber allocates a return's number in this transaction
	// (as NextNumber: never twice, increasing; the first is FirstNumber).
	NextReturnNumber(ctx context.Context) (int64, error)
	// InsertReturn stores a new return.
	// Errors: duplicate_key when the id or the number is taken.
	InsertReturn(ctx context.Context, r *Return) error
	// LockReturn returns the return and holds its row until the
	// transaction ends.
	// Errors: return_not_found (data: the id).
	LockReturn(ctx context.Context, id string) (*Return, error)
	// SaveReturn stores r, which the transaction locked (LockReturn).
	// Errors: return_not_found when it is not stored.
	SaveReturn(ctx context.Context, r *Return) error
	// OrderReturns returns the returns of the order, in creation order;
	// the caller holds the order's row (Lock), which every change of its
	// returns' quantities holds too.
	OrderReturns(ctx context.Context, orderID string) ([]*Return, error)
}
