// Package mail is the email area (docs/api.md section 22): the messages
// the shop sends its customers, rendered from templates (built in,
// overridable file by file, per locale), queued in the database and sent
// by a dispatcher through a Sender (the adapters mail/smtp and mail/file),
// retried on a schedule, at least once.
//
// How a message is queued. Most messages are the consequence of an event
// (ORDERS CREATE: order_confirmation): the event is written to the outbox
// in the transaction of the change, and the outbox follower (one process
// at a time, like the webhook follower) turns it into its message, with an
// id derived from the event and the template, so that following the same
// event twice (after a crash) queues it once. A message whose content is
// not in any event (password_reset: the token exists only in the email) is
// queued by the causing transaction itself (Service.QueueReset); so is one
// that other areas send without an event (staff_invite: Service.Queue).
// Either way a committed change has its message stored, and a crash loses
// none.
package mail

import (
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
)

// Statuses of a message.
const (
	Pending   = "PENDING"
	Sent      = "SENT"
	Failed    = "FAILED"
	Cancelled = "CANCELLED"
)

// Statuses lists the statuses (mail.list's status filter).
var Statuses = []string{Pending, Sent, Failed, Cancelled}

// Event types on event.Mails (payload {id, template, to}).
const (
	EventSent   = "SENT"
	EventFailed = "FAILED"
)

// The templates.
const (
	OrderConfirmation = "order_confirmation"
	OrderShipped      = "order_shipped"
	OrderRefunded     = "order_refunded"
	OrderCancelled    = "order_cancelled"
	ReturnUpdate      = "return_update"
	PasswordReset     = "password_reset"
	Welcome           = "welcome"
	StaffInvite       = "staff_invite"
)

// Templates lists every template, in the order of docs/api.md section 22.
var Templates = []string{OrderConfirmation, OrderShipped, OrderRefunded, OrderCancelled, ReturnUpdate,
	PasswordReset, Welcome, StaffInvite}

// Erased replaces erased personal data (customer.remove).
const Erased = "[erased]"

// Redacted stands in the stored text and HTML of a message for what only
// the message itself may hold (a password-reset token, sealed apart):
// mail.info shows it, the sender replaces it.
const Redacted = "[redacted]"

// Mail is a message as mail.list shows it (no body).
type Mail struct {
	ID        string     `json:"id"`
	To        string     `json:"to"`
	Template  string     `json:"template" openapi:"enum=order_confirmation|order_shipped|order_refunded|order_cancelled|return_update|password_reset|welcome|staff_invite"`
	Subject   string     `json:"subject"`
	Locale    string     `json:"locale"`
	Status    string     `json:"status" openapi:"enum=PENDING|SENT|FAILED|CANCELLED"`
	Attempts  int        `json:"attempts"`
	LastError *string    `json:"lastError"`
	EventID   *string    `json:"eventId"`
	CreatedAt time.Time  `json:"createdAt"`
	SentAt    *time.Time `json:"sentAt"`
}

// Full is a message as mail.info shows it: with its text and HTML (a
// password-reset token in them Redacted).
type Full struct {
	Mail
	Text string `json:"text"`
	HTML string `json:"html"`
}

// Message is a stored message with what sending it needs.
type Message struct {
	Full
	// MessageID is the Message-ID header's value (without <>), fixed at
	// queueing.
	MessageID string `json:"-"`
	// CustomerID is the customer the message is about ("" for none), so
	// that customer.remove erases it.
	CustomerID string `json:"-"`
	// Secret is what stands Redacted in Text and HTML, sealed (Sealer);
	// "" when nothing does.
	Secret string `json:"-"`
	// NextAttemptAt is when a PENDING message is due.
	NextAttemptAt *time.Time `json:"-"`
}

// Sealer encrypts what must not be stored readable (webhook.Sealer is
// one).
type Sealer interface {
	Seal(plain string) string
	Open(sealed string) (string, error)
}

// NotFound is mail_not_found with the id as data.
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EMailNotFound, Data: id, Message: "no mail " + id}
}

// EventMessageID returns the id of the message an event causes with a
// template: derived from both (128 bits of a SHA-256), so that the outbox
// follower, following an event again after a crash, queues the same
// message once.
func EventMessageID(eventID, template string) string {
	h := sha256.Sum256([]byte(eventID + "/" + template))
	return base64.RawURLEncoding.EncodeToString(h[:16])
}

// BuiltinLocales are the locales of the built-in templates (a folder of
// --mail-templates may add others: Renderer.Locales).
var BuiltinLocales = []string{"en", "es"}

// DefaultLocale is the locale of a message when nothing better is known:
// its templates are the fallback of every other locale's.
const DefaultLocale = "en"

// ResolveLocale returns the first of candidates (most specific first: the
// order's, the cart's, the customer's) among available, else
// DefaultLocale. A candidate "es-MX" also matches "es". docs/api.md
// section 27 adds locale to customers, carts and orders; every message
// resolves its locale through Renderer.Locale, which calls this.
func ResolveLocale(available []string, candidates ...string) string {
	for _, c := range candidates {
		if slices.Contains(available, c) {
			return c
		}
		if i := strings.IndexAny(c, "-_"); i > 0 && slices.Contains(available, c[:i]) {
			return c[:i]
		}
	}
	return DefaultLocale
}
