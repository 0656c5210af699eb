// Package event defines the service's events, the outbox they are written to
// in the same transaction as the change they describe, and a buffered writer
// for high-volume VIEWED events.
package event

import (
	"context"
	"encoding/json"
	"time"

	"github.com/commercekit/commerce"
)

// Channels: one per area that emits events, named here and nowhere else
// (an area emits on event.<Channel>, never on a constant of its own).
const (
	Products   = "PRODUCTS"
	Categories = "CATEGORIES"
	Promotions = "PROMOTIONS"
	Carts      = "CARTS"
	Taxes      = "TAXES"
	Stock      = "STOCK"
	Shipping   = "SHIPPING"
	Orders     = "ORDERS"
	Customers  = "CUSTOMERS"
	Webhooks   = "WEBHOOKS"
	Returns    = "RETURNS"
	Mails      = "MAILS"
	PriceLists = "PRICELISTS"
	Medias     = "MEDIAS"
)

// Channels lists every channel, in the order above (for pickers and
// filters).
var Channels = []string{Products, Categories, Promotions, Carts, Taxes, Stock, Shipping, Orders, Customers, Webhooks, Returns, Mails, PriceLists, Medias}

// Types.
const (
	Create   = "CREATE"
	Update   = "UPDATE"
	Remove   = "REMOVE"
	Viewed   = "VIEWED"
	Checkout = "CHECKOUT"
)

// Event is one entry of the event log: {id, channel, type, date, payload}.
type Event struct {
	ID      string          `json:"id"`
	Channel string          `json:"channel"`
	Type    string          `json:"type"`
	Date    time.Time       `json:"date"`
	Payload json.RawMessage `json:"payload"`
	// Actor is who made the change when a person did through the admin
	// app ("staff:<id>"), from the context of the write (WithActor); absent
	// for API calls.
	Actor string `json:"actor,omitempty"`
	// Owner is the id of the record whose personal data the payload
	// holds: the customer's id (CUSTOMERS), the cart's (CARTS, and ORDERS:
	// an order is its cart's); "" when it holds none. It is stored with
	// the event, never sent: customer.remove finds the events to erase
	// by it (docs/api.md section 29).
	Owner string `json:"-"`
}

// Owned returns the event with Owner set to owner.
func (e Event) Owned(owner string) Event {
	e.Owner = owner
	return e
}

type actorKey struct{}

// WithActor returns a context whose writes record actor on the events they
// emit (the storage sets Event.Actor from it when it writes the outbox).
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorFrom returns the actor of ctx, or "".
func ActorFrom(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

// New returns an event with a fresh id, the date now (UTC) and the payload
// marshaled to JSON. Payloads are maps or structs of plain data, so
// marshaling cannot fail for them; a failure is returned as an internal error.
func New(channel, typ string, now time.Time, payload any) (Event, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Event{}, commerce.Errorf(commerce.EInternal, "marshal %s %s payload: %w", channel, typ, err)
	}
	return NewEncoded(channel, typ, now, b), nil
}

// NewEncoded is New with the payload encoded already: a JSON object the
// caller wrote, stored as it is.
func NewEncoded(channel, typ string, now time.Time, payload []byte) Event {
	return Event{ID: commerce.NewOrderedID(), Channel: channel, Type: typ, Date: now.UTC(), Payload: payload}
}

// Subject returns the JetStream subject of the event: commerce.<CHANNEL>.<TYPE>.
func (e Event) Subject() string { return "commerce." + e.Channel + "." + e.Type }

// Filter selects events for List: all fields optional.
type Filter struct {
	Channel string
	Type    string
	After   string // an event id; only events after it
	Limit   int
	Skip    int
}

// Log is the storage of the event log.
type Log interface {
	// Append writes events outside any other change (used for VIEWED
	// batches). It is all or nothing.
	Append(ctx context.Context, events []Event) error
	// List returns events in log order. An unknown After id is
	// validation_error.
	List(ctx context.Context, f Filter) ([]Event, error)
}
