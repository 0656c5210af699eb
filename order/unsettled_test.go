package order_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// lossy is a remote provider that does what it is asked (once per
// idempotency key, as a provider does) and then, while lose[op] > 0,
// loses the answer: the caller gets a provider_error (a timeout, a reset
// connection) although the operation was made.
type lossy struct {
	manual.Provider
	mu   sync.Mutex
	lose map[string]int      // operation -> answers still to lose
	done map[string][]string // operation -> keys it was made under, once each
}

func newLossy() *lossy { return &lossy{lose: map[string]int{}, done: map[string][]string{}} }

func (l *lossy) Local() bool { return false }

func (l *lossy) answer(op, key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Contains(l.done[op], key) {
		l.done[op] = append(l.done[op], key)
	}
	if l.lose[op] > 0 {
		l.lose[op]--
		return payment.Declined(payment.ProviderError, "no answer", context.DeadlineExceeded)
	}
	return nil
}

func (l *lossy) made(op string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.done[op])
}

func (l *lossy) loseNext(op string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lose[op] = n
}

func (l *lossy) Capture(ctx context.Context, q payment.CaptureRequest) (payment.Receipt, error) {
	if err := l.answer("capture", q.IdempotencyKey); err != nil {
		return payment.Receipt{}, err
	}
	return l.Provider.Capture(ctx, q)
}

func (l *lossy) Void(ctx context.Context, q payment.VoidRequest) (payment.Receipt, error) {
	if err := l.answer("void", q.IdempotencyKey); err != nil {
		return payment.Receipt{}, err
	}
	return l.Provider.Void(ctx, q)
}

func (l *lossy) Refund(ctx context.Context, q payment.RefundRequest) (payment.Receipt, error) {
	if err := l.answer("refund", q.IdempotencyKey); err != nil {
		return payment.Receipt{}, err
	}
	return l.Provider.Refund(ctx, q)
}

// wantProviderError checks a payment_failed answer of code provider_error.
func wantProviderError(t *testing.T, data json.RawMessage) {
	t.Helper()
	var f payment.Failure
	if err := json.Unmarshal(data, &f); err != nil || f.Provider != "rec" || f.Code != payment.ProviderError || f.Message == "" {
		t.Errorf("payment_failed data %s, want provider rec, code provider_error and a message", data)
	}
}

