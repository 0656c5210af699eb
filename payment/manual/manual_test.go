package manual_test

import (
	"context"
	"testing"

	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
)

func TestManual(t *testing.T) {
	ctx := context.Background()
	p := manual.New()
	tests := []struct {
		name, data, want string
	}{
		{"records paymentData as given", `{"method": "cash", "note": "ring twice"}`, `{"method": "cash", "note": "ring twice"}`},
		{"empty data", ``, `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := payment.AuthorizeRequest{IdempotencyKey: "k1", CartID: "c1", Amount: 12500, Currency: "USD", Precision: 2, Data: []byte(tc.data)}
			a, err := p.Authorize(ctx, r)
			if err != nil {
				t.Fatalf("got %v, want the manual provider to authorise", err)
			}
			if a.Reference != "manual-k1" || a.Amount != 12500 || a.Currency != "USD" || a.Precision != 2 || string(a.Data) != tc.want {
				t.Errorf("got %+v, want reference manual-k1, 12500 USD and data %s", a, tc.want)
			}
			again, _ := p.Authorize(ctx, r)
			if again.Reference != a.Reference {
				t.Errorf("same key: got reference %s, then %s; want the same", a.Reference, again.Reference)
			}
			if other, _ := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "k2"}); other.Reference == a.Reference {
				t.Errorf("another key: got the same reference %s", other.Reference)
			}
		})
	}
	c, err := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: "k1:capture", Reference: "manual-k1", Amount: 12500, Currency: "USD"})
	if err != nil || c.Amount != 12500 || c.Reference != "manual-k1:capture" {
		t.Errorf("capture: got %+v, %v; want 12500 recorded", c, err)
	}
	r, err := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: "rf1", Reference: "manual-k1", Amount: 500, Currency: "USD"})
	if err != nil || r.Amount != 500 || r.Reference != "manual-rf1" {
		t.Errorf("refund: got %+v, %v; want 500 recorded", r, err)
	}
	v, err := p.Void(ctx, payment.VoidRequest{IdempotencyKey: "k1:void", Reference: "manual-k1"})
	if err != nil || v.Reference != "manual-k1:void" || v.Amount != 0 {
		t.Errorf("void: got %+v, %v; want it recorded", v, err)
	}
}
