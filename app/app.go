// Package app assembles the service: the storage, every area's service and
// operations, the RPC server and the background work (buffered VIEWED
// events, the NATS relay). cmd/commerce runs it; end-to-end tests build it
// over a test database.
package app

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"commerce/auth"
	"commerce/event"
	"commerce/natsrelay"
	"commerce/rpc"
	"commerce/sqldb"
)

// Options configure the service.
type Options struct {
	DB     *sqldb.DB
	Keys   *auth.Keys
	Logger *slog.Logger
	// NATSURL, when set, relays the event log to JetStream.
	NATSURL string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// ViewedFlush is how often buffered VIEWED events are written (1s when 0).
	ViewedFlush time.Duration
}

// App is the assembled service.
type App struct {
	opts   Options
	db     *sqldb.DB
	srv    *rpc.Server
	viewed *event.Buffer
	logger *slog.Logger
	now    func() time.Time
}

// New builds the service and registers every area's operations.
func New(opts Options) (*App, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ViewedFlush == 0 {
		opts.ViewedFlush = time.Second
	}
	a := &App{opts: opts, db: opts.DB, logger: opts.Logger, now: opts.Now}
	a.srv = rpc.NewServer(opts.Keys, opts.Logger, opts.DB.Ping)
	a.viewed = event.NewBuffer(opts.DB, opts.Logger, opts.ViewedFlush, 512)
	for _, register := range areas {
		if err := register(a); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Handler serves the RPC interface, /healthz, /readyz and /metrics.
func (a *App) Handler() http.Handler { return a.srv }

// Run does the background work until ctx ends, then flushes what is
// buffered and returns.
func (a *App) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { a.viewed.Run(ctx) })
	if a.opts.NATSURL != "" {
		relay := natsrelay.New(a.db, a.opts.NATSURL, a.logger)
		wg.Go(func() {
			if err := relay.Run(ctx); err != nil {
				a.logger.Error("event relay stopped", "err", err)
			}
		})
	}
	wg.Wait()
}
