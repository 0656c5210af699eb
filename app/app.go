// Package app assembles the service: the storage, every area's service and
// operations, the RPC server and the background work (buffered VIEWED
// events, the NATS relay). cmd/commerce runs it; end-to-end tests build it
// over a test database.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/natsrelay"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
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
	// ReservationTTL is how long a cart's stock reservation holds (24h when 0).
	ReservationTTL time.Duration
	// StockSweep is how often expired reservations are released
	// (stock.SweepInterval(ReservationTTL) when 0: a quarter of the TTL, at
	// most 30s).
	StockSweep time.Duration
	// CartTTL is how long a cart lives after its last change (7 days when 0).
	CartTTL time.Duration
	// CartSweep is how often expired carts are expired (1 minute when 0).
	CartSweep time.Duration
	// PaymentProviders are payment providers by id, besides the built-in
	// manual one (a provider configured from flags, a test's own).
	PaymentProviders map[string]payment.Provider
}

// App is the assembled service.
type App struct {
	opts   Options
	db     *sqldb.DB
	srv    *rpc.Server
	viewed *event.Buffer
	logger *slog.Logger
	now    func() time.Time

	// Promotion is the promotion area, which the cart evaluates its
	// entries through (Promotion.Evaluate).
	Promotion *promotion.Service

	// Shipping is the shipping-method area, which the cart asks for the
	// methods available for its address (Shipping.Available, Shipping.Rate).
	Shipping *shipping.Service

	// Stock is the stock area, which the cart reserves through.
	Stock *stock.Service
	// Catalog is the catalog area, which the cart, promotions and taxes
	// read products and category membership through.
	Catalog *catalog.Service
	// Tax is the tax area, which the cart computes its taxes through
	// (Tax.Compute, Tax.ForCodes).
	Tax *tax.Service
	// Cart is the cart area.
	Cart *cart.Service
	// Payments are the payment providers the service is configured with
	// (manual and Options.PaymentProviders), by id.
	Payments *payment.Providers
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
	if err := a.srv.Registry().Register(a.viewed.Collector()); err != nil {
		return nil, fmt.Errorf("register the VIEWED buffer's metrics: %w", err)
	}
	for _, register := range areas {
		if err := register(a); err != nil {
			return nil, fmt.Errorf("assemble the areas: %w", err)
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
	if a.Stock != nil {
		wg.Go(func() { a.Stock.Run(ctx, a.opts.StockSweep, a.logger) })
	}
	if a.Cart != nil {
		wg.Go(func() { a.Cart.Run(ctx, a.opts.CartSweep, a.logger) })
	}
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
