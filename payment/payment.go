// Package payment is the payment port: the Provider interface every
// payment provider implements (authorise, capture, void, refund), the
// Providers set the application builds from its configuration, and the
// payment_failed error.
//
// Providers are subpackages (payment/manual is built in) constructed by
// package app and handed to the areas that take payments; nothing is
// registered from init, and there is no global registry.
//
// # Remote calls and transactions
//
// A provider may call a remote payment service, so its methods are never
// called inside a store transaction (a transaction may be run again after
// a serialization failure, and must not hold row locks while a network
// call waits). Checkout authorises once, before its transaction, under an
// idempotency key of its own, and voids the authorisation when the
// transaction then fails (see package cart). Every call carries an
// idempotency key: calling a method again with the same key (a retry
// after a timeout, a recovery job) has the effect of one call and returns
// the same result.
package payment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/commercekit/commerce"
)

// Provider is a payment provider. Amounts are minor units of Currency
// (an ISO 4217 code in upper case) whose precision is Precision.
//
// Errors: a refusal (a declined card, a payment the provider will not
// make) or a failure of the provider is a *Decline (see Declined);
// validation_error naming the paymentData fields at fault
// ("paymentData.paymentMethod: required") for data the provider cannot
// use. The Provider a Providers set returns turns every other error into
// payment_failed (see Providers.Provider).
type Provider interface {
	// Authorize places a hold of r.Amount on the customer's means of
	// payment and returns the authorisation.
	Authorize(ctx context.Context, r AuthorizeRequest) (Authorization, error)
	// Capture takes r.Amount (at most what was authorised) of an
	// authorisation.
	Capture(ctx context.Context, r CaptureRequest) (Receipt, error)
	// Void cancels an authorisation that was not captured.
	Void(ctx context.Context, r VoidRequest) (Receipt, error)
	// Refund gives back r.Amount (at most what was captured and not yet
	// refunded) of a captured authorisation.
	Refund(ctx context.Context, r RefundRequest) (Receipt, error)
}

// Local is implemented by a provider whose authorisations change nothing
// outside this service (manual): a process that dies after one leaves no
// hold on anyone's card, so checkout records no attempt before it
// authorises and allocates the order's number in its own transaction.
type Local interface {
	Local() bool
}

// IsLocal reports whether p is a Local provider.
func IsLocal(p Provider) bool {
	if n, ok := p.(named); ok {
		p = n.p
	}
	l, ok := p.(Local)
	return ok && l.Local()
}

// AuthorizeRequest asks for the authorisation of Amount for a cart's
// checkout.
type AuthorizeRequest struct {
	// IdempotencyKey identifies the checkout attempt: the same key always
	// means the same authorisation.
	IdempotencyKey string
	CartID         string
	CustomerID     string
	// OrderNumber is the number of the order the checkout will create,
	// when one was allocated before the authorisation ("" otherwise);
	// providers record it with the payment (Stripe: metadata orderNumber).
	OrderNumber string
	Amount      int64
	Currency    string
	Precision   int
	// Data is the client's paymentData, a JSON object (a card token, a
	// payment method id, a purchase order reference...).
	Data json.RawMessage
}

// Authorization is an authorised payment: the provider's Reference of it
// (what Capture, Void and Refund name) and what the provider keeps of the
// paymentData (a provider handling card details keeps a token, never the
// details; manual keeps the object as given).
type Authorization struct {
	Reference string
	Amount    int64
	Currency  string
	Precision int
	Data      json.RawMessage
}

// CaptureRequest asks to capture Amount of the authorisation Reference.
type CaptureRequest struct {
	IdempotencyKey string
	Reference      string
	Amount         int64
	Currency       string
}

// VoidRequest asks to cancel the authorisation Reference.
type VoidRequest struct {
	IdempotencyKey string
	Reference      string
}

// RefundRequest asks to refund Amount of the captured authorisation
// Reference.
type RefundRequest struct {
	IdempotencyKey string
	Reference      string
	Amount         int64
	Currency       string
	Reason         string
}

// Receipt is the provider's answer to a capture, void or refund: its
// reference of the operation (a refund id, ...) and the amount it moved
// (0 for a void).
type Receipt struct {
	Reference string
	Amount    int64
}

// Record is an authorised payment as a checked-out cart stores it and its
// CHECKOUT event carries it: the provider's id, the authorisation's
// reference, the amount and what the provider keeps of the paymentData.
type Record struct {
	PaymentID     string          `json:"paymentId"`
	Authorization string          `json:"authorization"`
	Amount        int64           `json:"amount"`
	Currency      string          `json:"currency"`
	Precision     int             `json:"precision"`
	Data          json.RawMessage `json:"paymentData,omitempty"`
}

// NewRecord returns the record of an authorisation by the provider id.
func NewRecord(id string, a Authorization) Record {
	return Record{PaymentID: id, Authorization: a.Reference, Amount: a.Amount, Currency: a.Currency,
		Precision: a.Precision, Data: a.Data}
}

// Decline is a provider's refusal or failure: Code is the provider's
// reason ("card_declined", "provider_error"), Message a text for the
// customer. Providers return it with Declined; the Providers set turns it
// into payment_failed.
type Decline struct {
	Code    string
	Message string
	// Err is the cause (a network error, the provider's own error).
	Err error
}

// Declined returns a provider's refusal with its code and message.
func Declined(code, message string, cause error) *Decline {
	return &Decline{Code: code, Message: message, Err: cause}
}

