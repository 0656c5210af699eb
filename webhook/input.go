package webhook

import "github.com/commercekit/commerce"

// CreateInput is the argument of webhook.create.
type CreateInput struct {
	// URL is where the events are POSTed: an http or https URL whose host
	// is not a private, loopback or link-local address.
	URL *string `json:"url,omitempty" openapi:"required,format=uri"`
	// Channels are the event channels subscribed to (PRODUCTS, CARTS, ...).
	Channels commerce.StringList `json:"channels,omitempty" openapi:"required"`
	// Types are the event types subscribed to (CREATE, CHECKOUT, ...);
	// absent or empty, every type.
	Types *commerce.StringList `json:"types,omitempty"`
	// Description is a note for people.
	Description *string `json:"description,omitempty"`
	// Active says whether events are delivered (default true).
	Active *bool `json:"active,omitempty"`
}

// InfoInput names a webhook (webhook.info, webhook.remove).
type InfoInput struct {
	// ID is the webhook's id.
	ID string `json:"id" openapi:"required"`
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
	// ID is the webhook's id.
	ID string `json:"id" openapi:"required"`
	// URL is the new URL.
	URL *string `json:"url,omitempty" openapi:"format=uri"`
	// Channels are the new channels.
	Channels *commerce.StringList `json:"channels,omitempty"`
	// Types are the new types; empty, every type again.
	Types *commerce.StringList `json:"types,omitempty"`
	// Description is the new note.
	Description *string `json:"description,omitempty"`
	// Active turns the deliveries on or off.
	Active *bool `json:"active,omitempty"`
}

// DeliveriesInput is the argument of webhook.deliveries.
type DeliveriesInput struct {
	// WebhookID matches the deliveries of this webhook.
	WebhookID string `json:"webhookId"`
	// Status matches the deliveries with this status: PENDING, DELIVERED or
	// FAILED.
	Status string `json:"status" openapi:"enum=PENDING|DELIVERED|FAILED"`
	commerce.PageArgs
}

// RedeliverInput is the argument of webhook.redeliver.
type RedeliverInput struct {
	// DeliveryID is the delivery's id.
	DeliveryID string `json:"deliveryId" openapi:"required"`
}
