package cart

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/stock"
)

// Changed returns the error of a cart stored over a version that is no
// longer the stored one (Tx.Save): concurrent_modification, without data.
// The cart service recognises it (another change of the cart came first)
// and computes its change again from the stored cart.
func Changed(id string, version int64) *commerce.Error {
	return &commerce.Error{Code: commerce.EConcurrentMod, Err: errChanged,
		Message: "cart " + id + " changed since version " + strconv.FormatInt(version, 10)}
}

// errChanged is the cause of every Changed error.
var errChanged = errors.New("cart changed since read")

// changed reports whether err says that a cart moved since it was read
// (Changed).
func changed(err error) bool { return errors.Is(err, errChanged) }

// Store keeps the carts (implemented by package sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may be run more than once (after a transient conflict of the
	// database, say), so it must have no effect outside the transaction.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Cart returns the stored cart, without locking it.
	// Errors: cart_not_found (data: the id).
	Cart(ctx context.Context, id string) (*Cart, error)
}

// Tx is a write transaction of the cart store.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)
	// Stock gives the stock reservations inside this transaction, so that
	// a reservation commits or rolls back with the cart's change.
	Stock() stock.Tx
	// Promotions gives the promotion store inside this transaction: the
	// uses of the promotions an order used are counted with the checkout.
	Promotions() promotion.Tx
	// Orders gives the orders inside this transaction, so that checkout
	// places its order with the cart's change.
	Orders() order.Tx
	// Lock returns the cart and holds its row until the transaction ends,
	// so that changes of one cart are serialised across processes.
	// Errors: cart_not_found (data: the id).
	Lock(ctx context.Context, id string) (*Cart, error)
	// LockVersion holds the cart's row as Lock does and returns only its
	// version (a change computed outside the transaction checks it).
	// Errors: cart_not_found (data: the id).
	LockVersion(ctx context.Context, id string) (int64, error)
	// LockCustomer returns the email of the customer's account and holds
	// the account's row until the transaction ends; "" when there is no
	// account. A checkout reads it in its transaction so that
	// customer.remove, which holds the row while it erases the customer's
	// orders, either waits for the checkout's order (and erases it) or has
	// removed the account before the checkout places one.
	LockCustomer(ctx context.Context, customerID string) (string, error)
	// Insert stores a new cart and sets its Version to 1. Nothing the
	// transaction reads after Insert need see the new cart: the store may
	// write it as the transaction ends, and a failure then fails the
	// transaction. Errors (then the transaction's): duplicate_key when a
	// cart with the id exists.
	Insert(ctx context.Context, c *Cart) error
	// Save stores c over the version it was read with (c.Version),
	// increments c.Version, and makes the stock reservations rs with it
	// (each prepared by stock.Service.Prepare; nil for none), in order, as
	// stock.ReserveAt makes them at the time of the change (c.UpdatedAt):
	// the units of reservations that lapsed by then are free.
	//
	// A cart the transaction holds (Lock, LockVersion, Expired) is stored
	// at once. One it does not hold is stored only if it did not move
	// since it was read: Save is then the check of the change's version,
	// and the store may write the cart and make rs as the transaction
	// ends (nothing the transaction reads after Save need see them; their
	// errors are then the transaction's).
	//
	// Errors: concurrent_modification (Changed) when the stored version
	// moved, or the cart is not stored; not_enough_stock (data as
	// stock.NotEnoughStock gives it) when a reservation finds too few
	// units, and a reservation's (a transient conflict among them). The
	// transaction must then end.
	Save(ctx context.Context, c *Cart, rs []stock.Reservation) error
	// Expired returns, locked, up to limit ACTIVE carts whose expiration
	// time is at or before now, oldest expiration first.
	Expired(ctx context.Context, now time.Time, limit int) ([]*Cart, error)
}
