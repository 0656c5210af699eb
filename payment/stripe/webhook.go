package stripe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
)

// WebhookPath is where the service receives Stripe's events.
const WebhookPath = "/webhooks/stripe"

// Tolerance is how far the time a Stripe-Signature was made may be from
// the service's clock.
const Tolerance = 5 * time.Minute

// MaxWebhookBody is the largest event accepted (413 above).
const MaxWebhookBody = 1 << 20

// Webhook is the handler of POST /webhooks/stripe. Anyone may call it
// (no bearer token): what proves an event comes from Stripe is its
// Stripe-Signature, an HMAC-SHA256 keyed with the endpoint's signing
// secret. It applies the payment events (payment_intent.succeeded,
// .canceled, .payment_failed, charge.refunded) through Notifications and
// acknowledges every verified event with 200 {"received": true}, whatever
// its api_version; other event types are acknowledged and ignored.
//
// Answers: 405 for another method; 413 for a body over MaxWebhookBody;
// 400 validation_error for a missing, malformed, wrong or stale signature
// (or a signed body that is not an event); 503 unavailable when there is
// no secret, or no Notifications (checked after the signature); 500 internal_error (503 unavailable when
// the storage is) when applying fails, so that Stripe delivers the event
// again.
type Webhook struct {
	// Secret is the endpoint's signing secret (whsec_...), used whole as
	// the HMAC key. Empty: every request is 503 (an empty key proves
	// nothing).
	Secret string
	// Notifications returns where events are applied; nil (or a nil
	// result) is 503 unavailable.
	Notifications func() payment.Notifications
	// Logger logs applied events and failures (never a body or the
	// secret); nil: nothing is logged.
	Logger *slog.Logger
	// Now is the clock the signature's time is checked against (time.Now
	// when nil).
	Now func() time.Time
}

// ServeHTTP implements http.Handler (Serve).
func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.Serve(w, r) }

// Fail answers 500 internal_error (after a panic of Serve) and returns the
// status: with rpc.Server.HandlePath, the server counts and logs the
// requests of the path as it does its operations'.
func (h *Webhook) Fail(w http.ResponseWriter, _ *http.Request) int {
	return writeError(w, http.StatusInternalServerError, commerce.EInternal, nil)
}

