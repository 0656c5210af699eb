package mail

import "github.com/commercekit/commerce"

// ListInput is the argument of mail.list.
type ListInput struct {
	To       string `json:"to"`
	Template string `json:"template"`
	Status   string `json:"status"`
	commerce.PageArgs
}

// InfoInput names a message (mail.info).
type InfoInput struct {
	ID string `json:"id"`
}

// ResendInput is the argument of mail.resend.
type ResendInput = InfoInput

// PreviewInput is the argument of mail.preview: an order's templates
// need orderId, welcome and password_reset a customerId (or an orderId,
// whose customer or email is used), staff_invite neither.
type PreviewInput struct {
	Template   string `json:"template"`
	Locale     string `json:"locale"`
	OrderID    string `json:"orderId"`
	CustomerID string `json:"customerId"`
}
