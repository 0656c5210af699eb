package webhook

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Config configures the service.
type Config struct {
	// Sealer encrypts the signing secrets at rest.
	Sealer *Sealer
	// AllowPrivate lets webhooks reach loopback, private, link-local and
	// unspecified addresses (--webhook-allow-private; tests).
	AllowPrivate bool
	// Retry is the retry schedule (DefaultRetry when nil).
	Retry []time.Duration
	// Lease is how long a dispatcher holds a delivery it attempts before
	// another may take it over (1 minute when 0): longer than an attempt
	// (at least the timeout and 2s), so that no delivery is attempted
	// twice at once.
	Lease time.Duration
	// Poll is how often the dispatcher and the follower look for work
	// that no local commit announced (250ms when 0).
	Poll time.Duration
	// Timeout bounds an attempt (Timeout when 0).
	Timeout time.Duration
	// Workers is how many attempts run at once (8 when 0).
	Workers int
	// Client sends the attempts (a client with the SSRF guard when nil;
	// tests give their own only to observe it).
	Client *http.Client
	// Resolver looks up webhook hosts, at create and update and again at
	// each attempt (net.DefaultResolver when nil).
	Resolver Resolver
}

// Service holds the webhook use cases and the background delivery.
type Service struct {
	store  Store
	now    func() time.Time
	cfg    Config
	client *http.Client
	wake   chan struct{} // the follower created deliveries
}

// NewService returns the service over the store.
func NewService(store Store, now func() time.Time, cfg Config) *Service {
	if now == nil {
		now = time.Now
	}
	if cfg.Retry == nil {
		cfg.Retry = DefaultRetry
	}
	if cfg.Lease <= 0 {
		cfg.Lease = time.Minute
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = Timeout
	}
	if cfg.Lease < cfg.Timeout+2*time.Second {
		cfg.Lease = cfg.Timeout + 2*time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	s := &Service{store: store, now: now, cfg: cfg, wake: make(chan struct{}, 1)}
	s.client = cfg.Client
	if s.client == nil {
		s.client = newClient(cfg.AllowPrivate, cfg.Timeout, cfg.Resolver)
	}
	return s
}

// Created is the answer of webhook.create: the webhook and its secret,
// shown only here.
type Created struct {
	Webhook Webhook `json:"webhook"`
	Secret  string  `json:"secret"`
}

// Create validates the input and creates the webhook with a fresh secret,
// emitting WEBHOOKS CREATE {new, data}.
func (s *Service) Create(ctx context.Context, in CreateInput) (Created, error) {
	var p commerce.Problems
	w := Webhook{ID: commerce.NewID(), Active: true, CreatedAt: s.now().UTC().Truncate(time.Millisecond)}
	if in.URL == nil || strings.TrimSpace(*in.URL) == "" {
		p.Add("url", "required")
	} else if msg := checkURL(ctx, *in.URL, s.cfg.AllowPrivate, s.cfg.Resolver); msg != "" {
		p.Add("url", "%s", msg)
	} else {
		w.URL = *in.URL
	}
	if len(in.Channels) == 0 {
		p.Add("channels", "required: at least one channel")
	}
	checkChannels(&p, in.Channels)
	w.Channels = []string(in.Channels)
	if in.Types != nil && len(*in.Types) > 0 {
		w.Types = []string(*in.Types)
	}
	w.Description = in.Description
	if in.Description != nil {
		p.CheckLen("description", *in.Description, commerce.MaxTextLen)
	}
	if in.Active != nil {
		w.Active = *in.Active
	}
	if err := p.Err(); err != nil {
		return Created{}, err
	}
	secret := NewSecret()
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := tx.CreateWebhook(ctx, Stored{Webhook: w, Secret: s.cfg.Sealer.Seal(secret)}); err != nil {
			return err
		}
		return event.Emit(tx, event.Webhooks, event.Create, s.now(), map[string]any{"new": w, "data": in})
	})
	if err != nil {
		return Created{}, err
	}
	return Created{Webhook: w, Secret: secret}, nil
}

// Info returns the webhook.
func (s *Service) Info(ctx context.Context, in InfoInput) (Webhook, error) {
	if in.ID == "" {
		return Webhook{}, commerce.Invalid("id: required")
	}
	return s.store.Webhook(ctx, in.ID)
}

// List returns webhooks in creation order.
func (s *Service) List(ctx context.Context, in ListInput) (commerce.List, error) {
	page, err := in.Page()
	if err != nil {
		return commerce.List{}, err
	}
	ws, err := s.store.Webhooks(ctx, page.Limit, page.Skip)
	if err != nil {
		return commerce.List{}, err
	}
	data := make([]any, len(ws))
	for i, w := range ws {
		data[i] = w
	}
	return commerce.List{Page: page, Data: data}, nil
}

