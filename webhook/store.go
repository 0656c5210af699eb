package webhook

import (
	"context"
	"time"

	"github.com/commercekit/commerce/event"
)

// Stored is a webhook with its sealed signing secret.
type Stored struct {
	Webhook
	Secret string // sealed (Sealer.Seal)
}

// Store keeps webhooks and their deliveries (implemented by package
// sqldb).
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn may run more than once.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Webhook returns the webhook. Errors: webhook_not_found.
	Webhook(ctx context.Context, id string) (Webhook, error)
	// Webhooks returns webhooks in creation order.
	Webhooks(ctx context.Context, limit, skip int) ([]Webhook, error)
	// Deliveries returns deliveries in creation order, of one webhook
	// and of one status when those are not "".
	Deliveries(ctx context.Context, webhookID, status string, limit, skip int) ([]Delivery, error)

	// Follow reads up to limit events of the log after the follower's
	// cursor and, in one transaction, creates a PENDING delivery due at
	// now for each event and each webhook active at that point of the log
	// (as its WEBHOOKS events tell) whose channels and types match, and
	// moves the cursor past them. It returns how many events it read.
	Follow(ctx context.Context, now time.Time, limit int) (int, error)
	// Claim leases up to limit PENDING deliveries due at now and not
	// leased by another dispatcher (or whose lease ended) to claim until
	// now+lease, and returns them with what sending needs.
	Claim(ctx context.Context, claim string, now time.Time, lease time.Duration, limit int) ([]Claimed, error)
	// Record stores the outcome of an attempt of a delivery leased with
	// claim, and ends the lease. It reports false when the lease was no
	// longer held (nothing recorded). When the delivery was redelivered
	// during the attempt, the attempt is counted and its status code and
	// error kept, but the delivery stays PENDING as the redelivery left it
	// (the redelivery wins).
	Record(ctx context.Context, claim string, r Result) (bool, error)
	// Lead tries to become the one follower of the log among the
	// processes sharing the database; release gives the lead up, check
	// reports its loss. ok is false when another process leads.
	Lead(ctx context.Context) (check func(context.Context) error, release func(), ok bool, err error)
}

// Tx is a write transaction of the webhook area.
type Tx interface {
	Emit(e event.Event)
	// CreateWebhook inserts w.
	CreateWebhook(ctx context.Context, w Stored) error
	// LockWebhook reads the webhook for update. Errors: webhook_not_found.
	LockWebhook(ctx context.Context, id string) (Webhook, error)
	// UpdateWebhook writes w's fields (not its secret).
	UpdateWebhook(ctx context.Context, w Webhook) error
	// RemoveWebhook deletes the webhook and its deliveries.
	RemoveWebhook(ctx context.Context, id string) error
	// Redeliver puts the delivery back to PENDING, due at now, for one
	// more attempt, and returns it; an attempt in flight keeps its lease,
	// and its record does not undo this (Store.Record). Errors:
	// delivery_not_found.
	Redeliver(ctx context.Context, id string, now time.Time) (Delivery, error)
}

// Claimed is a leased delivery with what sending it needs.
type Claimed struct {
	Delivery
	LastTry bool   // the attempt is the last (a redelivery)
	URL     string // the webhook's
	Secret  string // sealed
	Event   event.Event
}

// Result is the outcome of an attempt (Store.Record).
type Result struct {
	DeliveryID  string
	Status      string // PENDING (to retry), DELIVERED or FAILED
	StatusCode  *int
	Error       *string
	NextAttempt *time.Time
	DeliveredAt *time.Time
}