// TestLostAnswerRetryConverges: a capture, a refund and a cancel whose
// provider acted but whose answer was lost (provider_error) answer 402
// payment_failed with code provider_error and change nothing visible; the
// admin's retry of the same operation calls the provider again under the
// same idempotency key, so that the provider acted once, and the order
// then shows the change once. A lost answer left alone is finished by
// the recovery job, also under the first key.
func TestLostAnswerRetryConverges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		prov := newLossy()
		s := newShop(t, db, withProvider(prov))
		p := s.product("U", "100.00", 10)
		place := func(n int) *order.Order {
			t.Helper()
			body := checkoutBody(s.cart(s.API, p, n))
			body["paymentId"] = "rec"
			var o order.Order
			s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
			return &o
		}
		info := func(id string) *order.Order {
			t.Helper()
			var o order.Order
			s.Get(t, "/order/v1/order.info?id="+id, s.Admin).Must(t).Decode(t, "order", &o)
			return &o
		}
		lost := func(name string, body map[string]any) {
			t.Helper()
			wantProviderError(t, s.Post(t, "/order/v1/order."+name, s.Admin, body).Expect(t, 402, "payment_failed").Data)
		}

		// Capture.
		o := place(2)
		prov.loseNext("capture", 1)
		lost("capture", map[string]any{"id": o.ID})
		if got := info(o.ID); got.PaymentStatus != "AUTHORIZED" || got.Version != 1 {
			t.Errorf("after a lost capture: %s v%d, want AUTHORIZED v1", got.PaymentStatus, got.Version)
		}
		got := s.op("capture", map[string]any{"id": o.ID})
		if keys := prov.made("capture"); len(keys) != 1 || got.PaymentStatus != "PAID" || got.Version != 2 {
			t.Errorf("capture retried: provider captured under %v, order %s v%d; want one key, PAID v2", keys, got.PaymentStatus, got.Version)
		}

		// Refund, twice lost: the second retry converges.
		before, _ := s.stock(p)
		refund := map[string]any{"id": o.ID, "amount": 30, "restock": true, "reason": "dented",
			"items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}}
		prov.loseNext("refund", 2)
		lost("refund", refund)
		refund["reason"] = "dented (retry)"
		lost("refund", refund)
		if got := info(o.ID); got.PaymentStatus != "PAID" || got.Payments[0].Refunded.Amount != 0 || len(got.Refunds) != 0 {
			t.Errorf("after lost refunds: %s, refunded %d, %d refunds; want nothing yet", got.PaymentStatus, got.Payments[0].Refunded.Amount, len(got.Refunds))
		}
		got = s.op("refund", refund)
		if keys := prov.made("refund"); len(keys) != 1 {
			t.Errorf("refund retried twice: the provider refunded under %v, want one key (one refund)", keys)
		}
		if got.PaymentStatus != "PARTIALLY_REFUNDED" || got.Payments[0].Refunded.Amount != 3000 || len(got.Refunds) != 1 ||
			got.Items[0].RefundedQuantity != 1 {
			t.Errorf("after the retry: %s, refunded %d in %d refunds, item refunded %d; want 30.00 once, 1 unit",
				got.PaymentStatus, got.Payments[0].Refunded.Amount, len(got.Refunds), got.Items[0].RefundedQuantity)
		}
		if q, _ := s.stock(p); q != before+1 {
			t.Errorf("stock %d, want %d (one unit restocked once)", q, before+1)
		}
		// A different refund is another refund, even with one in doubt.
		prov.loseNext("refund", 1)
		lost("refund", map[string]any{"id": o.ID, "amount": 10})
		got = s.op("refund", map[string]any{"id": o.ID, "amount": 20})
		if keys := prov.made("refund"); len(keys) != 3 || got.Payments[0].Refunded.Amount != 5000 {
			t.Errorf("a refund of 20.00 with one of 10.00 in doubt: provider keys %v, refunded %d; want 3 keys, 50.00", keys, got.Payments[0].Refunded.Amount)
		}
		// That one in doubt is the recovery job's.
		s.App.Order.RecoverAfter = time.Hour
		if n, err := s.App.Order.Recover(context.Background()); n != 0 || err != nil {
			t.Errorf("recover before RecoverAfter: %d, %v; want nothing", n, err)
		}
		s.App.Order.RecoverAfter = time.Nanosecond
		time.Sleep(2 * time.Millisecond)
		if n, err := s.App.Order.Recover(context.Background()); n != 1 || err != nil {
			t.Errorf("recover: %d, %v; want 1 finished", n, err)
		}
		if got := info(o.ID); len(prov.made("refund")) != 3 || got.Payments[0].Refunded.Amount != 6000 || len(got.Refunds) != 3 {
			t.Errorf("after recovery: provider keys %v, refunded %d in %d refunds; want 3 keys, 60.00 in 3", prov.made("refund"),
				got.Payments[0].Refunded.Amount, len(got.Refunds))
		}
		s.App.Order.RecoverAfter = 0

		// Cancel (a void), lost, then retried by the customer's token.
		o = place(3)
		before, _ = s.stock(p)
		prov.loseNext("void", 1)
		lost("cancel", map[string]any{"id": o.ID})
		if got := info(o.ID); got.Status != "PLACED" || got.PaymentStatus != "AUTHORIZED" {
			t.Errorf("after a lost void: %s / %s, want PLACED / AUTHORIZED", got.Status, got.PaymentStatus)
		}
		if q, _ := s.stock(p); q != before {
			t.Errorf("stock %d after a lost void, want %d", q, before)
		}
		s.Post(t, "/order/v1/order.cancel", s.API, map[string]any{"id": o.ID}).Must(t)
		got = info(o.ID)
		if keys := prov.made("void"); len(keys) != 1 || got.Status != "CANCELLED" || got.PaymentStatus != "VOIDED" {
			t.Errorf("cancel retried: voids under %v, order %s / %s; want one key, CANCELLED / VOIDED", keys, got.Status, got.PaymentStatus)
		}
		if q, _ := s.stock(p); q != before+3 {
			t.Errorf("stock %d after the cancel, want %d", q, before+3)
		}
		s.wantEvents(o.ID, "CREATE", "CANCEL")
	})
}

