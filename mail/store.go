package mail

import (
	"context"
	"time"

	"github.com/commercekit/commerce/event"
)

// Filter selects messages (mail.list): fields "" select all.
type Filter struct {
	To, Template, Status string
	// Customer keeps the messages of a customer: those queued for their
	// id, and those sent to their address (mails of an anonymous order).
	Customer    *Owner
	Limit, Skip int
}

// Owner names a customer in a Filter.
type Owner struct{ ID, Email string }

// Store keeps the messages (implemented by package sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn may run more than once.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Message returns a message. Errors: mail_not_found.
	Message(ctx context.Context, id string) (Message, error)
	// Messages returns a page of messages, in creation order.
	Messages(ctx context.Context, f Filter) ([]Mail, error)

	// Follow reads up to limit events of the log after the follower's
	// cursor, calls build for each (outside any transaction: it may read),
	// and in one transaction queues the messages build returned (a message
	// whose id is stored already is left as it is) and moves the cursor
	// past the events. A message whose CustomerID names a customer whose
	// messages were erased (EraseCustomer) is stored CANCELLED with its
	// address and bodies Erased. It returns how many events it read.
	Follow(ctx context.Context, limit int, build func(e event.Event) ([]Message, error)) (int, error)
	// Skip moves the follower's cursor to the end of the log, queueing
	// nothing (mail off: turning it on later mails no past event).
	Skip(ctx context.Context) error
	// Claim leases up to limit PENDING messages due at now and not leased
	// by another dispatcher (or whose lease ended) to claim until
	// now+lease, and returns them.
	Claim(ctx context.Context, claim string, now time.Time, lease time.Duration, limit int) ([]Message, error)
	// Record stores the outcome of an attempt of a message leased with
	// claim, ends the lease and emits r.Event (when not nil) in the same
	// transaction. It reports false when the lease was no longer held
	// (nothing recorded, nothing emitted).
	Record(ctx context.Context, claim string, r Result) (bool, error)
	// Lead tries to become the one follower of the log among the
	// processes sharing the database (see webhook.Store.Lead).
	Lead(ctx context.Context) (check func(context.Context) error, release func(), ok bool, err error)
}

// Tx is a write transaction in which messages are queued: the mail
// area's own, or another area's (customer.Tx.Mail) so that a message is
// queued with the change that causes it.
type Tx interface {
	// Queue stores a PENDING message, due at once.
	Queue(ctx context.Context, m Message) error
	// CountSince counts the messages of the template queued to the
	// address at or after since.
	CountSince(ctx context.Context, to, template string, since time.Time) (int, error)
	// EraseCustomer cancels the customer's PENDING messages and replaces
	// the address, text and HTML of all its messages with Erased (and
	// drops their sealed secrets), and remembers the customer so that
	// Store.Follow erases the messages it stores for them later.
	EraseCustomer(ctx context.Context, customerID string) error
}

// Result is the outcome of an attempt (Store.Record).
type Result struct {
	ID          string
	Status      string // PENDING (to retry), SENT or FAILED
	Error       *string
	NextAttempt *time.Time
	SentAt      *time.Time
	// Event is emitted with the record (MAILS SENT or FAILED), or nil.
	Event *event.Event
}