// Serve answers the request and returns the HTTP status it answered with.
// A verified event is logged with what applying it did: "applied",
// "duplicate" (its id was seen before: nothing changed) or "ignored"
// (nothing to change).
func (h *Webhook) Serve(w http.ResponseWriter, r *http.Request) int {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	logger := h.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return writeError(w, http.StatusMethodNotAllowed, commerce.EMethodNotAllowed, nil)
	}
	if h.Secret == "" {
		logger.Error("stripe webhook: no signing secret")
		return writeError(w, http.StatusServiceUnavailable, commerce.EUnavailable, nil)
	}
	if r.ContentLength > MaxWebhookBody {
		return writeError(w, http.StatusRequestEntityTooLarge, commerce.ERequestTooLarge, nil)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxWebhookBody+1))
	if err != nil {
		return writeError(w, http.StatusBadRequest, commerce.EValidation, []string{"body: could not be read"})
	}
	if len(body) > MaxWebhookBody {
		return writeError(w, http.StatusRequestEntityTooLarge, commerce.ERequestTooLarge, nil)
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	if err := Verify(body, r.Header.Get("Stripe-Signature"), h.Secret, now()); err != nil {
		logger.Warn("stripe webhook: refused", "err", err)
		return writeError(w, http.StatusBadRequest, commerce.EValidation, []string{"Stripe-Signature: " + err.Error()})
	}
	var notes payment.Notifications
	if h.Notifications != nil {
		notes = h.Notifications()
	}
	if notes == nil {
		logger.Error("stripe webhook: nowhere to apply events")
		return writeError(w, http.StatusServiceUnavailable, commerce.EUnavailable, nil)
	}
	n, ok, err := parseEvent(body)
	if err != nil {
		logger.Warn("stripe webhook: a signed body that is not an event", "err", err)
		return writeError(w, http.StatusBadRequest, commerce.EValidation, []string{"body: " + err.Error()})
	}
	if ok {
		outcome, err := notes.Apply(r.Context(), n)
		if err != nil {
			code, status := commerce.EInternal, http.StatusInternalServerError
			if commerce.ErrorCode(err) == commerce.EUnavailable {
				code, status = commerce.EUnavailable, http.StatusServiceUnavailable
			}
			logger.Error("stripe webhook: apply", "event", n.EventID, "kind", n.Kind, "reference", n.Reference, "err", err)
			return writeError(w, status, code, nil)
		}
		switch outcome {
		case payment.Applied:
			logger.Info("stripe webhook: applied", "event", n.EventID, "kind", n.Kind, "reference", n.Reference, "amount", n.Amount)
		case payment.Duplicate:
			logger.Info("stripe webhook: duplicate event, ignored", "event", n.EventID, "kind", n.Kind, "reference", n.Reference)
		default:
			logger.Info("stripe webhook: nothing to change, ignored", "event", n.EventID, "kind", n.Kind, "reference", n.Reference)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"received":true}`))
	return http.StatusOK
}

// writeError answers the error and returns its status.
func writeError(w http.ResponseWriter, status int, code string, problems []string) int {
	b, _ := json.Marshal(struct {
		OK    bool     `json:"ok"`
		Error string   `json:"error"`
		Data  []string `json:"data,omitempty"`
	}{Error: code, Data: problems})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	return status
}

// Signature errors.
var (
	ErrNoSignature    = errors.New("missing")
	ErrBadSignature   = errors.New("no v1 signature matches the body")
	ErrStaleSignature = errors.New("the timestamp is more than 5 minutes from now")
)

// Verify checks a Stripe-Signature header (t=<unix>,v1=<hex>[,v1=...],
// other schemes ignored) of payload: one v1 must be the hex HMAC-SHA256
// of "<t>.<payload>" keyed with secret, and t within Tolerance of now.
func Verify(payload []byte, header, secret string, now time.Time) error {
	if strings.TrimSpace(header) == "" {
		return ErrNoSignature
	}
	var (
		ts      int64
		haveTS  bool
		signeds [][]byte
	)
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("malformed timestamp")
			}
			ts, haveTS = n, true
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil && len(sig) == sha256.Size {
				signeds = append(signeds, sig)
			}
		}
	}
	if !haveTS {
		return errors.New("no timestamp")
	}
	if len(signeds) == 0 {
		return errors.New("no v1 signature")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte("."))
	mac.Write(payload)
	want := mac.Sum(nil)
	match := false
	for _, sig := range signeds {
		if hmac.Equal(sig, want) {
			match = true
		}
	}
	if !match {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return ErrStaleSignature
	}
	return nil
}

// event is what the webhook reads of a Stripe event, whatever its
// api_version.
type event struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	Type   string `json:"type"`
	Data   struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// parseEvent reads a verified event: the notification it makes and
// whether it makes one (false for the event types the service does not
// apply, and for a refund of a charge without a PaymentIntent).
func parseEvent(body []byte) (payment.Notification, bool, error) {
	var e event
	if err := json.Unmarshal(body, &e); err != nil {
		return payment.Notification{}, false, errors.New("not a JSON event")
	}
	if e.ID == "" || e.Type == "" || (e.Object != "" && e.Object != "event") {
		return payment.Notification{}, false, errors.New("not an event (id and type are required)")
	}
	n := payment.Notification{EventID: e.ID, Provider: ID}
	switch e.Type {
	case "payment_intent.succeeded", "payment_intent.canceled", "payment_intent.payment_failed":
		var pi struct {
			ID             string `json:"id"`
			AmountReceived int64  `json:"amount_received"`
			Currency       string `json:"currency"`
		}
		if err := json.Unmarshal(e.Data.Object, &pi); err != nil || pi.ID == "" {
			return payment.Notification{}, false, fmt.Errorf("%s: data.object is not a PaymentIntent", e.Type)
		}
		n.Reference = pi.ID
		switch e.Type {
		case "payment_intent.succeeded":
			n.Kind, n.Amount = payment.NotifyCaptured, fromStripe(pi.AmountReceived, pi.Currency)
		case "payment_intent.canceled":
			n.Kind = payment.NotifyVoided
		default:
			n.Kind = payment.NotifyFailed
		}
		return n, true, nil
	case "charge.refunded":
		var ch struct {
			ID             string          `json:"id"`
			AmountRefunded int64           `json:"amount_refunded"`
			Currency       string          `json:"currency"`
			PaymentIntent  json.RawMessage `json:"payment_intent"`
		}
		if err := json.Unmarshal(e.Data.Object, &ch); err != nil || ch.ID == "" {
			return payment.Notification{}, false, fmt.Errorf("%s: data.object is not a Charge", e.Type)
		}
		pi, err := idOf(ch.PaymentIntent)
		if err != nil {
			return payment.Notification{}, false, fmt.Errorf("%s: payment_intent: %w", e.Type, err)
		}
		if pi == "" {
			return payment.Notification{}, false, nil
		}
		n.Kind, n.Reference, n.Amount = payment.NotifyRefunded, pi, fromStripe(ch.AmountRefunded, ch.Currency)
		return n, true, nil
	}
	return payment.Notification{}, false, nil
}

// idOf reads a reference Stripe gives as an id or an expanded object.
func idOf(raw json.RawMessage) (string, error) {
	if commerce.IsNull(raw) {
		return "", nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err == nil {
		return id, nil
	}
	var obj struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", errors.New("neither an id nor an object")
	}
	return obj.ID, nil
}

var _ http.Handler = (*Webhook)(nil)