// Error implements error.
func (d *Decline) Error() string {
	if d.Err != nil {
		return fmt.Sprintf("payment declined: %s: %s: %v", d.Code, d.Message, d.Err)
	}
	return fmt.Sprintf("payment declined: %s: %s", d.Code, d.Message)
}

// Unwrap returns the cause.
func (d *Decline) Unwrap() error { return d.Err }

// ProviderError is the Decline code of a provider failure that is not a
// refusal (unreachable, an unexpected answer).
const ProviderError = "provider_error"

// Uncertain reports whether err, the error of a call to a Provider of a
// Providers set, leaves the call's outcome unknown: the provider may have
// done what it was asked although no answer came back (payment_failed
// with code ProviderError: a timeout, a reset connection, a 5xx; or an
// error that is not the service's own, such as the end of the caller's
// context). Such a call is asked again later with the same idempotency
// key, never taken as not made. Any other error is definite: a refusal
// (payment_failed with another code), or validation_error and
// internal_error, raised before anything was sent.
func Uncertain(err error) bool {
	if err == nil {
		return false
	}
	ce, ok := errors.AsType[*commerce.Error](err)
	if !ok {
		return true
	}
	switch ce.Code {
	case commerce.EPaymentFailed:
		f, ok := ce.Data.(Failure)
		return !ok || f.Code == ProviderError
	case commerce.EUnavailable:
		return true
	}
	return false
}

// Failure is the data of a payment_failed error: the provider's id, the
// provider's reason code and its message.
type Failure struct {
	Provider string `json:"provider"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// Failed returns the payment_failed error (HTTP 402) of a refusal or
// failure of the provider id.
func Failed(id, code, message string, cause error) *commerce.Error {
	return &commerce.Error{Code: commerce.EPaymentFailed, Data: Failure{Provider: id, Code: code, Message: message},
		Message: fmt.Sprintf("payment provider %s: %s: %s", id, code, message), Err: cause}
}

// Providers is the set of payment providers the service is configured
// with, by id (the paymentId of cart.checkout). Package app builds it.
type Providers struct {
	byID map[string]Provider
}

// NewProviders returns the set of the providers given by id. An empty id
// or a nil provider is an error.
func NewProviders(byID map[string]Provider) (*Providers, error) {
	ps := &Providers{byID: make(map[string]Provider, len(byID))}
	for id, p := range byID {
		if id == "" || p == nil {
			return nil, fmt.Errorf("payment providers: provider %q: an id and a provider are required", id)
		}
		ps.byID[id] = named{id: id, p: p}
	}
	return ps, nil
}

// IDs returns the ids of the providers, sorted.
func (ps *Providers) IDs() []string {
	ids := make([]string, 0, len(ps.byID))
	for id := range ps.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Provider returns the provider with the id. Its calls need an
// idempotency key (an internal error without one) and answer in the
// service's errors: a *Decline, or any error that is neither a
// *commerce.Error nor the end of the caller's context, becomes
// payment_failed with data {provider, code, message} (code
// provider_error, with a generic message, for a failure that is not a
// refusal: details go to the log through the error's cause).
// Errors: validation_error naming paymentId for an unknown id.
func (ps *Providers) Provider(id string) (Provider, error) {
	p, ok := ps.byID[id]
	if !ok {
		return nil, commerce.Invalid(fmt.Sprintf("paymentId: unknown payment provider %q (available: %v)", id, ps.IDs()))
	}
	return p, nil
}

// named is a provider of a set: it checks the idempotency key and
// translates errors (see Providers.Provider).
type named struct {
	id string
	p  Provider
}

var errNoKey = errors.New("payment: an idempotency key is required")

func (n named) Authorize(ctx context.Context, r AuthorizeRequest) (Authorization, error) {
	return call(ctx, n, "authorize", r.IdempotencyKey, func() (Authorization, error) { return n.p.Authorize(ctx, r) })
}

func (n named) Capture(ctx context.Context, r CaptureRequest) (Receipt, error) {
	return call(ctx, n, "capture", r.IdempotencyKey, func() (Receipt, error) { return n.p.Capture(ctx, r) })
}

func (n named) Void(ctx context.Context, r VoidRequest) (Receipt, error) {
	return call(ctx, n, "void", r.IdempotencyKey, func() (Receipt, error) { return n.p.Void(ctx, r) })
}

func (n named) Refund(ctx context.Context, r RefundRequest) (Receipt, error) {
	return call(ctx, n, "refund", r.IdempotencyKey, func() (Receipt, error) { return n.p.Refund(ctx, r) })
}

// call runs the provider's operation op, which needs an idempotency key,
// and translates its error (see Providers.Provider).
func call[R any](ctx context.Context, n named, op, key string, fn func() (R, error)) (R, error) {
	if key == "" {
		var zero R
		return zero, commerce.Errorf(commerce.EInternal, "%s with %s: %w", op, n.id, errNoKey)
	}
	r, err := fn()
	return r, n.fail(ctx, op, err)
}

// fail translates an error of the provider's operation op.
func (n named) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var d *Decline
	if errors.As(err, &d) {
		return Failed(n.id, d.Code, d.Message, err)
	}
	var ce *commerce.Error
	if errors.As(err, &ce) || ctx.Err() != nil {
		return fmt.Errorf("%s with %s: %w", op, n.id, err)
	}
	return Failed(n.id, ProviderError, "the payment provider could not "+op+" the payment; try again later", err)
}
