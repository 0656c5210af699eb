package mail

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/order"
)

// Defaults of the configuration (docs/api.md section 22).
const (
	DefaultFrom       = "Shop <shop@localhost>"
	DefaultShopName   = "Shop"
	DefaultStorefront = "http://localhost:3000"
)

// ResetLimit is how many password_reset messages one address gets per
// ResetWindow (auth.requestPasswordReset sends no more).
const (
	ResetLimit  = 3
	ResetWindow = time.Hour
)

// Config configures the service.
type Config struct {
	// Sender sends the messages; nil is --mail none: nothing is queued
	// or sent (the operations still list what was).
	Sender Sender
	// From is the From address (DefaultFrom when "").
	From string
	// Shop is the shop's name and storefront address (defaults when "").
	Shop Shop
	// Renderer renders the templates (the built-in ones when nil).
	Renderer *Renderer
	// Sealer seals what stored messages must not show (a reset token).
	Sealer Sealer
	// Retry is the retry schedule: the waits before the second, third, ...
	// attempt (the webhooks' schedule, --mail-retry).
	Retry []time.Duration
	// Lease is how long a dispatcher holds a message it sends before
	// another may take it over (after a crash): 1 minute when 0, at least
	// 3s; an attempt's Timeout is at most the lease less 2s.
	Lease time.Duration
	// Poll is how often the follower and the dispatcher look for work
	// that no local commit announced (250ms when 0).
	Poll time.Duration
	// Timeout bounds an attempt (30s when 0).
	Timeout time.Duration
	// Workers is how many messages are sent at once (4 when 0).
	Workers int
}

// Orders reads orders (the order store).
type Orders interface {
	// Order returns an order. Errors: order_not_found.
	Order(ctx context.Context, id string) (*order.Order, error)
}

// Recipient is what a message needs of a customer.
type Recipient struct {
	ID, Email, FirstName string
	// Locale is the customer's locale ("" until docs/api.md section 27
	// gives customers one).
	Locale string
}

// Customers reads customers (the customer area, through app).
type Customers interface {
	// Recipient returns a customer. Errors: customer_not_found.
	Recipient(ctx context.Context, id string) (Recipient, error)
}

// Service holds the email use cases and the background sending.
type Service struct {
	store     Store
	orders    Orders
	customers Customers
	now       func() time.Time
	cfg       Config
	domain    string        // of From, for Message-IDs
	wake      chan struct{} // the follower queued messages
}

// NewService returns the service over the store. A From address that
// does not parse is an error.
func NewService(store Store, orders Orders, customers Customers, now func() time.Time, cfg Config) (*Service, error) {
	if now == nil {
		now = time.Now
	}
	if cfg.From == "" {
		cfg.From = DefaultFrom
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("--mail-from (or COMMERCE_MAIL_FROM) %q: %w", cfg.From, err)
	}
	if cfg.Shop.Name == "" {
		cfg.Shop.Name = DefaultShopName
	}
	if cfg.Shop.URL == "" {
		cfg.Shop.URL = DefaultStorefront
	}
	cfg.Shop.URL = strings.TrimRight(cfg.Shop.URL, "/")
	if cfg.Renderer == nil {
		if cfg.Renderer, err = NewRenderer(""); err != nil {
			return nil, err
		}
	}
	if cfg.Sealer == nil {
		return nil, fmt.Errorf("mail: no sealer")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = time.Minute
	}
	cfg.Lease = max(cfg.Lease, 3*time.Second)
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	// An attempt ends well within its lease, so that no message is sent
	// by two processes at once.
	cfg.Timeout = min(cfg.Timeout, cfg.Lease-2*time.Second)
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	_, domain, _ := strings.Cut(from.Address, "@")
	return &Service{store: store, orders: orders, customers: customers, now: now, cfg: cfg,
		domain: domain, wake: make(chan struct{}, 1)}, nil
}

// On reports whether mail is sent (--mail is not none).
func (s *Service) On() bool { return s.cfg.Sender != nil }