// Update changes the fields given, emitting WEBHOOKS UPDATE {data, old,
// new}. A webhook made inactive gets no deliveries for the events written
// while it is.
func (s *Service) Update(ctx context.Context, in UpdateInput) (Webhook, error) {
	var p commerce.Problems
	if in.ID == "" {
		p.Add("id", "required")
	}
	if in.URL != nil {
		if msg := checkURL(ctx, *in.URL, s.cfg.AllowPrivate, s.cfg.Resolver); msg != "" {
			p.Add("url", "%s", msg)
		}
	}
	if in.Channels != nil && len(*in.Channels) == 0 {
		p.Add("channels", "must have at least one channel")
	}
	if in.Channels != nil {
		checkChannels(&p, *in.Channels)
	}
	if in.Description != nil {
		p.CheckLen("description", *in.Description, commerce.MaxTextLen)
	}
	if err := p.Err(); err != nil {
		return Webhook{}, err
	}
	var out Webhook
	err := s.store.Update(ctx, func(tx Tx) error {
		old, err := tx.LockWebhook(ctx, in.ID)
		if err != nil {
			return err
		}
		w := old
		if in.URL != nil {
			w.URL = *in.URL
		}
		if in.Channels != nil {
			w.Channels = []string(*in.Channels)
		}
		if in.Types != nil {
			w.Types = nil
			if len(*in.Types) > 0 {
				w.Types = []string(*in.Types)
			}
		}
		if in.Description != nil {
			w.Description = in.Description
		}
		if in.Active != nil {
			w.Active = *in.Active
		}
		if err := tx.UpdateWebhook(ctx, w); err != nil {
			return err
		}
		out = w
		return event.Emit(tx, event.Webhooks, event.Update, s.now(), map[string]any{"data": in, "old": old, "new": w})
	})
	return out, err
}

// Remove deletes the webhook and its deliveries, emitting WEBHOOKS REMOVE
// {id, old}, and returns it.
func (s *Service) Remove(ctx context.Context, in RemoveInput) (Webhook, error) {
	if in.ID == "" {
		return Webhook{}, commerce.Invalid("id: required")
	}
	var out Webhook
	err := s.store.Update(ctx, func(tx Tx) error {
		old, err := tx.LockWebhook(ctx, in.ID)
		if err != nil {
			return err
		}
		if err := tx.RemoveWebhook(ctx, in.ID); err != nil {
			return err
		}
		out = old
		return event.Emit(tx, event.Webhooks, event.Remove, s.now(), map[string]any{"id": in.ID, "old": old})
	})
	return out, err
}

// DeliveryList is the answer of webhook.deliveries.
type DeliveryList struct {
	Page commerce.Page `json:"page"`
	Data []Delivery    `json:"data"`
}

// Deliveries lists deliveries in creation order, of one webhook (unknown:
// webhook_not_found) and one status when given.
func (s *Service) Deliveries(ctx context.Context, in DeliveriesInput) (DeliveryList, error) {
	var p commerce.Problems
	page, err := in.Page()
	p.AddErr(err)
	switch in.Status {
	case "", Pending, Delivered, Failed:
	default:
		p.Add("status", "must be one of PENDING, DELIVERED, FAILED")
	}
	if err := p.Err(); err != nil {
		return DeliveryList{}, err
	}
	if in.WebhookID != "" {
		if _, err := s.store.Webhook(ctx, in.WebhookID); err != nil {
			return DeliveryList{}, err
		}
	}
	ds, err := s.store.Deliveries(ctx, in.WebhookID, in.Status, page.Limit, page.Skip)
	if err != nil {
		return DeliveryList{}, err
	}
	if ds == nil {
		ds = []Delivery{}
	}
	return DeliveryList{Page: page, Data: ds}, nil
}

// Redeliver puts the delivery back to PENDING for one more attempt, on the
// same record (attempts keeps counting).
func (s *Service) Redeliver(ctx context.Context, in RedeliverInput) (Delivery, error) {
	if in.DeliveryID == "" {
		return Delivery{}, commerce.Invalid("deliveryId: required")
	}
	var out Delivery
	err := s.store.Update(ctx, func(tx Tx) error {
		d, err := tx.Redeliver(ctx, in.DeliveryID, s.now())
		out = d
		return err
	})
	if err == nil {
		s.poke()
	}
	return out, err
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// logger is a discarding logger for a nil one.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
