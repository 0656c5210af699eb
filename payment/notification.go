package payment

import "context"

// Notification is a change of a payment that its provider reports on its
// own (a webhook), after the fact: a capture, void, failure or refund
// made outside the service or confirmed late.
type Notification struct {
	// EventID is the provider's id of the notification; applying one
	// EventID twice has the effect of applying it once.
	EventID string
	// Provider is the provider's id ("stripe").
	Provider string
	// Reference is the authorisation's reference (Authorization.Reference,
	// for Stripe the PaymentIntent id).
	Reference string
	Kind      NotificationKind
	// Amount is, for NotifyCaptured, the amount captured; for
	// NotifyRefunded, the total refunded so far (minor units); else 0.
	Amount int64
}

// NotificationKind is what a Notification reports.
type NotificationKind string

// The kinds of notification.
const (
	NotifyCaptured NotificationKind = "CAPTURED"
	NotifyVoided   NotificationKind = "VOIDED"
	NotifyFailed   NotificationKind = "FAILED"
	NotifyRefunded NotificationKind = "REFUNDED"
)

// Outcome is what applying a notification did (Notifications.Apply).
type Outcome int

// The outcomes of a notification applied without error.
const (
	// Applied: the payment changed.
	Applied Outcome = iota + 1
	// Duplicate: the event id was applied (or ignored) before; nothing
	// changed.
	Duplicate
	// Ignored: nothing to change (no payment has the reference, the
	// payment is already as reported, or an operation of the service in
	// progress reports the change itself).
	Ignored
)

// String names the outcome for logs.
func (o Outcome) String() string {
	switch o {
	case Applied:
		return "applied"
	case Duplicate:
		return "duplicate"
	case Ignored:
		return "ignored"
	}
	return "unknown"
}

// Notifications applies providers' notifications to the payments they
// name (the orders area implements it). Apply is idempotent on EventID
// (a repeated one is Duplicate); a reference it does not know is not an
// error (the provider may report payments the service did not make:
// Ignored). On error the outcome is 0.
type Notifications interface {
	Apply(ctx context.Context, n Notification) (Outcome, error)
}