// Renderer returns the service's templates.
func (s *Service) Renderer() *Renderer { return s.cfg.Renderer }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// List lists messages (mail.list), in creation order.
func (s *Service) List(ctx context.Context, in ListInput) (commerce.List, error) {
	var p commerce.Problems
	page, err := in.Page()
	p.AddErr(err)
	if in.Status != "" && !slices.Contains(Statuses, in.Status) {
		p.Add("status", "must be one of %s", strings.Join(Statuses, ", "))
	}
	if in.Template != "" && !slices.Contains(Templates, in.Template) {
		p.Add("template", "must be one of %s", strings.Join(Templates, ", "))
	}
	if err := p.Err(); err != nil {
		return commerce.List{}, err
	}
	ms, err := s.store.Messages(ctx, Filter{To: commerce.EmailKey(in.To), Template: in.Template, Status: in.Status,
		Limit: page.Limit, Skip: page.Skip})
	if err != nil {
		return commerce.List{}, err
	}
	data := make([]any, len(ms))
	for i := range ms {
		data[i] = ms[i]
	}
	return commerce.List{Page: page, Data: data}, nil
}

// Customer returns every message of a customer (queued for their id or
// sent to their address), in creation order, for customer.export: the
// records mail.list shows, without their text.
func (s *Service) Customer(ctx context.Context, id, email string) ([]Mail, error) {
	const page = 500
	var out []Mail
	for skip := 0; ; skip += page {
		ms, err := s.store.Messages(ctx, Filter{Customer: &Owner{ID: id, Email: email}, Limit: page, Skip: skip})
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
		if len(ms) < page {
			return out, nil
		}
	}
}

// Info returns a message with its text and HTML (mail.info); a
// password-reset token in them stays Redacted.
func (s *Service) Info(ctx context.Context, in InfoInput) (Full, error) {
	if in.ID == "" {
		return Full{}, commerce.Invalid("id: required")
	}
	m, err := s.store.Message(ctx, in.ID)
	if err != nil {
		return Full{}, err
	}
	return m.Full, nil
}

// Resend queues a new message to the same address with the same content
// (mail.resend): a new id and Message-ID, the same template, event and
// sealed secret. An erased message has no address left: validation_error.
func (s *Service) Resend(ctx context.Context, in ResendInput) (Mail, error) {
	if in.ID == "" {
		return Mail{}, commerce.Invalid("id: required")
	}
	m, err := s.store.Message(ctx, in.ID)
	if err != nil {
		return Mail{}, err
	}
	if m.To == Erased {
		return Mail{}, commerce.Invalid("id: the message was erased (customer.remove): it has no address to send to")
	}
	n := m
	n.ID = commerce.NewID()
	n.MessageID = s.messageID(n.ID)
	n.Status, n.Attempts, n.LastError, n.SentAt = Pending, 0, nil, nil
	n.CreatedAt = s.clock()
	if err := s.store.Update(ctx, func(tx Tx) error { return tx.Queue(ctx, n) }); err != nil {
		return Mail{}, err
	}
	s.poke()
	return n.Mail, nil
}

// messageID returns the Message-ID (without <>) of the message with the
// id: unique to it, in the From address's domain.
func (s *Service) messageID(id string) string { return id + "@" + s.domain }

// poke wakes the dispatcher.
func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// message makes a PENDING message of a rendered template.
func (s *Service) message(id, to, template, locale, eventID, customerID string, r Rendered, at time.Time) Message {
	m := Message{Full: Full{Mail: Mail{ID: id, To: to, Template: template, Subject: r.Subject, Locale: locale,
		Status: Pending, CreatedAt: at}, Text: r.Text, HTML: r.HTML},
		MessageID: s.messageID(id), CustomerID: customerID}
	if eventID != "" {
		m.EventID = &eventID
	}
	return m
}

// Reset is a password-reset message to queue (QueueReset).
type Reset struct {
	EventID   string // the PASSWORD_RESET event
	Customer  Recipient
	Token     string
	ExpiresAt time.Time
}

