// Package stripe is the payment provider "stripe": card payments through
// Stripe's PaymentIntents with manual capture, using the official SDK
// (github.com/stripe/stripe-go), and the handler of Stripe's webhook
// (Webhook).
//
// Authorize creates and confirms a PaymentIntent (capture_method manual)
// for the amount; Capture, Void and Refund call Stripe's capture, cancel
// and refund of it. Every POST carries the request's idempotency key as
// Stripe's Idempotency-Key, so a call repeated with the same key is one
// operation at Stripe. Each Provider has its own SDK client (key, address,
// HTTP client); the SDK's global key is never used.
package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	sdk "github.com/stripe/stripe-go/v85"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
)

// ID is the provider's id, the paymentId clients name it by.
const ID = "stripe"

// DefaultTimeout is how long one call to Stripe may take when
// Options.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Options configure a Provider.
type Options struct {
	// Key is the secret API key (sk_...). Required.
	Key string
	// URL replaces Stripe's API address (https://api.stripe.com), for
	// stripe-mock or a test server.
	URL string
	// Timeout bounds one call to Stripe (DefaultTimeout when 0).
	Timeout time.Duration
	// Retries is how many times the SDK retries a call that failed in a
	// way Stripe says may be retried (a network error, a 409, a 5xx), with
	// the same idempotency key. 0: no retry (the caller decides).
	Retries int64
	// HTTPClient, when set, is used instead of one with Timeout.
	HTTPClient *http.Client
}

// Provider is the Stripe provider.
type Provider struct {
	client *sdk.Client
}

var _ payment.Provider = (*Provider)(nil)

// New returns the provider configured by o.
func New(o Options) (*Provider, error) {
	if strings.TrimSpace(o.Key) == "" {
		return nil, errors.New("stripe: an API key is required")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: o.Timeout}
	}
	cfg := &sdk.BackendConfig{
		HTTPClient:        hc,
		MaxNetworkRetries: sdk.Int64(max(o.Retries, 0)),
		// The SDK logs nothing: errors are returned and logged by the
		// service, which never logs the key.
		LeveledLogger: &sdk.LeveledLogger{Level: sdk.LevelNull},
	}
	if o.URL != "" {
		u := strings.TrimRight(o.URL, "/")
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("stripe: the API URL %q must start with http:// or https://", o.URL)
		}
		cfg.URL = sdk.String(u)
	}
	backends := &sdk.Backends{
		API:         sdk.GetBackendWithConfig(sdk.APIBackend, cfg),
		Connect:     sdk.GetBackendWithConfig(sdk.ConnectBackend, cfg),
		Uploads:     sdk.GetBackendWithConfig(sdk.UploadsBackend, cfg),
		MeterEvents: sdk.GetBackendWithConfig(sdk.MeterEventsBackend, cfg),
	}
	return &Provider{client: sdk.NewClient(o.Key, sdk.WithBackends(backends))}, nil
}

// Data is the paymentData the provider takes: the id of a PaymentMethod
// the client created with Stripe.js (pm_...). It is also what the
// provider keeps of it.
type Data struct {
	PaymentMethod string `json:"paymentMethod"`
}

var paymentMethodID = regexp.MustCompile(`^pm_[A-Za-z0-9_]{1,250}$`)

// parseData checks the client's paymentData.
func parseData(raw json.RawMessage) (Data, error) {
	const path = "paymentData.paymentMethod"
	if commerce.IsNull(raw) {
		return Data{}, commerce.Invalid(path + ": required (the id of a Stripe PaymentMethod, pm_...)")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Data{}, commerce.Invalid("paymentData: must be an object {paymentMethod: \"pm_...\"}")
	}
	var p commerce.Problems
	for name := range fields {
		if name != "paymentMethod" {
			p.Add("paymentData."+name, "unknown field")
		}
	}
	var d Data
	switch v, ok := fields["paymentMethod"]; {
	case !ok || commerce.IsNull(v):
		p.Add(path, "required (the id of a Stripe PaymentMethod, pm_...)")
	case json.Unmarshal(v, &d.PaymentMethod) != nil:
		p.Add(path, "must be a string")
	case !paymentMethodID.MatchString(d.PaymentMethod):
		p.Add(path, "must be the id of a Stripe PaymentMethod (pm_...)")
	}
	if err := p.Err(); err != nil {
		return Data{}, err
	}
	return d, nil
}

