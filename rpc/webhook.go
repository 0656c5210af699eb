package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/webhook"
)

// webhookList is the answer of webhook.list, for /openapi.json.
type webhookList struct {
	Page commerce.Page     `json:"page"`
	Data []webhook.Webhook `json:"data"`
}

type webhookResult struct {
	Webhook webhook.Webhook `json:"webhook"`
}

type deliveryResult struct {
	Delivery webhook.Delivery `json:"delivery"`
}

// RegisterWebhooks registers the webhook operations under /event/v1/, all
// admin only (docs/api.md section 17): webhook.create (answers {webhook,
// secret}; the secret is shown only there), webhook.info, webhook.list and
// webhook.deliveries (read: GET or POST), webhook.update, webhook.remove
// ({webhook}) and webhook.redeliver ({delivery}).
func RegisterWebhooks(s *Server, svc *webhook.Service) {
	Handle(s, Op{Service: "event", Name: "webhook.create", Admin: true, Result: webhook.Created{},
		Doc: "Creates a webhook for the events of its channels (and types); the answer holds its signing secret, shown only here."},
		func(ctx context.Context, a *webhook.CreateInput) (any, error) {
			return svc.Create(ctx, *a)
		})
	Handle(s, Op{Service: "event", Name: "webhook.info", Read: true, Admin: true, Result: webhookResult{},
		Doc: "A webhook.", Errors: []string{commerce.EWebhookNotFound}},
		func(ctx context.Context, a *webhook.InfoInput) (any, error) {
			w, err := svc.Info(ctx, *a)
			if err != nil {
				return nil, err
			}
			return webhookResult{w}, nil
		})
	Handle(s, Op{Service: "event", Name: "webhook.list", Read: true, Admin: true, Result: webhookList{},
		Doc: "Webhooks in creation order, a page at a time."},
		func(ctx context.Context, a *webhook.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	Handle(s, Op{Service: "event", Name: "webhook.update", Admin: true, Result: webhookResult{},
		Doc: "Changes the fields given of a webhook.", Errors: []string{commerce.EWebhookNotFound}},
		func(ctx context.Context, a *webhook.UpdateInput) (any, error) {
			w, err := svc.Update(ctx, *a)
			if err != nil {
				return nil, err
			}
			return webhookResult{w}, nil
		})
	Handle(s, Op{Service: "event", Name: "webhook.remove", Admin: true, Result: webhookResult{},
		Doc: "Removes a webhook, answering it as it was.", Errors: []string{commerce.EWebhookNotFound}},
		func(ctx context.Context, a *webhook.RemoveInput) (any, error) {
			w, err := svc.Remove(ctx, *a)
			if err != nil {
				return nil, err
			}
			return webhookResult{w}, nil
		})
	Handle(s, Op{Service: "event", Name: "webhook.deliveries", Read: true, Admin: true, Result: webhook.DeliveryList{},
		Doc: "Deliveries in creation order, of one webhook and one status when given, a page at a time.", Errors: []string{commerce.EWebhookNotFound}},
		func(ctx context.Context, a *webhook.DeliveriesInput) (any, error) {
			return svc.Deliveries(ctx, *a)
		})
	Handle(s, Op{Service: "event", Name: "webhook.redeliver", Admin: true, Result: deliveryResult{},
		Doc: "Puts a delivery back to PENDING for one more attempt.", Errors: []string{commerce.EDeliveryNotFound}},
		func(ctx context.Context, a *webhook.RedeliverInput) (any, error) {
			d, err := svc.Redeliver(ctx, *a)
			if err != nil {
				return nil, err
			}
			return deliveryResult{d}, nil
		})
}