// QueueReset queues the password_reset message in tx, the transaction
// that stores the token (customer.RequestPasswordReset). It queues
// nothing and reports false when the address had ResetLimit of them in
// the last ResetWindow. The token stands Redacted in the stored text and
// HTML and is sealed apart (Message.Secret), so that mail.info never
// shows a usable token; the sender puts it back.
func (s *Service) QueueReset(ctx context.Context, tx Tx, r Reset) (bool, error) {
	now := s.clock()
	n, err := tx.CountSince(ctx, r.Customer.Email, PasswordReset, now.Add(-ResetWindow))
	if err != nil {
		return false, err
	}
	if n >= ResetLimit {
		return false, nil
	}
	if !urlSafe(r.Token) {
		return false, commerce.Errorf(commerce.EInternal, "mail: a reset token must be URL-safe")
	}
	locale := s.cfg.Renderer.Locale(r.Customer.Locale)
	d := &Data{Shop: s.cfg.Shop, To: r.Customer.Email, Name: r.Customer.FirstName,
		Link: &LinkView{URL: s.cfg.Shop.URL + "/reset-password?token=" + r.Token, Expires: DateTime(r.ExpiresAt, locale)}}
	if err := s.queueSecret(ctx, tx, PasswordReset, locale, r.EventID, r.Customer.ID, d, r.Token); err != nil {
		return false, err
	}
	return true, nil
}

// Invite is a staff_invite message to queue (docs/api.md section 28).
type Invite struct {
	To string
	// URL is the link that sets the password, with Token in it.
	URL string
	// Token is the secret in URL (URL-safe: letters, digits, - and _):
	// it stands Redacted in the stored message, as a reset token does.
	Token     string
	ExpiresAt time.Time
	Locale    string
}

// QueueInvite queues a staff_invite message in tx (the transaction that
// stores the invitation), for the staff area of section 28. With mail
// off it queues nothing.
func (s *Service) QueueInvite(ctx context.Context, tx Tx, in Invite) error {
	if !s.On() {
		return nil
	}
	to := commerce.EmailKey(in.To)
	if to == "" || !urlSafe(in.Token) || !strings.Contains(in.URL, in.Token) {
		return commerce.Invalid("a staff invitation needs an address, a URL-safe token and a link holding it")
	}
	locale := s.cfg.Renderer.Locale(in.Locale)
	d := &Data{Shop: s.cfg.Shop, To: to, Link: &LinkView{URL: in.URL, Expires: DateTime(in.ExpiresAt, locale)}}
	return s.queueSecret(ctx, tx, StaffInvite, locale, "", "", d, in.Token)
}

// urlSafe reports whether s is a non-empty token of the base64url
// alphabet, which no template escapes.
func urlSafe(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return len(s) >= 16
}

// queueSecret renders a template whose data holds secret, and queues it
// with secret Redacted in its stored text and HTML and sealed apart.
func (s *Service) queueSecret(ctx context.Context, tx Tx, template, locale, eventID, customerID string, d *Data, secret string) error {
	out, err := s.cfg.Renderer.Render(template, locale, d)
	if err != nil {
		return err
	}
	out.Text = strings.ReplaceAll(out.Text, secret, Redacted)
	out.HTML = strings.ReplaceAll(out.HTML, secret, Redacted)
	m := s.message(commerce.NewID(), d.To, template, locale, eventID, customerID, out, s.clock())
	m.Secret = s.cfg.Sealer.Seal(secret)
	if err := tx.Queue(ctx, m); err != nil {
		return err
	}
	s.poke() // early; the dispatcher also polls
	return nil
}

// SendInvite is QueueInvite in a transaction of its own, for a caller
// without one.
func (s *Service) SendInvite(ctx context.Context, in Invite) error {
	return s.store.Update(ctx, func(tx Tx) error { return s.QueueInvite(ctx, tx, in) })
}
