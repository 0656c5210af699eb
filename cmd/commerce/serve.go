package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/mail"
)

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c config
	fs := newFlagSet("serve", stderr)
	fs.StringVar(&c.addr, "addr", "localhost:8080", "listen address (env COMMERCE_ADDR)")
	fs.StringVar(&c.nats, "nats", "", "NATS URL; when set, events are published to JetStream (env COMMERCE_NATS_URL)")
	c.storageFlags(fs)
	cartTTL := fs.Duration("cart-ttl", 7*24*time.Hour, "a cart expires this long after its last change (env COMMERCE_CART_TTL)")
	reservationTTL := fs.Duration("reservation-ttl", 24*time.Hour, "a stock reservation holds this long (env COMMERCE_RESERVATION_TTL)")
	accessTTL := fs.Duration("access-ttl", 15*time.Minute, "lifetime of the access tokens of auth.login, auth.refresh and /oauth/token (env COMMERCE_ACCESS_TTL)")
	refreshTTL := fs.Duration("refresh-ttl", 30*24*time.Hour, "lifetime of refresh tokens (env COMMERCE_REFRESH_TTL)")
	adminRequire2FA := fs.Bool("admin-require-2fa", false, "every staff member must have a second factor (TOTP) to use the admin app (env COMMERCE_ADMIN_REQUIRE_2FA)")
	webhookAllowPrivate := fs.Bool("webhook-allow-private", false, "let webhooks reach loopback, private, link-local and unspecified addresses (for tests and local receivers) (env COMMERCE_WEBHOOK_ALLOW_PRIVATE)")
	webhookRetry := fs.String("webhook-retry", "", "webhook retry schedule: comma-separated Go durations, one per retry (env COMMERCE_WEBHOOK_RETRY; default 5s,5m,30m,2h,5h,10h,10h)")
	webhookLease := fs.Duration("webhook-lease", time.Minute, "how long a webhook delivery being attempted is held by its process before another may take it over (after a crash) (env COMMERCE_WEBHOOK_LEASE)")
	stripeKey := fs.String("stripe-key", "", "Stripe secret API key; when set, the payment provider stripe is on (env COMMERCE_STRIPE_KEY, better than the flag, which other users may see)")
	stripeURL := fs.String("stripe-url", "", "Stripe API address instead of https://api.stripe.com, e.g. stripe-mock's (env COMMERCE_STRIPE_URL)")
	stripeWebhookSecret := fs.String("stripe-webhook-secret", "", "signing secret (whsec_...) of the Stripe webhook endpoint; when set, POST /webhooks/stripe is served (env COMMERCE_STRIPE_WEBHOOK_SECRET)")
	var backups backupFlags
	fs.DurationVar(&backups.every, "backup-every", 0, "take a backup of the SQLite database this often, e.g. 1h (env COMMERCE_BACKUP_EVERY; default 0: off)")
	fs.StringVar(&backups.dir, "backup-dir", "", "folder of the scheduled backups (env COMMERCE_BACKUP_DIR; default: backups beside the database file)")
	fs.IntVar(&backups.keep, "backup-keep", 24, "how many scheduled backups to keep, the newest (env COMMERCE_BACKUP_KEEP)")
	returnWindow := fs.Duration("return-window", 720*time.Hour, "a customer may ask for a return this long after the order's last delivery (env COMMERCE_RETURN_WINDOW)")
	mailSpec := fs.String("mail", "", "where email goes: file:DIR (.eml files), smtp://[user:pass@]host:port (STARTTLS when offered; ?tls=required refuses to send in the clear), smtps://... (implicit TLS) or none (env COMMERCE_MAIL; default file: a folder mail beside the SQLite file, ./data/mail with PostgreSQL)")
	mailFrom := fs.String("mail-from", mail.DefaultFrom, "the From address of email (env COMMERCE_MAIL_FROM)")
	shopName := fs.String("shop-name", mail.DefaultShopName, "the shop's name, in email (env COMMERCE_SHOP_NAME)")
	storefrontURL := fs.String("storefront-url", mail.DefaultStorefront, "the storefront's address, for links in email (env COMMERCE_STOREFRONT_URL)")
	mailTemplates := fs.String("mail-templates", "", "a folder of email templates (LOCALE/NAME.txt, LOCALE/NAME.html) overriding the built-in ones file by file (env COMMERCE_MAIL_TEMPLATES)")
	mailRetry := fs.String("mail-retry", "", "email retry schedule: comma-separated Go durations, one per retry (env COMMERCE_MAIL_RETRY; default 5s,5m,30m,2h,5h,10h,10h)")
	mailLease := fs.Duration("mail-lease", time.Minute, "how long a message being sent is held by its process before another may take it over (after a crash); an attempt may take 2s less (env COMMERCE_MAIL_LEASE)")
	localesFlag := fs.String("locales", commerce.DefaultLocale, "the store's languages, comma-separated, the default first, e.g. en,es (env COMMERCE_LOCALES)")
	var mf mediaFlags
	mf.register(fs)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	locales, err := commerce.ParseLocales(*localesFlag)
	if err != nil {
		return fmt.Errorf("--locales (or COMMERCE_LOCALES): %w", err)
	}
	mediaBlobs, mediaWidths, mediaWhere, err := mf.build()
	if err != nil {
		return err
	}
	schedule, err := backups.schedule(&c)
	if err != nil {
		return err
	}
	if *returnWindow <= 0 {
		return fmt.Errorf("--return-window must be positive")
	}
	retry, err := parseRetry(*webhookRetry)
	if err != nil {
		return err
	}
	mailRetries, err := parseRetry(*mailRetry)
	if err != nil {
		return fmt.Errorf("--mail-retry (or COMMERCE_MAIL_RETRY) %q: want comma-separated positive durations such as 5s,5m,30m", *mailRetry)
	}
	mailSender, mailWhere, err := c.mailSender(*mailSpec)
	if err != nil {
		return err
	}
	if *cartTTL <= 0 || *reservationTTL <= 0 {
		return fmt.Errorf("--cart-ttl and --reservation-ttl must be positive")
	}
	if *accessTTL <= 0 || *refreshTTL <= 0 {
		return fmt.Errorf("--access-ttl and --refresh-ttl must be positive")
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	secret, err := c.secret(true)
	if err != nil {
		return err
	}
	keys, err := auth.New(secret)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	db, err := c.openDB(ctx, time.Now)
	if err != nil {
		return err
	}
	defer db.Close()

	a, err := app.New(app.Options{DB: db, Keys: keys, Logger: logger, NATSURL: c.nats,
		CartTTL: *cartTTL, ReservationTTL: *reservationTTL, AccessTTL: *accessTTL, RefreshTTL: *refreshTTL,
		WebhookKey: secret, WebhookAllowPrivate: *webhookAllowPrivate, WebhookRetry: retry, WebhookLease: *webhookLease,
		StripeKey: *stripeKey, StripeURL: *stripeURL, StripeWebhookSecret: *stripeWebhookSecret,
		ReturnWindow: *returnWindow,
		MailSender:   mailSender, MailFrom: *mailFrom, ShopName: *shopName, StorefrontURL: *storefrontURL,
		MailTemplates: *mailTemplates, MailRetry: mailRetries, MailLease: *mailLease, Locales: locales,
		MediaBlobs: mediaBlobs, MediaMaxBytes: mf.maxBytes, MediaWidths: mediaWidths, MediaBaseURL: mf.baseURL,
		AdminRequire2FA: *adminRequire2FA})
	if err != nil {
		return fmt.Errorf("assemble the service: %w", err)
	}

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen on --addr %s: %w", c.addr, err)
	}
	httpSrv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}

	// Background work lives until the HTTP server has drained.
	bg, stopBG := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { a.Run(bg) })
	if schedule != nil {
		schedule.DB, schedule.Logger = db, logger
		wg.Go(func() { schedule.Run(bg) })
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	// The pid lets a script tell its own server's ready line from another
	// one's (README's walk-through waits for it).
	logger.Info("commerce ready", "addr", ln.Addr().String(), "pid", os.Getpid(), "db", redact(c.db), "nats", c.nats != "",
		"stripe", *stripeKey != "", "stripeWebhook", *stripeWebhookSecret != "", "mail", mailWhere, "media", mediaWhere)

	select {
	case err = <-serveErr:
	case <-ctx.Done():
		logger.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = httpSrv.Shutdown(sctx) // finishes the requests in flight
		cancel()
	}
	stopBG()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("stopped")
	return nil
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	var c config
	fs := newFlagSet("migrate", stderr)
	c.storageFlags(fs)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	db, err := c.openDB(ctx, time.Now)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "migrations applied")
	if err := db.Close(); err != nil {
		return fmt.Errorf("close the database: %w", err)
	}
	return nil
}

// parseRetry parses --webhook-retry: comma-separated positive Go
// durations (nil for the default schedule when empty).
func parseRetry(s string) ([]time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []time.Duration
	for part := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("--webhook-retry (or COMMERCE_WEBHOOK_RETRY) %q: want comma-separated positive durations such as 5s,5m,30m", s)
		}
		out = append(out, d)
	}
	return out, nil
}