// TestRefusalStillClears: a definite refusal (not provider_error) clears
// the operation at once: the next capture is a new one.
func TestRefusalStillClears(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		rec := &recorder{decline: true}
		s := newShop(t, db, withProvider(rec))
		body := checkoutBody(s.cart(s.API, s.product("F", "10.00", 5), 1))
		body["paymentId"] = "rec"
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
		s.Post(t, "/order/v1/order.capture", s.Admin, map[string]any{"id": o.ID}).Expect(t, 402, "payment_failed")
		rec.mu.Lock()
		rec.decline = false
		rec.mu.Unlock()
		s.op("capture", map[string]any{"id": o.ID})
		if keys := rec.captured(); len(keys) != 2 || keys[0] == keys[1] {
			t.Errorf("capture keys %v, want two different (the refused one was cleared)", keys)
		}
	})
}

// outage is a remote provider whose authorisations fail as an outage does
// (provider_error) while down is set, or, with invalid, refuse the
// paymentData (validation_error); it records its voids.
type outage struct {
	manual.Provider
	mu      sync.Mutex
	down    bool
	invalid bool
	voids   []string
}

func (o *outage) Local() bool { return false }

func (o *outage) Authorize(ctx context.Context, q payment.AuthorizeRequest) (payment.Authorization, error) {
	o.mu.Lock()
	down, invalid := o.down, o.invalid
	o.mu.Unlock()
	switch {
	case invalid:
		return payment.Authorization{}, commerce.Invalid("paymentData.paymentMethod: required")
	case down:
		return payment.Authorization{}, payment.Declined(payment.ProviderError, "unreachable", context.DeadlineExceeded)
	}
	return o.Provider.Authorize(ctx, q)
}

func (o *outage) Void(ctx context.Context, q payment.VoidRequest) (payment.Receipt, error) {
	o.mu.Lock()
	o.voids = append(o.voids, q.Reference)
	o.mu.Unlock()
	return o.Provider.Void(ctx, q)
}

func (o *outage) set(down, invalid bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.down, o.invalid = down, invalid
}

// TestCheckoutRecoveryOutage: the recovery job asks the provider again
// about a checkout attempt a dead process left; an outage (payment_failed
// with code provider_error) says nothing about the first authorisation,
// so the attempt stays for the next round instead of being closed without
// a void; once the provider answers, the authorisation is voided. A
// checkout whose paymentData the provider refuses (validation_error)
// leaves no attempt behind.
func TestCheckoutRecoveryOutage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		prov := &outage{}
		s := newShop(t, db, withProvider(prov))
		ctx := context.Background()
		attempts := func() int { return attemptsLeft(t, db) }
		prov.set(false, true)
		body := checkoutBody(s.cart(s.API, s.product("O", "10.00", 5), 1))
		body["paymentId"] = "rec"
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Expect(t, 400, "validation_error")
		if n := attempts(); n != 0 {
			t.Errorf("%d attempts left by a checkout whose paymentData was refused, want none", n)
		}
		prov.set(false, false)

		// The "crash": the attempt recorded, the payment authorised.
		r, err := s.App.Order.BeginCheckout(ctx, "rec", payment.AuthorizeRequest{IdempotencyKey: "checkout-outage", CartID: "c",
			Amount: 1000, Currency: "USD", Precision: 2, Data: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		a, err := prov.Authorize(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		s.App.Order.RecoverAfter = time.Nanosecond
		time.Sleep(2 * time.Millisecond)
		prov.set(true, false)
		for range 2 {
			n, err := s.App.Order.RecoverCheckouts(ctx)
			if n != 0 || commerce.ErrorCode(err) != commerce.EPaymentFailed {
				t.Errorf("recovery during an outage: %d closed, %v; want none, the provider_error", n, err)
			}
		}
		if n := attempts(); n != 1 || len(prov.voids) != 0 {
			t.Fatalf("during the outage: %d attempts, voids %v; want the attempt kept, no void", n, prov.voids)
		}
		prov.set(false, false)
		if n, err := s.App.Order.RecoverCheckouts(ctx); n != 1 || err != nil {
			t.Fatalf("recovery once the provider answers: %d, %v; want 1 voided", n, err)
		}
		if n := attempts(); n != 0 || !slices.Equal(prov.voids, []string{a.Reference}) {
			t.Errorf("after recovery: %d attempts, voids %v; want none, the authorisation %s voided", n, prov.voids, a.Reference)
		}
	})
}

