package cart

import (
	"context"
	"errors"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/stock"
)

// The errors a transaction fails with when SaveReserving checks its
// statements with the commit.
var (
	// ErrStale: the cart's stored version is no longer the one its change
	// was computed from (another change committed in between).
	ErrStale = errors.New("cart changed since read")
	// ErrShort: a reservation found too few units.
	ErrShort = errors.New("a reservation found too few units")
)

// Store keeps the carts (implemented by package sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may be run more than once (a transient conflict of the database),
	// so it must have no effect outside the transaction.
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
	// Insert stores a new cart and sets its Version to 1. Where the
	// database allows it, the cart goes out with the transaction's commit,
	// in one round trip with it: nothing the transaction runs after Insert
	// sees it. Errors (then the transaction's): duplicate_key when a cart
	// with the id exists.
	Insert(ctx context.Context, c *Cart) error
	// Save stores c over the version it was read with (c.Version) and
	// increments c.Version.
	// Errors: concurrent_modification when the stored version moved
	// (which the row lock prevents; it is a safety net), or the cart is
	// not stored.
	Save(ctx context.Context, c *Cart) error
	// SaveDocument is Save with c's stored form encoded already
	// (c.Document()), so that the encoding can be made before the
	// transaction. Without a lock on the cart's row (Lock, LockVersion)
	// it is the check that the cart did not move since it was read.
	// Errors: as Save.
	SaveDocument(ctx context.Context, c *Cart, doc []byte) error
	// SaveReserving is SaveDocument, then the reservations rs (each
	// prepared by stock.Service.Prepare) where there are enough units.
	// Where the database allows it, both go out with the transaction's
	// commit, in one round trip with it, and are checked there: the
	// transaction then fails with ErrStale when the cart moved (c.Version
	// is incremented beforehand), with ErrShort when a reservation found
	// too few units, and nothing the transaction runs after
	// SaveReserving sees them. Otherwise they run now, and SaveReserving
	// returns the indexes of the reservations that took nothing. Either
	// way the caller then makes (or fails) the short ones through
	// stock.Service.Reserve, which first frees the units of lapsed
	// reservations, in a transaction of its own. Errors: as SaveDocument,
	// and a reservation's (a transient conflict among them); the
	// transaction must then end, reservations may have run.
	SaveReserving(ctx context.Context, c *Cart, doc []byte, rs []stock.Reservation) (short []int, err error)
	// Expired returns, locked, up to limit ACTIVE carts whose expiration
	// time is at or before now, oldest expiration first.
	Expired(ctx context.Context, now time.Time, limit int) ([]*Cart, error)
}
