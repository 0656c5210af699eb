package stripe_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/stripe"
	"github.com/commercekit/commerce/testkit/stripemock"
)

// expectPost checks that reqs is one POST to path carrying the idempotency
// key, the provider's own key, and the form values want.
func expectPost(t *testing.T, reqs []request, path, key string, want map[string]string) {
	t.Helper()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests %+v, want one POST %s", len(reqs), reqs, path)
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != path {
		t.Errorf("got %s %s, want POST %s", r.Method, r.Path, path)
	}
	if r.IdempotencyKey != key {
		t.Errorf("POST %s: got Idempotency-Key %q, want %q", path, r.IdempotencyKey, key)
	}
	if r.Authorization != "Bearer "+stripemock.Key {
		t.Errorf("POST %s: got Authorization %q, want the provider's key", path, r.Authorization)
	}
	for k, v := range want {
		if got := r.Form.Get(k); got != v {
			t.Errorf("POST %s: got %s=%q, want %q", path, k, got, v)
		}
	}
}

// TestStripeMock runs the four operations through the SDK against
// stripe-mock (which validates every request against Stripe's OpenAPI
// specification), recording what was sent.
func TestStripeMock(t *testing.T) {
	rec := proxyTo(t, stripemock.Start(t))
	p, err := stripe.New(stripe.Options{Key: stripemock.Key, URL: rec.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	a, err := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "checkout-1", CartID: "cart1", OrderNumber: "1001",
		Amount: 1234, Currency: "EUR", Precision: 2, Data: json.RawMessage(`{"paymentMethod": "pm_card_visa"}`)})
	if err != nil {
		t.Fatalf("authorize: %v", err)
	}
	if !strings.HasPrefix(a.Reference, "pi_") || a.Amount != 1234 || a.Currency != "EUR" || a.Precision != 2 ||
		string(a.Data) != `{"paymentMethod":"pm_card_visa"}` {
		t.Errorf("authorize: got %+v (data %s), want a PaymentIntent of 1234 EUR keeping the payment method", a, a.Data)
	}
	expectPost(t, rec.requests(), "/v1/payment_intents", "checkout-1", map[string]string{
		"amount": "1234", "currency": "eur", "capture_method": "manual", "confirm": "true",
		"payment_method": "pm_card_visa", "metadata[orderNumber]": "1001", "metadata[cartId]": "cart1",
	})

	c, err := p.Capture(ctx, payment.CaptureRequest{IdempotencyKey: "capture-1", Reference: a.Reference, Amount: 1000, Currency: "EUR"})
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	if c.Reference == "" || c.Amount != 1000 {
		t.Errorf("capture: got %+v, want a reference and 1000", c)
	}
	expectPost(t, rec.requests(), "/v1/payment_intents/"+a.Reference+"/capture", "capture-1",
		map[string]string{"amount_to_capture": "1000"})

	r, err := p.Refund(ctx, payment.RefundRequest{IdempotencyKey: "refund-1", Reference: a.Reference, Amount: 400,
		Currency: "EUR", Reason: "damaged"})
	if err != nil {
		t.Fatalf("refund: %v", err)
	}
	if !strings.HasPrefix(r.Reference, "re_") || r.Amount != 400 {
		t.Errorf("refund: got %+v, want a refund id and 400", r)
	}
	expectPost(t, rec.requests(), "/v1/refunds", "refund-1",
		map[string]string{"payment_intent": a.Reference, "amount": "400", "metadata[reason]": "damaged"})

	v, err := p.Void(ctx, payment.VoidRequest{IdempotencyKey: "void-1", Reference: a.Reference})
	if err != nil {
		t.Fatalf("void: %v", err)
	}
	if v.Reference != a.Reference {
		t.Errorf("void: got %+v, want the PaymentIntent %s", v, a.Reference)
	}
	expectPost(t, rec.requests(), "/v1/payment_intents/"+a.Reference+"/cancel", "void-1", nil)

	t.Run("through the providers set", func(t *testing.T) {
		ps, err := payment.NewProviders(map[string]payment.Provider{stripe.ID: p})
		if err != nil {
			t.Fatal(err)
		}
		sp, _ := ps.Provider(stripe.ID)
		a, err := sp.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "checkout-2", Amount: 500, Currency: "USD",
			Precision: 2, Data: json.RawMessage(`{"paymentMethod":"pm_card_mastercard"}`)})
		if err != nil || !strings.HasPrefix(a.Reference, "pi_") {
			t.Fatalf("authorize: got %+v, %v", a, err)
		}
		reqs := rec.requests()
		expectPost(t, reqs, "/v1/payment_intents", "checkout-2", map[string]string{"amount": "500", "currency": "usd"})
		if reqs[0].Form.Has("metadata[orderNumber]") {
			t.Errorf("got metadata orderNumber %q without an order number", reqs[0].Form.Get("metadata[orderNumber]"))
		}
	})

	t.Run("bad paymentData is refused before Stripe is called", func(t *testing.T) {
		tests := []struct{ name, data, want string }{
			{"absent", ``, "paymentData.paymentMethod: required"},
			{"null", `null`, "paymentData.paymentMethod: required"},
			{"no paymentMethod", `{}`, "paymentData.paymentMethod: required"},
			{"not a string", `{"paymentMethod": 42}`, "paymentData.paymentMethod: must be a string"},
			{"not a PaymentMethod id", `{"paymentMethod": "4242424242424242"}`, "paymentData.paymentMethod: must be"},
			{"path characters", `{"paymentMethod": "pm_x/../../v1/refunds"}`, "paymentData.paymentMethod: must be"},
			{"unknown field", `{"paymentMethod": "pm_card_visa", "cvc": "123"}`, "paymentData.cvc: unknown field"},
			{"not an object", `["pm_card_visa"]`, "paymentData: must be an object"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := p.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: "k", Amount: 100, Currency: "USD",
					Data: json.RawMessage(tc.data)})
				problems := commerce.ProblemsOf(err)
				if commerce.ErrorCode(err) != commerce.EValidation || len(problems) != 1 || !strings.HasPrefix(problems[0], tc.want) {
					t.Errorf("got %v (problems %q), want validation_error %q", err, problems, tc.want)
				}
				if reqs := rec.requests(); len(reqs) != 0 {
					t.Errorf("got requests %+v, want none", reqs)
				}
			})
		}
	})
}

func TestNew(t *testing.T) {
	for _, o := range []stripe.Options{{}, {Key: "  "}, {Key: "sk_test_x", URL: "localhost:12111"}} {
		if _, err := stripe.New(o); err == nil {
			t.Errorf("New(%+v): got no error, want one", o)
		}
	}
}
