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

// Notifications applies providers' notifications to the payments they
// name (the orders area implements it). Apply is idempotent on EventID;
// a reference it does not know is not an error (the provider may report
// payments the service did not make).
type Notifications interface {
	Apply(ctx context.Context, n Notification) error
}
