package mail

import "github.com/commercekit/commerce"

// ListInput is the argument of mail.list.
type ListInput struct {
	// To keeps the messages sent to this address.
	To string `json:"to"`
	// Template keeps the messages of this template (order_confirmation, ...).
	Template string `json:"template" openapi:"enum=order_confirmation|order_shipped|order_refunded|order_cancelled|return_update|password_reset|welcome|staff_invite"`
	// Status keeps the messages in this status (PENDING, SENT, FAILED, CANCELLED).
	Status string `json:"status" openapi:"enum=PENDING|SENT|FAILED|CANCELLED"`
	commerce.PageArgs
}

// InfoInput names a message (mail.info).
type InfoInput struct {
	// ID is the message's id.
	ID string `json:"id" openapi:"required"`
}

// ResendInput is the argument of mail.resend.
type ResendInput = InfoInput

// PreviewInput is the argument of mail.preview: an order's templates
// need orderId, welcome and password_reset a customerId (or an orderId,
// whose customer or email is used), staff_invite neither.
type PreviewInput struct {
	// Template is the template rendered (order_confirmation, ...).
	Template string `json:"template" openapi:"required,enum=order_confirmation|order_shipped|order_refunded|order_cancelled|return_update|password_reset|welcome|staff_invite"`
	// Locale is the language rendered (en when absent).
	Locale string `json:"locale"`
	// OrderID is the order whose data fills the template.
	OrderID string `json:"orderId"`
	// CustomerID is the customer whose data fills the template.
	CustomerID string `json:"customerId"`
}
