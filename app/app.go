// Package app assembles the service: the storage, every area's service and
// operations, the RPC server and the background work (buffered VIEWED
// events, the NATS relay). cmd/commerce runs it; end-to-end tests build it
// over a test database.
package app

import (
	"context"
	"fmt"
	"github.com/commercekit/commerce/transfer"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/password"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/natsrelay"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
	"github.com/commercekit/commerce/webhook"
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
	// CustomerSweep is how often expired refresh and reset tokens and
	// stale login failures are deleted (customer.DefaultSweep when 0).
	CustomerSweep time.Duration
	// PaymentProviders are payment providers by id, besides the built-in
	// manual one (a provider configured from flags, a test's own).
	PaymentProviders map[string]payment.Provider
	// StaffParams, when set, are the argon2id parameters of staff
	// passwords (tests lower them; password.Default when nil).
	StaffParams *password.Params
	// AdminRequire2FA is --admin-require-2fa: every staff member must
	// have a second factor (TOTP) to use the admin app.
	AdminRequire2FA bool
	// AccessTTL is the lifetime of the access tokens of auth.login,
	// auth.refresh and /oauth/token (15 minutes when 0).
	AccessTTL time.Duration
	// RefreshTTL is the lifetime of refresh tokens (30 days when 0).
	RefreshTTL time.Duration

	// WebhookKey is the secret the key sealing webhook signing secrets at
	// rest is derived from (the JWT secret; a random one per process when
	// empty).
	WebhookKey []byte
	// WebhookAllowPrivate lets webhooks reach private addresses.
	WebhookAllowPrivate bool
	// WebhookRetry is the retry schedule (webhook.DefaultRetry when nil).
	WebhookRetry []time.Duration
	// WebhookLease is how long a delivery being attempted is leased to
	// its dispatcher (1 minute when 0).
	WebhookLease time.Duration
	// WebhookTimeout bounds an attempt (10s when 0).
	WebhookTimeout time.Duration
	// IdempotencySweep is how often idempotency keys older than 24 hours
	// are deleted (10 minutes when 0).
	IdempotencySweep time.Duration
	// OrderRecovery is how often unfinished payment operations of orders
	// are looked for (default 30s).
	OrderRecovery time.Duration
	// StripeKey, when set, adds the payment provider "stripe" with this
	// secret API key (never logged); StripeURL replaces Stripe's API
	// address (stripe-mock in tests).
	StripeKey, StripeURL string
	// StripeWebhookSecret, when set, serves POST /webhooks/stripe, whose
	// events are verified with it.
	StripeWebhookSecret string
	// ReturnWindow is how long after an order's last delivery its
	// customer may ask for a return (order.DefaultReturnWindow when 0).
	ReturnWindow time.Duration

	// MailSender sends email (--mail: mail/file, mail/smtp); nil is
	// --mail none.
	MailSender mail.Sender
	// MailFrom, ShopName and StorefrontURL are --mail-from, --shop-name
	// and --storefront-url (the mail area's defaults when "").
	MailFrom, ShopName, StorefrontURL string
	// MailTemplates is --mail-templates: a folder overriding the built-in
	// templates file by file ("" for none).
	MailTemplates string
	// MailRetry is the retry schedule of email (webhook.DefaultRetry when
	// nil).
	MailRetry []time.Duration
	// MailLease is how long a message being sent is held by its process
	// (1 minute when 0); MailPoll how often the queue is looked at when
	// nothing announced work (250ms when 0).
	MailLease, MailPoll time.Duration

	// Locales are the store's languages, the default first (--locales;
	// en alone when nil).
	Locales commerce.Locales
	// MediaBlobs keeps the product images (--media-store: media/fs,
	// media/s3); nil keeps them in memory.
	MediaBlobs media.Blobs
	// MediaMaxBytes is --media-max-bytes (media.DefaultMaxBytes when 0).
	MediaMaxBytes int64
	// MediaWidths is --media-widths (media.DefaultWidths when nil).
	MediaWidths []int
	// MediaBaseURL is --media-base-url: put before /media/<id>.<ext> in
	// an image's url ("" for the path alone).
	MediaBaseURL string
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
	// PriceLists is the price lists area (docs/api.md section 26), which
	// the catalog's reads and the cart price with.
	PriceLists *pricelist.Service
	// Tax is the tax area, which the cart computes its taxes through
	// (Tax.Compute, Tax.ForCodes).
	Tax *tax.Service
	// Cart is the cart area.
	Cart *cart.Service
	// Order is the orders area, which checkout places orders through.
	Order *order.Service
	// Transfer is the catalog's import and export (docs/api.md section 25).
	Transfer *transfer.Service
	// Payments are the payment providers the service is configured with
	// (manual and Options.PaymentProviders), by id.
	Payments *payment.Providers

	// Staff is the admin app's staff accounts and sessions; admin is the
	// admin app, served under /admin/ (admin.go).
	Staff *staff.Service
	admin http.Handler
	// Customer is the customer area: accounts, sign-in, OAuth clients.
	Customer *customer.Service
	// Webhook is the webhook area.
	Webhook *webhook.Service
	// Mail is the email area.
	Mail *mail.Service
	// Media is the product images area.
	Media *media.Service
	idem  *sqldb.IdempotencyStore
	// Notifications applies the payment providers' webhook events (the
	// order area sets it); POST /webhooks/stripe answers 503 while it is
	// nil.
	Notifications payment.Notifications
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
	a.serveWebhooks()
	if err := assembleAdmin(a); err != nil {
		return nil, fmt.Errorf("assemble the admin app: %w", err)
	}
	a.srv.Document() // /openapi.json, built once every operation is registered
	return a, nil
}

// Handler serves the RPC interface, /healthz, /readyz, /metrics,
// POST /webhooks/stripe and the admin app under /admin/.
func (a *App) Handler() http.Handler {
	var api http.Handler = a.srv
	if a.admin == nil {
		return api
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin" || strings.HasPrefix(r.URL.Path, "/admin/") {
			a.admin.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// Run does the background work until ctx ends, then flushes what is
// buffered and returns.
func (a *App) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { a.viewed.Run(ctx) })
	if a.Stock != nil {
		wg.Go(func() { a.Stock.Run(ctx, a.opts.StockSweep, a.logger) })
	}
	if a.Order != nil {
		wg.Go(func() { a.Order.Run(ctx, a.opts.OrderRecovery, a.logger) })
	}
	if a.Cart != nil {
		wg.Go(func() { a.Cart.Run(ctx, a.opts.CartSweep, a.logger) })
	}
	if a.Customer != nil {
		wg.Go(func() { a.Customer.Run(ctx, a.opts.CustomerSweep, a.logger) })
	}
	wg.Go(func() { a.runWebhooks(ctx) })
	wg.Go(func() { a.runMail(ctx) })
	if a.Transfer != nil {
		wg.Go(func() { a.Transfer.Run(ctx) })
	}
	wg.Go(func() { a.sweepIdempotency(ctx) })
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