// Authorize creates and confirms a PaymentIntent with manual capture for
// r.Amount in r.Currency (lower case), paid with the paymentData's
// paymentMethod, with metadata orderNumber (when known) and cartId.
// Amounts are converted to Stripe's units (see toStripe), in Capture and
// Refund too.
// Errors: validation_error naming paymentData.paymentMethod; a *Decline
// for a refused card (Stripe's code, card_declined...), an amount Stripe
// cannot take exactly (EAmountNotSupported) or a failure of Stripe
// (provider_error).
func (p *Provider) Authorize(ctx context.Context, r payment.AuthorizeRequest) (payment.Authorization, error) {
	d, err := parseData(r.Data)
	if err != nil {
		return payment.Authorization{}, err
	}
	amount, err := toStripe(r.Amount, r.Currency)
	if err != nil {
		return payment.Authorization{}, err
	}
	params := &sdk.PaymentIntentCreateParams{
		Amount:        sdk.Int64(amount),
		Currency:      sdk.String(strings.ToLower(r.Currency)),
		CaptureMethod: sdk.String(string(sdk.PaymentIntentCaptureMethodManual)),
		Confirm:       sdk.Bool(true),
		PaymentMethod: sdk.String(d.PaymentMethod),
		// No redirect: a payment method that needs one (and so a
		// return_url) is refused instead.
		AutomaticPaymentMethods: &sdk.PaymentIntentCreateAutomaticPaymentMethodsParams{
			Enabled: sdk.Bool(true), AllowRedirects: sdk.String("never"),
		},
		Metadata: map[string]string{},
	}
	if r.OrderNumber != "" {
		params.Metadata["orderNumber"] = r.OrderNumber
	}
	if r.CartID != "" {
		params.Metadata["cartId"] = r.CartID
	}
	params.SetIdempotencyKey(r.IdempotencyKey)
	pi, err := p.client.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return payment.Authorization{}, declined(ctx, "authorize", err)
	}
	// Stripe answers a refused confirmation with a card_error; what it
	// accepts but cannot hold without the customer (3-D Secure) is
	// refused here, and the PaymentIntent cancelled.
	if pi.Status == sdk.PaymentIntentStatusRequiresAction || pi.Status == sdk.PaymentIntentStatusCanceled {
		if pi.Status == sdk.PaymentIntentStatusRequiresAction {
			cancel := &sdk.PaymentIntentCancelParams{}
			cancel.SetIdempotencyKey(r.IdempotencyKey + ":cancel")
			// Best effort: an uncaptured PaymentIntent expires on its own.
			_, _ = p.client.V1PaymentIntents.Cancel(ctx, pi.ID, cancel)
		}
		return payment.Authorization{}, payment.Declined("authentication_required",
			"The card needs an authentication this checkout cannot make; use another card.",
			fmt.Errorf("stripe: PaymentIntent %s is %s", pi.ID, pi.Status))
	}
	kept, err := json.Marshal(d)
	if err != nil {
		return payment.Authorization{}, fmt.Errorf("stripe: marshal the payment data: %w", err)
	}
	return payment.Authorization{Reference: pi.ID, Amount: r.Amount, Currency: r.Currency, Precision: r.Precision,
		Data: kept}, nil
}

// Capture captures r.Amount of the PaymentIntent r.Reference. The
// receipt's reference is the PaymentIntent's charge (its id when Stripe
// gives none).
func (p *Provider) Capture(ctx context.Context, r payment.CaptureRequest) (payment.Receipt, error) {
	if err := reference(r.Reference); err != nil {
		return payment.Receipt{}, err
	}
	amount, err := toStripe(r.Amount, r.Currency)
	if err != nil {
		return payment.Receipt{}, err
	}
	params := &sdk.PaymentIntentCaptureParams{AmountToCapture: sdk.Int64(amount)}
	params.SetIdempotencyKey(r.IdempotencyKey)
	pi, err := p.client.V1PaymentIntents.Capture(ctx, r.Reference, params)
	if err != nil {
		return payment.Receipt{}, declined(ctx, "capture", err)
	}
	ref := pi.ID
	if pi.LatestCharge != nil && pi.LatestCharge.ID != "" {
		ref = pi.LatestCharge.ID
	}
	return payment.Receipt{Reference: ref, Amount: r.Amount}, nil
}

