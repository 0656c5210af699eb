package order

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
)

// BeginCheckout is called by a checkout before it asks the provider id to
// authorise r: it allocates the order's number and records the attempt
// (r with OrderNumber set), so that an authorisation is never left without
// its order, even when the process dies before the checkout's transaction
// commits (see RecoverCheckouts). It returns r as it must be sent.
func (s *Service) BeginCheckout(ctx context.Context, provider string, r payment.AuthorizeRequest) (payment.AuthorizeRequest, error) {
	a := &Attempt{Provider: provider, Request: r, Created: s.clock()}
	n, err := s.store.BeginCheckout(ctx, a)
	if err != nil {
		return r, fmt.Errorf("begin checkout: %w", err)
	}
	r.OrderNumber = strconv.FormatInt(n, 10)
	return r, nil
}

// EndCheckout forgets the attempt key of a checkout that failed once its
// authorisation was voided.
func (s *Service) EndCheckout(ctx context.Context, key string) error {
	return s.store.EndCheckout(ctx, key)
}

// RecoverCheckouts voids the authorisations of checkout attempts made at
// least RecoverAfter ago that never placed their order nor were voided by
// their checkout (the process died in between): the provider is asked
// again with the same request and key (which gives the same
// authorisation, or a refusal when there was none), then voided under
// "<key>:void", as the checkout itself would have. A refusal closes the
// attempt without a void; a provider failure (payment.Uncertain) leaves
// it for the next round. It returns how many attempts it closed.
func (s *Service) RecoverCheckouts(ctx context.Context) (int, error) {
	attempts, err := s.store.StaleCheckouts(ctx, s.clock().Add(-s.recoverAfter()), recoverBatch)
	if err != nil {
		return 0, fmt.Errorf("recover checkouts: %w", err)
	}
	done := 0
	var errs []error
	for _, a := range attempts {
		if err := s.voidAttempt(ctx, a); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.store.EndCheckout(ctx, a.Request.IdempotencyKey); err != nil {
			errs = append(errs, err)
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}

func (s *Service) voidAttempt(ctx context.Context, a *Attempt) error {
	if s.payments == nil {
		return commerce.Errorf(commerce.EInternal, "checkout attempt %s: no payment providers", a.Request.IdempotencyKey)
	}
	prov, err := s.payments.Provider(a.Provider)
	if err != nil {
		return fmt.Errorf("checkout attempt %s: %w", a.Request.IdempotencyKey, err)
	}
	auth, err := prov.Authorize(ctx, a.Request)
	if err != nil && !payment.Uncertain(err) {
		return nil // refused: nothing was authorised
	}
	if err != nil {
		// A provider failure (an outage is payment_failed with code
		// provider_error) says nothing of the first call: the attempt
		// waits for the next round.
		return fmt.Errorf("checkout attempt %s: authorise again: %w", a.Request.IdempotencyKey, err)
	}
	if _, err := prov.Void(ctx, payment.VoidRequest{IdempotencyKey: a.Request.IdempotencyKey + ":void", Reference: auth.Reference}); err != nil {
		return fmt.Errorf("checkout attempt %s: void %s: %w", a.Request.IdempotencyKey, auth.Reference, err)
	}
	s.logger().Info("voided the authorisation of a checkout that did not complete",
		"provider", a.Provider, "reference", auth.Reference, "cart", a.Request.CartID)
	return nil
}