// hangUp is a remote provider whose client goes away (the request's
// context ends) just as the provider has voided or refunded.
type hangUp struct {
	manual.Provider
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (h *hangUp) Local() bool { return false }

func (h *hangUp) hangUp() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil {
		h.cancel()
	}
}

func (h *hangUp) Void(ctx context.Context, q payment.VoidRequest) (payment.Receipt, error) {
	r, err := h.Provider.Void(ctx, q)
	h.hangUp()
	return r, err
}

func (h *hangUp) Refund(ctx context.Context, q payment.RefundRequest) (payment.Receipt, error) {
	r, err := h.Provider.Refund(ctx, q)
	h.hangUp()
	return r, err
}

// TestClientGoneAfterProvider: a client that goes away once the provider
// has voided (a cancel) or refunded with restock still gets the change
// recorded, stock and coupon uses included, with its event. (It shows on
// PostgreSQL: SQLite's group commit runs statements detached from their
// context.)
func TestClientGoneAfterProvider(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		prov := &hangUp{}
		s := newShop(t, db, withProvider(prov))
		p := s.product("G", "10.00", 10)
		place := func() *order.Order {
			body := checkoutBody(s.cart(s.API, p, 2))
			body["paymentId"] = "rec"
			var o order.Order
			s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
			return &o
		}
		admin := commerce.WithClaims(context.Background(), commerce.Claims{Subject: "admin", Scopes: []string{commerce.ScopeAdmin}})
		request := func() context.Context {
			ctx, cancel := context.WithCancel(admin)
			prov.mu.Lock()
			prov.cancel = cancel
			prov.mu.Unlock()
			return ctx
		}

		o := place()
		before, _ := s.stock(p)
		if _, err := s.App.Order.Cancel(request(), order.CancelInput{ID: o.ID}); err != nil {
			t.Errorf("cancel whose client went away after the void: %v", err)
		}
		var got order.Order
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if q, _ := s.stock(p); got.Status != "CANCELLED" || got.PaymentStatus != "VOIDED" || q != before+2 {
			t.Errorf("after the cancel: %s / %s, stock %d; want CANCELLED / VOIDED, %d", got.Status, got.PaymentStatus, q, before+2)
		}
		s.wantEvents(o.ID, "CREATE", "CANCEL")

		o = place()
		s.op("capture", map[string]any{"id": o.ID})
		before, _ = s.stock(p)
		restock, amount := true, money.NewNumber("10")
		if _, err := s.App.Order.Refund(request(), order.RefundInput{ID: o.ID, Amount: &amount,
			Items: []order.ItemQuantity{{ItemID: o.Items[0].ID, Quantity: 1}}, Restock: &restock}); err != nil {
			t.Errorf("refund whose client went away after the provider refunded: %v", err)
		}
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if q, _ := s.stock(p); got.Payments[0].Refunded.Amount != 1000 || len(got.Refunds) != 1 || q != before+1 {
			t.Errorf("after the refund: refunded %d in %d, stock %d; want 10.00 in 1, %d", got.Payments[0].Refunded.Amount, len(got.Refunds), q, before+1)
		}
		s.wantEvents(o.ID, "CREATE", "CAPTURE", "REFUND")
	})
}
