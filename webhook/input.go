package webhook

import "github.com/commercekit/commerce"

// CreateInput is the argument of webhook.create.
type CreateInput struct {
	URL         *string              `json:"url,omitempty"`
	Channels    commerce.StringList  `json:"channels,omitempty"`
	Types       *commerce.StringList `json:"types,omitempty"`
	Description *string              `json:"description,omitempty"`
	Active      *bool                `json:"active,omitempty"`
}

// InfoInput names a webhook (webhook.info, webhook.remove).
type InfoInput struct {
	ID string `json:"id"`
}

// RemoveInput is the argument of webhook.remove.
type RemoveInput = InfoInput

// ListInput is the argument of webhook.list.
type ListInput struct {
	commerce.PageArgs
}

// UpdateInput is the argument of webhook.update: the fields given are
// changed. An empty types list means every type again.
type UpdateInput struct {
	ID          string               `json:"id"`
	URL         *string              `json:"url,omitempty"`
	Channels    *commerce.StringList `json:"channels,omitempty"`
	Types       *commerce.StringList `json:"types,omitempty"`
	Description *string              `json:"description,omitempty"`
	Active      *bool                `json:"active,omitempty"`
}

// DeliveriesInput is the argument of webhook.deliveries.
type DeliveriesInput struct {
	WebhookID string `json:"webhookId"`
	Status    string `json:"status"`
	commerce.PageArgs
}

// RedeliverInput is the argument of webhook.redeliver.
type RedeliverInput struct {
	DeliveryID string `json:"deliveryId"`
}