// Void cancels the PaymentIntent r.Reference.
func (p *Provider) Void(ctx context.Context, r payment.VoidRequest) (payment.Receipt, error) {
	if err := reference(r.Reference); err != nil {
		return payment.Receipt{}, err
	}
	params := &sdk.PaymentIntentCancelParams{}
	params.SetIdempotencyKey(r.IdempotencyKey)
	pi, err := p.client.V1PaymentIntents.Cancel(ctx, r.Reference, params)
	if err != nil {
		return payment.Receipt{}, declined(ctx, "void", err)
	}
	return payment.Receipt{Reference: pi.ID}, nil
}

// Refund refunds r.Amount of the PaymentIntent r.Reference; r.Reason is
// kept as the refund's metadata reason (Stripe's own reason takes only
// its three values). The receipt's reference is the refund's id.
func (p *Provider) Refund(ctx context.Context, r payment.RefundRequest) (payment.Receipt, error) {
	if err := reference(r.Reference); err != nil {
		return payment.Receipt{}, err
	}
	amount, err := toStripe(r.Amount, r.Currency)
	if err != nil {
		return payment.Receipt{}, err
	}
	params := &sdk.RefundCreateParams{PaymentIntent: sdk.String(r.Reference), Amount: sdk.Int64(amount)}
	if r.Reason != "" {
		params.Metadata = map[string]string{"reason": truncate(r.Reason, 500)}
	}
	params.SetIdempotencyKey(r.IdempotencyKey)
	re, err := p.client.V1Refunds.Create(ctx, params)
	if err != nil {
		return payment.Receipt{}, declined(ctx, "refund", err)
	}
	if re.Status == sdk.RefundStatusFailed || re.Status == sdk.RefundStatusCanceled {
		return payment.Receipt{}, payment.Declined("refund_failed", "The refund was not made.",
			fmt.Errorf("stripe: refund %s is %s (%s)", re.ID, re.Status, re.FailureReason))
	}
	return payment.Receipt{Reference: re.ID, Amount: r.Amount}, nil
}

// reference checks an authorisation's reference before it goes into a
// URL path: an internal error when it is not a PaymentIntent id (the
// service stored it).
func reference(ref string) error {
	if !paymentIntentID.MatchString(ref) {
		return commerce.Errorf(commerce.EInternal, "stripe: %q is not a PaymentIntent id", truncate(ref, 64))
	}
	return nil
}

var paymentIntentID = regexp.MustCompile(`^pi_[A-Za-z0-9_]{1,250}$`)

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// declined translates an error of the SDK in the operation op: the end of
// the caller's context as it is; Stripe's refusals (a card_error, an
// invalid request such as an amount too small or a PaymentIntent in the
// wrong state) as a *Decline with Stripe's code and message; everything
// else (network, timeout, 5xx, 429, authentication with Stripe) as a
// *Decline provider_error with a generic message, Stripe's error as the
// cause.
func declined(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("stripe %s: %w", op, err)
	}
	unavailable := func() error {
		return payment.Declined(payment.ProviderError,
			"The payment provider could not "+op+" the payment; try again later.", fmt.Errorf("stripe %s: %w", op, err))
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return unavailable()
	}
	switch {
	case se.Type == sdk.ErrorTypeCard:
		code := string(se.Code)
		if code == "" {
			code = string(sdk.ErrorCodeCardDeclined)
		}
		msg := se.Msg
		if msg == "" {
			msg = "Your card was declined."
		}
		return payment.Declined(code, msg, err)
	case se.Type == sdk.ErrorTypeInvalidRequest && se.HTTPStatusCode >= 400 && se.HTTPStatusCode < 500 &&
		se.HTTPStatusCode != http.StatusUnauthorized && se.HTTPStatusCode != http.StatusForbidden &&
		se.HTTPStatusCode != http.StatusTooManyRequests && se.Code != "":
		return payment.Declined(string(se.Code), se.Msg, err)
	default:
		return unavailable()
	}
}
