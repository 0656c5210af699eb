package payment_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
)

func TestManual(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"records paymentData as given", `{"method": "cash", "note": "ring twice"}`, `{"method": "cash", "note": "ring twice"}`},
		{"empty data", ``, `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := payment.Authorize(context.Background(), payment.Manual, payment.Request{
				CartID: "c1", Amount: 12500, Currency: "USD", Precision: 2, Data: json.RawMessage(tc.data)})
			if err != nil {
				t.Fatalf("got %v, want the manual provider to authorise", err)
			}
			if rec.PaymentID != "manual" || rec.Amount != 12500 || rec.Currency != "USD" || string(rec.Data) != tc.want ||
				!strings.HasPrefix(rec.Authorization, "manual-") {
				t.Errorf("got %+v, want paymentId manual, 12500 USD, data %s and an authorization", rec, tc.want)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	if _, err := payment.Authorize(context.Background(), "nope", payment.Request{}); commerce.ErrorCode(err) != commerce.EValidation {
		t.Errorf("unknown provider: got %v, want validation_error", err)
	}
	declined := commerce.Invalid("paymentData.card: declined")
	payment.Register("test-decline", payment.ProviderFunc(func(context.Context, payment.Request) (payment.Record, error) {
		return payment.Record{}, declined
	}))
	if _, err := payment.Authorize(context.Background(), "test-decline", payment.Request{}); commerce.ErrorCode(err) != commerce.EValidation {
		t.Errorf("declining provider: got %v, want its validation_error", err)
	}
	if ids := payment.IDs(); !slices.Equal(ids, []string{"manual", "test-decline"}) {
		t.Errorf("got ids %v, want [manual test-decline]", ids)
	}
	for _, tc := range []struct {
		name string
		id   string
		p    payment.Provider
	}{
		{"taken id", "manual", payment.ProviderFunc(nil)},
		{"empty id", "", payment.ProviderFunc(nil)},
		{"nil provider", "x", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tc.id)
				}
			}()
			payment.Register(tc.id, tc.p)
		})
	}
}
