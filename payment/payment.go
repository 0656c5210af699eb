// Package payment holds the payment providers a cart can be checked out
// with. cart.checkout names one by its `paymentId` and passes it the
// client's `paymentData`; the provider authorises the payment of the
// cart's total and returns what is to be recorded with the cart.
//
// The provider "manual" is built in: it records paymentData as given and
// always authorises (cash on delivery, bank transfer, invoices settled
// outside the service).
//
// # Adding a provider
//
// Write a package that implements Provider and registers it in an init
// function,
//
//	func init() { payment.Register("acme", acme{}) }
//
// and import it for its side effect from cmd/commerce
// (import _ "github.com/commercekit/commerce/payment/acme"). From then on cart.checkout accepts
// paymentId "acme"; an id nobody registered is validation_error.
//
// # Local and remote providers
//
// The cart calls Authorize inside the checkout transaction, so that the
// payment record, the stock decrement, the CHECKED_OUT status and the
// CHECKOUT event commit together or not at all. That is right for a local
// provider such as manual, whose Authorize has no effect outside the
// transaction. A provider that calls a remote payment service must not
// charge from there: the transaction may still roll back (not enough stock,
// a lost race) or be run again (a PostgreSQL serialization retry), and a
// network call would hold the cart's row lock while it waits. Such a
// provider authorises (places a hold, with the cart id and version as the
// idempotency key) before the checkout and captures after the commit,
// voiding the hold when the checkout fails; its Authorize here then only
// checks and records the authorisation it is given in paymentData. The
// two-phase hooks are not part of this interface yet because no remote
// provider exists.
package payment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/commercekit/commerce"
)

// Manual is the id of the built-in provider.
const Manual = "manual"

// Request is what a provider is asked to authorise: Amount minor units of
// Currency (whose precision is Precision) for the cart, with the client's
// paymentData (a JSON object).
type Request struct {
	CartID     string
	CustomerID string
	Amount     int64
	Currency   string
	Precision  int
	Data       json.RawMessage
}

// Record is an authorised payment, stored with the checked-out cart and
// carried by its CHECKOUT event: the provider id, the provider's reference
// of the authorisation, the amount and what the provider keeps of the
// paymentData (a provider handling card details keeps a token, never the
// details).
type Record struct {
	PaymentID     string          `json:"paymentId"`
	Authorization string          `json:"authorization"`
	Amount        int64           `json:"amount"`
	Currency      string          `json:"currency"`
	Precision     int             `json:"precision"`
	Data          json.RawMessage `json:"paymentData,omitempty"`
}

// Provider authorises payments.
type Provider interface {
	// Authorize authorises the payment of r and returns its record
	// (PaymentID is filled in by the caller). It may be called more than
	// once for one checkout (a retried transaction) and its result thrown
	// away (a rolled-back one), so it must have no effect outside the
	// service (see the package documentation). A refusal is a
	// *commerce.Error: validation_error with data naming the paymentData
	// fields at fault ("paymentData.card: ...").
	Authorize(ctx context.Context, r Request) (Record, error)
}

// ProviderFunc adapts a function to a Provider.
type ProviderFunc func(ctx context.Context, r Request) (Record, error)

// Authorize calls f(ctx, r).
func (f ProviderFunc) Authorize(ctx context.Context, r Request) (Record, error) { return f(ctx, r) }

var (
	mu        sync.RWMutex
	providers = map[string]Provider{Manual: ProviderFunc(manual)}
)

// Register makes a provider available under an id. It is meant to be
// called from an init function and panics when id is empty, p is nil or
// the id is taken.
func Register(id string, p Provider) {
	mu.Lock()
	defer mu.Unlock()
	if id == "" || p == nil {
		panic("payment: Register needs an id and a provider")
	}
	if _, dup := providers[id]; dup {
		panic("payment: Register called twice for " + id)
	}
	providers[id] = p
}

// Lookup returns the provider registered under id.
func Lookup(id string) (Provider, bool) {
	mu.RLock()
	defer mu.RUnlock()
	p, ok := providers[id]
	return p, ok
}

// IDs returns the registered provider ids, sorted.
func IDs() []string {
	mu.RLock()
	defer mu.RUnlock()
	ids := make([]string, 0, len(providers))
	for id := range providers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Authorize authorises r with the provider registered under id and
// returns its record. An unknown id is validation_error naming paymentId.
func Authorize(ctx context.Context, id string, r Request) (Record, error) {
	p, ok := Lookup(id)
	if !ok {
		return Record{}, UnknownProvider(id)
	}
	rec, err := p.Authorize(ctx, r)
	if err != nil {
		return Record{}, fmt.Errorf("payment %s: %w", id, err)
	}
	rec.PaymentID = id
	return rec, nil
}

// UnknownProvider is the validation_error of a paymentId no provider is
// registered under.
func UnknownProvider(id string) *commerce.Error {
	return commerce.Invalid(fmt.Sprintf("paymentId: unknown payment provider %q (available: %v)", id, IDs()))
}

// manual records paymentData as given and always authorises.
func manual(_ context.Context, r Request) (Record, error) {
	data := bytes.TrimSpace(r.Data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	return Record{
		Authorization: "manual-" + commerce.NewID(),
		Amount:        r.Amount,
		Currency:      r.Currency,
		Precision:     r.Precision,
		Data:          json.RawMessage(data),
	}, nil
}
