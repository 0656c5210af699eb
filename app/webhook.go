package app

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/webhook"
)

// webhooks assembles the webhook area (docs/api.md section 17) and the
// idempotency keys of POST operations (section 18).
func webhooks(a *App) error {
	key := a.opts.WebhookKey
	if len(key) == 0 {
		// Secrets sealed with a key of this process only: webhooks
		// created now stop being deliverable after a restart.
		a.logger.Warn("no webhook sealing key: webhook secrets will not survive a restart")
		key = make([]byte, 32)
		rand.Read(key)
	}
	sealer, err := webhook.NewSealer(key)
	if err != nil {
		return err
	}
	a.Webhook = webhook.NewService(sqldb.NewWebhookStore(a.db), a.now, webhook.Config{
		Sealer:       sealer,
		AllowPrivate: a.opts.WebhookAllowPrivate,
		Retry:        a.opts.WebhookRetry,
		Lease:        a.opts.WebhookLease,
		Timeout:      a.opts.WebhookTimeout,
	})
	rpc.RegisterWebhooks(a.srv, a.Webhook)
	a.idem = sqldb.NewIdempotencyStore(a.db)
	a.srv.SetIdempotency(a.idem, a.now)
	return nil
}

// runWebhooks delivers webhooks until ctx ends.
func (a *App) runWebhooks(ctx context.Context) {
	if a.Webhook != nil {
		a.Webhook.Run(ctx, a.db.Notify(), a.logger)
	}
}

// sweepIdempotency deletes idempotency keys older than 24 hours, every
// IdempotencySweep (10 minutes when 0), until ctx ends.
func (a *App) sweepIdempotency(ctx context.Context) {
	if a.idem == nil {
		return
	}
	every := a.opts.IdempotencySweep
	if every <= 0 {
		every = 10 * time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := a.idem.Sweep(ctx, a.now().Add(-sqldb.IdempotencyKeep)); err != nil && ctx.Err() == nil {
			a.logger.Warn("idempotency keys: sweep", "err", err)
		} else if n > 0 {
			a.logger.Info("idempotency keys: swept", "keys", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
