package app

import (
	"fmt"

	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
	"github.com/commercekit/commerce/payment/stripe"
)

// payments builds the payment providers from the configuration: the
// built-in manual provider, "stripe" when o.StripeKey is set, and the
// others given in o.PaymentProviders (which may not take the id "manual",
// nor "stripe" when it is configured).
func payments(o Options) (*payment.Providers, error) {
	byID := map[string]payment.Provider{manual.ID: manual.New()}
	if o.StripeKey != "" {
		p, err := stripe.New(stripe.Options{Key: o.StripeKey, URL: o.StripeURL})
		if err != nil {
			return nil, fmt.Errorf("payment provider %s: %w", stripe.ID, err)
		}
		byID[stripe.ID] = p
	}
	for id, p := range o.PaymentProviders {
		if _, taken := byID[id]; taken {
			return nil, fmt.Errorf("payment provider %q: the id is taken", id)
		}
		byID[id] = p
	}
	return payment.NewProviders(byID)
}

// serveWebhooks serves POST /webhooks/stripe on the server when a webhook
// secret is configured (anyone may call it, the Stripe-Signature proves
// the sender), as a path of its own (rpc.Server.HandlePath): one log line
// per request and the request metrics, as service "webhooks", operation
// "webhooks.stripe", version "". The events are applied through
// a.Notifications (503 while it is nil).
func (a *App) serveWebhooks() {
	if a.opts.StripeWebhookSecret == "" {
		return
	}
	a.srv.HandlePath(stripe.WebhookPath, "webhooks", "webhooks.stripe", &stripe.Webhook{
		Secret:        a.opts.StripeWebhookSecret,
		Notifications: func() payment.Notifications { return a.Notifications },
		Logger:        a.logger,
		Now:           a.now,
	})
}
