// Package webhook is the webhook area (docs/api.md section 17): webhook
// subscriptions, the deliveries the outbox follower creates for them, and
// the dispatcher that sends each delivery, signed per the Standard Webhooks
// specification, with retries on a schedule.
package webhook

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// checkChannels adds a problem for each channel that no area emits on (a
// webhook subscribed to a misspelt channel would never get a delivery).
func checkChannels(p *commerce.Problems, channels []string) {
	for i, c := range channels {
		if !slices.Contains(event.Channels, c) {
			p.Add(fmt.Sprintf("channels[%d]", i), "must be one of %s", strings.Join(event.Channels, ", "))
		}
	}
}

// Delivery statuses.
const (
	Pending   = "PENDING"
	Delivered = "DELIVERED"
	Failed    = "FAILED"
)

// DefaultRetry is the retry schedule: the waits before the second, third,
// ... attempt. After the last, a delivery that still fails is FAILED.
var DefaultRetry = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Timeout is how long an attempt may take: a 2xx answer within it is
// delivered.
const Timeout = 10 * time.Second

// Webhook is a subscription: {id, url, channels, types, description,
// active, createdAt}. Types nil (null) means every type. The signing secret is
// not part of it (shown once, at create).
type Webhook struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Channels    []string  `json:"channels"`
	Types       []string  `json:"types"`
	Description *string   `json:"description"`
	Active      bool      `json:"active"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Matches reports whether an event of the channel and type is one the
// subscription's channels and types select.
func Matches(channels, types []string, channel, typ string) bool {
	return slices.Contains(channels, channel) && (len(types) == 0 || slices.Contains(types, typ))
}

// Delivery is one event to send to one webhook.
type Delivery struct {
	ID             string     `json:"id"`
	WebhookID      string     `json:"webhookId"`
	EventID        string     `json:"eventId"`
	Status         string     `json:"status" openapi:"enum=PENDING|DELIVERED|FAILED"`
	Attempts       int        `json:"attempts"`
	LastStatusCode *int       `json:"lastStatusCode"`
	LastError      *string    `json:"lastError"`
	NextAttemptAt  *time.Time `json:"nextAttemptAt"`
	DeliveredAt    *time.Time `json:"deliveredAt"`
}

// NotFound is webhook_not_found with the id as data.
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EWebhookNotFound, Data: id, Message: "no webhook " + id}
}

// DeliveryNotFound is delivery_not_found with the id as data.
func DeliveryNotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EDeliveryNotFound, Data: id, Message: "no delivery " + id}
}
