package customer

import (
	"context"
	"time"

	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/order"
)

// Store keeps customers, their sign-ins, reset tokens, login failures and
// the OAuth clients (implemented by package sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may run more than once: no effect outside the transaction.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Customer returns a customer. Errors: customer_not_found (data: id).
	Customer(ctx context.Context, id string) (*Customer, error)
	// CustomerByEmail returns the customer with the (normalised) email.
	// Errors: customer_not_found (data: the email).
	CustomerByEmail(ctx context.Context, email string) (*Customer, error)
	// Customers returns a page of customers in creation order. A pattern
	// to blame is validation_error naming email.
	Customers(ctx context.Context, f Filter) ([]Customer, error)
	// Held returns everything the store holds about the customer, read
	// in one snapshot (customer.export). Errors: customer_not_found
	// (data: id).
	Held(ctx context.Context, id string) (*Held, error)
	// ResetToken returns the stored reset token with the hash, expired or
	// not. Errors: invalid_reset_token.
	ResetToken(ctx context.Context, hash string) (*ResetToken, error)
	// Client returns an OAuth client. Errors: client_not_found (data: id).
	Client(ctx context.Context, id string) (*Client, error)
	// Groups returns a page of customer groups in creation order.
	Groups(ctx context.Context, limit, skip int) ([]Group, error)
	// Clients returns a page of clients in creation order.
	Clients(ctx context.Context, limit, skip int) ([]Client, error)
	// Sweep deletes the refresh and reset tokens that expired at or
	// before now, and the login failures of every email whose newest
	// failure is before failedBefore (a failure being recorded meanwhile
	// keeps its email's). It returns how many rows it deleted.
	Sweep(ctx context.Context, now, failedBefore time.Time) (int64, error)
}

// Tx is a write transaction of the customer store.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)
	// Cart gives the carts in this transaction (a guest cart adopted at
	// sign-in).
	Cart() cart.Tx
	// Orders gives the orders in this transaction (customer.remove
	// erases the personal data of the customer's orders).
	Orders() order.Tx
	// Mail gives the email queue in this transaction (the password-reset
	// message; customer.remove erases the customer's messages).
	Mail() mail.Tx
	// CartIDs returns the ids of the customer's carts, in any status
	// (customer.remove erases their addresses).
	CartIDs(ctx context.Context, customerID string) ([]string, error)
	// Lock returns the customer and holds its row until the transaction
	// ends. Errors: customer_not_found (data: id).
	Lock(ctx context.Context, id string) (*Customer, error)
	// Insert stores a new customer. Errors: duplicate_key when the id or
	// the email is taken (data {index}).
	Insert(ctx context.Context, c *Customer) error
	// Save stores a customer's names, phone, type, addresses and password
	// hash. Errors: customer_not_found.
	Save(ctx context.Context, c *Customer) error
	// Delete deletes the customer with its sign-ins and reset tokens.
	// Errors: customer_not_found.
	Delete(ctx context.Context, id string) error
	// EraseEvents rewrites in place the payload of every event owned by
	// one of owners (event.Event.Owner) as erase returns it, when erase
	// says it changed, and returns how many it rewrote.
	EraseEvents(ctx context.Context, owners []string, erase Eraser) (int, error)

	// LockFailures returns the times of the login failures recorded for
	// the email and holds them until the transaction ends, so that the
	// lock-out is decided once per attempt across processes.
	LockFailures(ctx context.Context, email string) ([]time.Time, error)
	// SetFailures replaces the email's failures (none: forgotten).
	SetFailures(ctx context.Context, email string, at []time.Time) error

	// InsertRefresh stores a refresh token.
	InsertRefresh(ctx context.Context, t RefreshToken) error
	// LockRefresh returns the refresh token with the hash, locked.
	// Errors: invalid_token when there is none.
	LockRefresh(ctx context.Context, hash string) (*RefreshToken, error)
	// SpendRefresh marks a refresh token spent.
	SpendRefresh(ctx context.Context, hash string) error
	// RevokeFamily deletes every refresh token of a sign-in.
	RevokeFamily(ctx context.Context, family string) error
	// RevokeCustomer deletes every refresh token of a customer.
	RevokeCustomer(ctx context.Context, customerID string) error

	// InsertReset stores a reset token.
	InsertReset(ctx context.Context, t ResetToken) error
	// TakeReset deletes the reset token with the hash when it has not
	// expired at now, and returns it. Errors: invalid_reset_token.
	TakeReset(ctx context.Context, hash string, now time.Time) (*ResetToken, error)
	// DeleteResets deletes a customer's reset tokens.
	DeleteResets(ctx context.Context, customerID string) error

	// LockGroup returns the group with the code, locked. Errors:
	// group_not_found (data: the code).
	LockGroup(ctx context.Context, code string) (*Group, error)
	// InsertGroup stores a new group. Errors: duplicate_key.
	InsertGroup(ctx context.Context, g *Group) error
	// SaveGroup stores a group's title.
	SaveGroup(ctx context.Context, g *Group) error
	// DeleteGroup deletes a group.
	DeleteGroup(ctx context.Context, code string) error
	// CheckGroups returns group_not_found (data: the first code) unless
	// every code names a group.
	CheckGroups(ctx context.Context, codes []string) error

	// InsertClient stores an OAuth client.
	InsertClient(ctx context.Context, c Client) error
	// RemoveClient deletes an OAuth client and returns it.
	// Errors: client_not_found (data: id).
	RemoveClient(ctx context.Context, id string) (*Client, error)
}
