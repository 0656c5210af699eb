package stock

import (
	"context"
	"time"

	"github.com/commercekit/commerce/event"
)

// Store keeps the stock records and reservations (implemented by package
// sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may run more than once (a transient conflict of the database), so
	// it must have no effect outside the transaction.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Stock returns a record as committed.
	// Errors: stock_not_found (see NotFound).
	Stock(ctx context.Context, k Key) (Stock, error)
}

// Tx is a write transaction of the stock store. The cart's store gives one
// inside its own transaction (cart.Tx.Stock), so that reservations commit
// or roll back with the cart's change. Every method leaves the stock
// consistent: 0 <= reserved <= quantity.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)

	// LockProduct checks that the catalog has the product (in any
	// status) and holds its row until the transaction ends, so that the
	// product is not removed before the transaction commits (product.remove
	// removes the product's stock records in its own transaction).
	// Errors: product_not_found (see ProductNotFound).
	LockProduct(ctx context.Context, productID string) error
	// Create stores a new record with nothing reserved.
	// Errors: duplicate_key (see Duplicate) when the pair exists.
	Create(ctx context.Context, s Stock) error
	// Lock returns a record and holds its row until the transaction ends.
	// Errors: stock_not_found.
	Lock(ctx context.Context, k Key) (Stock, error)
	// SetQuantity sets the quantity on hand of a record, only if it is not
	// below the reserved quantity, and returns the record.
	// Errors: stock_not_found; validation_error (see BelowReserved) when
	// quantity is below what is reserved (nothing changes).
	SetQuantity(ctx context.Context, k Key, quantity int64) (Stock, error)

	// Reserve holds r.Quantity units of (r.ProductID, r.WarehouseID) for
	// the entry (r.CartID, r.ItemID) until r.ExpirationTime; r.ID must be
	// set (Service.Reserve fills ID and ExpirationTime).
	// Errors: not_enough_stock (see NotEnoughStock; availableQuantity 0
	// when there is no stock record), and nothing changed.
	Reserve(ctx context.Context, r Reservation) error
	// Release gives back quantity units reserved by the entry: released
	// (Expired) reservations go first (they hold nothing), then the others
	// newest first; the last one touched is split when it holds more than
	// what is left to release, so exactly quantity units are released, or
	// all the entry has when it has fewer. No error for an entry without
	// reservations (a product with UNLIMITED stock has none).
	Release(ctx context.Context, cartID, itemID string, quantity int64) error
	// ReleaseItem releases every reservation of a cart entry.
	ReleaseItem(ctx context.Context, cartID, itemID string) error
	// ReleaseCart releases every reservation of a cart.
	ReleaseCart(ctx context.Context, cartID string) error
	// CommitCart turns the cart's reservations into a decrement of the
	// stock (checkout) and removes them, returning them in the order they
	// were made. Reservations not released are taken from what they hold,
	// even past their expiration time; released ones are taken again from
	// what is available.
	// Errors: not_enough_stock when a released reservation can no longer be
	// taken: requestedQuantity is everything the cart needs of that product
	// in that warehouse, availableQuantity what is available plus what the
	// cart still holds there. Nothing changes on error (the caller rolls the
	// transaction back).
	CommitCart(ctx context.Context, cartID string) ([]Reservation, error)
	// Reservations returns the cart's reservations, released ones included
	// (Expired set), in the order they were made (an empty list when it has
	// none).
	Reservations(ctx context.Context, cartID string) ([]Reservation, error)

	// ReleaseExpired releases the reservations of k whose expiration time
	// is at or before now and that are not released yet: their units are
	// given back and they are marked Expired. It returns how many it
	// released. A reservation is released once, whoever else releases
	// reservations at the same time.
	ReleaseExpired(ctx context.Context, k Key, now time.Time) (int, error)
	// Sweep releases, as ReleaseExpired does, up to limit reservations of
	// any key whose expiration time is at or before now, the oldest first,
	// and returns how many it released.
	Sweep(ctx context.Context, now time.Time, limit int) (int, error)
}
