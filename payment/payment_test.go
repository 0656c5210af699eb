package payment_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
)

// failing is a provider whose every call fails with err.
type failing struct{ err error }

func (f failing) Authorize(context.Context, payment.AuthorizeRequest) (payment.Authorization, error) {
	return payment.Authorization{}, f.err
}
func (f failing) Capture(context.Context, payment.CaptureRequest) (payment.Receipt, error) {
	return payment.Receipt{}, f.err
}
func (f failing) Void(context.Context, payment.VoidRequest) (payment.Receipt, error) {
	return payment.Receipt{}, f.err
}
func (f failing) Refund(context.Context, payment.RefundRequest) (payment.Receipt, error) {
	return payment.Receipt{}, f.err
}

// calls runs the four operations of p with the key and returns their errors.
func calls(ctx context.Context, p payment.Provider, key string) map[string]error {
	_, a := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: key, Amount: 100, Currency: "USD", Precision: 2})
	_, c := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: key, Reference: "r", Amount: 100, Currency: "USD"})
	_, v := p.Void(ctx, payment.VoidRequest{IdempotencyKey: key, Reference: "r"})
	_, r := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: key, Reference: "r", Amount: 100, Currency: "USD"})
	return map[string]error{"authorize": a, "capture": c, "void": v, "refund": r}
}

func TestProviders(t *testing.T) {
	invalid := commerce.Invalid("paymentData.paymentMethod: required")
	ps, err := payment.NewProviders(map[string]payment.Provider{
		manual.ID:  manual.New(),
		"declines": failing{payment.Declined("card_declined", "Your card was declined.", nil)},
		"down":     failing{errors.New("dial tcp: connection refused")},
		"picky":    failing{invalid},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ids := ps.IDs(); !slices.Equal(ids, []string{"declines", "down", "manual", "picky"}) {
		t.Errorf("got ids %v, want them sorted", ids)
	}
	if _, err := ps.Provider("bitcoin"); commerce.ErrorCode(err) != commerce.EValidation ||
		!slices.Equal(commerce.ProblemsOf(err), []string{`paymentId: unknown payment provider "bitcoin" (available: [declines down manual picky])`}) {
		t.Errorf("unknown provider: got %v, want validation_error naming paymentId", err)
	}

	ctx := context.Background()
	tests := []struct {
		name, id string
		code     string          // of every call's error
		data     payment.Failure // of payment_failed
	}{
		{"a refusal is payment_failed with its code", "declines", commerce.EPaymentFailed,
			payment.Failure{Provider: "declines", Code: "card_declined", Message: "Your card was declined."}},
		{"a failure is payment_failed provider_error", "down", commerce.EPaymentFailed,
			payment.Failure{Provider: "down", Code: payment.ProviderError}},
		{"the service's errors are kept", "picky", commerce.EValidation, payment.Failure{}},
		{"manual never fails", manual.ID, "", payment.Failure{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ps.Provider(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			for op, err := range calls(ctx, p, "k1") {
				if got := commerce.ErrorCode(err); got != tc.code {
					t.Fatalf("%s: got %v, want code %q", op, err, tc.code)
				}
				if tc.code != commerce.EPaymentFailed {
					continue
				}
				got, _ := commerce.ErrorData(err).(payment.Failure)
				if got.Provider != tc.data.Provider || got.Code != tc.data.Code || got.Message == "" ||
					(tc.data.Message != "" && got.Message != tc.data.Message) {
					t.Errorf("%s: got data %+v, want %+v", op, got, tc.data)
				}
				if errors.Unwrap(err) == nil {
					t.Errorf("%s: the provider's error is not kept as the cause", op)
				}
			}
		})
	}

	t.Run("an idempotency key is required", func(t *testing.T) {
		p, _ := ps.Provider(manual.ID)
		for op, err := range calls(ctx, p, "") {
			if commerce.ErrorCode(err) != commerce.EInternal {
				t.Errorf("%s without a key: got %v, want an internal error", op, err)
			}
		}
	})
	t.Run("the end of the caller's context is not a provider failure", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		p, _ := ps.Provider("down")
		for op, err := range calls(cctx, p, "k") {
			if code := commerce.ErrorCode(err); code == commerce.EPaymentFailed {
				t.Errorf("%s with a cancelled context: got %v, want the error itself", op, err)
			}
		}
	})
	for _, bad := range []map[string]payment.Provider{{"": manual.New()}, {"x": nil}} {
		if _, err := payment.NewProviders(bad); err == nil {
			t.Errorf("NewProviders(%v): got no error, want one", bad)
		}
	}
}

// TestIsLocal: manual is local, as the set hands it out too; another
// provider is not.
func TestIsLocal(t *testing.T) {
	ps, err := payment.NewProviders(map[string]payment.Provider{manual.ID: manual.New(), "down": failing{errors.New("down")}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ps.Provider(manual.ID)
	d, _ := ps.Provider("down")
	if !payment.IsLocal(manual.New()) || !payment.IsLocal(m) {
		t.Error("manual is not local")
	}
	if payment.IsLocal(d) || payment.IsLocal(failing{}) {
		t.Error("a provider without Local is local")
	}
}

// TestUncertain: through a Providers set, a provider failure (an
// outage, a lost answer) or the end of the caller's context leaves the
// outcome unknown; a refusal, bad paymentData or an internal error raised
// before the call is definite.
func TestUncertain(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		err       error
		uncertain bool
	}{
		{"refusal", context.Background(), payment.Declined("card_declined", "declined", nil), false},
		{"provider error", context.Background(), payment.Declined(payment.ProviderError, "timeout", context.DeadlineExceeded), true},
		{"network error", context.Background(), errors.New("connection reset by peer"), true},
		{"caller's context ended", canceled, context.Canceled, true},
		{"bad paymentData", context.Background(), commerce.Invalid("paymentData.paymentMethod: required"), false},
		{"internal, before the call", context.Background(), commerce.Errorf(commerce.EInternal, "not a reference"), false},
		{"unavailable", context.Background(), commerce.Errorf(commerce.EUnavailable, "busy"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := payment.NewProviders(map[string]payment.Provider{"f": failing{tc.err}})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := ps.Provider("f")
			for op, err := range calls(tc.ctx, p, "k") {
				if got := payment.Uncertain(err); got != tc.uncertain {
					t.Errorf("%s: Uncertain(%v) = %v, want %v", op, err, got, tc.uncertain)
				}
			}
		})
	}
	if payment.Uncertain(nil) {
		t.Error("Uncertain(nil) = true, want false")
	}
}
