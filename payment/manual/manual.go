// Package manual is the built-in payment provider "manual": payments
// settled outside the service (cash on delivery, bank transfer, invoices).
// It always authorises and records the client's paymentData as given;
// capture, void and refund are recorded only (nothing is charged).
//
// It keeps no state: every reference is derived from the call's
// idempotency key, so a call repeated with the same key returns the same
// result, as the payment port requires.
package manual

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/commercekit/commerce/payment"
)

// ID is the provider's id, the paymentId clients name it by.
const ID = "manual"

// Provider is the manual provider.
type Provider struct{}

// New returns the manual provider.
func New() Provider { return Provider{} }

// Local implements payment.Local: recording is all manual does.
func (Provider) Local() bool { return true }

var _ payment.Provider = Provider{}

// Authorize always authorises the amount; the reference is
// "manual-<idempotency key>" and the data the paymentData as given ({}
// when empty).
func (Provider) Authorize(_ context.Context, r payment.AuthorizeRequest) (payment.Authorization, error) {
	data := bytes.TrimSpace(r.Data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	return payment.Authorization{
		Reference: "manual-" + r.IdempotencyKey,
		Amount:    r.Amount,
		Currency:  r.Currency,
		Precision: r.Precision,
		Data:      json.RawMessage(data),
	}, nil
}

// Capture records the capture of the amount.
func (Provider) Capture(_ context.Context, r payment.CaptureRequest) (payment.Receipt, error) {
	return payment.Receipt{Reference: "manual-" + r.IdempotencyKey, Amount: r.Amount}, nil
}

// Void records the cancellation of the authorisation.
func (Provider) Void(_ context.Context, r payment.VoidRequest) (payment.Receipt, error) {
	return payment.Receipt{Reference: "manual-" + r.IdempotencyKey}, nil
}

// Refund records the refund of the amount.
func (Provider) Refund(_ context.Context, r payment.RefundRequest) (payment.Receipt, error) {
	return payment.Receipt{Reference: "manual-" + r.IdempotencyKey, Amount: r.Amount}, nil
}
