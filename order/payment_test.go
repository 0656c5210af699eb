package order_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// recorder is a provider that authorises as manual does, records the
// idempotency keys of its calls, and declines captures while decline is
// set.
type recorder struct {
	manual.Provider
	mu          sync.Mutex
	keys        []string
	decline     bool
	declineAuth bool
	voids       []string
}

func (r *recorder) Capture(ctx context.Context, q payment.CaptureRequest) (payment.Receipt, error) {
	r.mu.Lock()
	r.keys = append(r.keys, q.IdempotencyKey)
	decline := r.decline
	r.mu.Unlock()
	if decline {
		return payment.Receipt{}, payment.Declined("capture_refused", "the bank said no", nil)
	}
	return r.Provider.Capture(ctx, q)
}

// Local: a recorder stands for a remote provider (manual's Local is not
// inherited), whose checkouts record their attempt first.
func (r *recorder) Local() bool { return false }

// Authorize declines while declineAuth is set.
func (r *recorder) Authorize(ctx context.Context, q payment.AuthorizeRequest) (payment.Authorization, error) {
	r.mu.Lock()
	decline := r.declineAuth
	r.mu.Unlock()
	if decline {
		return payment.Authorization{}, payment.Declined("card_declined", "declined", nil)
	}
	return r.Provider.Authorize(ctx, q)
}

// Void records the void's key and reference.
func (r *recorder) Void(ctx context.Context, q payment.VoidRequest) (payment.Receipt, error) {
	r.mu.Lock()
	r.voids = append(r.voids, q.IdempotencyKey+" "+q.Reference)
	r.mu.Unlock()
	return r.Provider.Void(ctx, q)
}

func (r *recorder) captured() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.keys...)
}

func withProvider(p payment.Provider) func(*app.Options) {
	return func(o *app.Options) { o.PaymentProviders = map[string]payment.Provider{"rec": p} }
}

// TestCaptureDeclined: a refusal is payment_failed and changes nothing.
func TestCaptureDeclined(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		rec := &recorder{decline: true}
		s := newShop(t, db, withProvider(rec))
		p := s.product("D", "10.00", 5)
		body := checkoutBody(s.cart(s.API, p, 1))
		body["paymentId"] = "rec"
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
		e := s.Post(t, "/order/v1/order.capture", s.Admin, map[string]any{"id": o.ID}).Expect(t, 402, "payment_failed")
		if string(e.Data) != `{"provider":"rec","code":"capture_refused","message":"the bank said no"}` {
			t.Errorf("payment_failed data %s", e.Data)
		}
		var got order.Order
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if got.Version != 1 || got.PaymentStatus != "AUTHORIZED" {
			t.Errorf("after a refused capture: version %d, %s", got.Version, got.PaymentStatus)
		}
		if n, err := s.App.Order.Recover(context.Background()); err != nil || n != 0 {
			t.Errorf("recovery after a refusal: %d, %v; want nothing left to finish", n, err)
		}
		rec.mu.Lock()
		rec.decline = false
		rec.mu.Unlock()
		if got := s.op("capture", map[string]any{"id": o.ID}); got.PaymentStatus != "PAID" || got.Version != 2 {
			t.Errorf("capture once accepted: %s, version %d", got.PaymentStatus, got.Version)
		}
	})
}

// TestRecovery: a capture whose intent was recorded and whose process
// died before the rest is finished by the recovery job, with the same
// idempotency key, once; meanwhile (while it may still be in a request's
// hands) other payment operations wait. Once older than RecoverAfter, the
// same operation asked again by the admin is that one, finished.
func TestRecovery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		rec := &recorder{}
		s := newShop(t, db, withProvider(rec))
		p := s.product("R", "10.00", 5)
		body := checkoutBody(s.cart(s.API, p, 2))
		body["paymentId"] = "rec"
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)

		// Phase one of a capture, then the "crash".
		crashed := func(op *order.Operation) { addPending(t, db, o.ID, op) }
		op := &order.Operation{ID: "op1", Kind: order.OpCapture, Key: "order-" + o.ID + "-op1", Amount: o.Payments[0].Amount.Amount,
			Created: time.Now().Add(-time.Minute).UTC()}
		crashed(op)
		s.Post(t, "/order/v1/order.capture", s.Admin, map[string]any{"id": o.ID}).Expect(t, 400, "invalid_order_state")
		s.Post(t, "/order/v1/order.cancel", s.Admin, map[string]any{"id": o.ID}).Expect(t, 409, "concurrent_modification")

		// The provider's report of that capture, meanwhile: left to the
		// operation (which records it once).
		if got, err := s.App.Notifications.Apply(context.Background(), payment.Notification{EventID: "evt_cap", Provider: "rec",
			Reference: o.Payments[0].Reference, Kind: payment.NotifyCaptured, Amount: op.Amount}); err != nil || got != payment.Ignored {
			t.Fatalf("got %v, %v; want ignored", got, err)
		}
		var mid order.Order
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &mid)
		if mid.Version != 1 || mid.PaymentStatus != "AUTHORIZED" {
			t.Errorf("a report of the pending capture applied: version %d, %s", mid.Version, mid.PaymentStatus)
		}

		if n, err := s.App.Order.Recover(context.Background()); err != nil || n != 0 {
			t.Fatalf("recover: %d, %v; want nothing finished before RecoverAfter (2 minutes)", n, err)
		}
		s.App.Order.RecoverAfter = 30 * time.Second
		n, err := s.App.Order.Recover(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("recover: %d, %v; want 1 finished", n, err)
		}
		if keys := rec.captured(); len(keys) != 1 || keys[0] != op.Key {
			t.Errorf("provider captures %v, want one with the intent's key %s", keys, op.Key)
		}
		var got order.Order
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if got.PaymentStatus != "PAID" || got.Version != 2 {
			t.Errorf("after recovery: %s, version %d; want PAID, 2", got.PaymentStatus, got.Version)
		}
		if n, err := s.App.Order.Recover(context.Background()); err != nil || n != 0 {
			t.Errorf("second recovery: %d, %v; want nothing", n, err)
		}
		var captures int
		for _, e := range s.events() {
			if e.Type == "CAPTURE" {
				captures++
			}
		}
		if captures != 1 {
			t.Errorf("%d CAPTURE events, want 1", captures)
		}

		// A refund the "crash" left, older than RecoverAfter: the
		// admin's refund of the same amount finishes it (its id is the
		// refund's) rather than refunding again.
		crashed(&order.Operation{ID: "op2", Kind: order.OpRefund, Key: "order-" + o.ID + "-op2", Amount: 1000,
			Created: time.Now().Add(-time.Minute).UTC()})
		got = *s.op("refund", map[string]any{"id": o.ID, "amount": 10})
		if len(got.Refunds) != 1 || got.Refunds[0].ID != "op2" || got.Payments[0].Refunded.Amount != 1000 {
			t.Errorf("refund asked again: refunds %+v, refunded %d; want the crashed op2, 10.00 once", got.Refunds, got.Payments[0].Refunded.Amount)
		}
	})
}

// TestNotifications: a provider's reports apply once per event id; the
// order's status never changes; unknown references are ignored.
func TestNotifications(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o, _ := s.order(s.API, 1)
		ref := o.Payments[0].Reference
		ctx := context.Background()
		// apply applies a report, which must have the outcome want (issue
		// 27: the webhook logs a repeated event as a duplicate, not as
		// applied), and returns the order.
		apply := func(id string, kind payment.NotificationKind, amount int64, want payment.Outcome) *order.Order {
			t.Helper()
			outcome, err := s.App.Notifications.Apply(ctx, payment.Notification{EventID: id, Provider: "manual", Reference: ref, Kind: kind, Amount: amount})
			if err != nil {
				t.Fatal(err)
			}
			if outcome != want {
				t.Errorf("event %s (%s): outcome %v, want %v", id, kind, outcome, want)
			}
			var got order.Order
			s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
			return &got
		}
		if got, err := s.App.Notifications.Apply(ctx, payment.Notification{EventID: "x", Provider: "manual", Reference: "nope", Kind: payment.NotifyCaptured}); err != nil || got != payment.Ignored {
			t.Errorf("unknown reference: %v, %v; want ignored", got, err)
		}
		got := apply("evt_1", payment.NotifyCaptured, o.Payments[0].Amount.Amount, payment.Applied)
		if got.PaymentStatus != "PAID" || got.Payments[0].Status != "CAPTURED" || got.Status != "PLACED" || got.Version != 2 {
			t.Fatalf("captured: %s %s %s v%d", got.Status, got.PaymentStatus, got.Payments[0].Status, got.Version)
		}
		if got = apply("evt_1", payment.NotifyCaptured, 1, payment.Duplicate); got.Version != 2 || got.Payments[0].Captured.Amount != o.Payments[0].Amount.Amount {
			t.Errorf("the same event again changed the order: v%d", got.Version)
		}
		got = apply("evt_2", payment.NotifyRefunded, 1000, payment.Applied)
		if got.PaymentStatus != "PARTIALLY_REFUNDED" || got.Payments[0].Refunded.Amount != 1000 || got.Version != 3 {
			t.Errorf("refunded 10.00: %s %d v%d", got.PaymentStatus, got.Payments[0].Refunded.Amount, got.Version)
		}
		got = apply("evt_3", payment.NotifyFailed, 0, payment.Applied)
		if got.PaymentStatus != "PARTIALLY_REFUNDED" || got.Payments[0].Status != "FAILED" || got.Status != "PLACED" {
			t.Errorf("failed: %s %s", got.PaymentStatus, got.Payments[0].Status)
		}
		// A new event reporting what the payment already is: nothing
		// to change.
		if got = apply("evt_3b", payment.NotifyFailed, 0, payment.Ignored); got.Payments[0].Status != "FAILED" {
			t.Errorf("failed again: %s", got.Payments[0].Status)
		}
		// The same event id, different in every other way: nothing.
		if got = apply("evt_2", payment.NotifyRefunded, 5000, payment.Duplicate); got.Payments[0].Refunded.Amount != 1000 {
			t.Errorf("a seen event id applied again: refunded %d", got.Payments[0].Refunded.Amount)
		}
		// The events: section 13's types where one fits (CAPTURE, REFUND),
		// UPDATE for a failure (and a void, below) that none names.
		s.wantEvents(o.ID, "CREATE", "CAPTURE", "REFUND", "UPDATE")
		o, _ = s.order(s.API, 1)
		ref = o.Payments[0].Reference
		if got = apply("evt_4", payment.NotifyVoided, 0, payment.Applied); got.PaymentStatus != "VOIDED" || got.Status != "PLACED" {
			t.Errorf("voided: %s / %s", got.Status, got.PaymentStatus)
		}
		s.wantEvents(o.ID, "CREATE", "UPDATE")
	})
}

// TestCheckoutDeclined: a declined checkout places no order and changes
// no stock; the next one places the order.
func TestCheckoutDeclined(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		rec := &recorder{declineAuth: true}
		s := newShop(t, db, withProvider(rec))
		p := s.product("X", "10.00", 5)
		body := checkoutBody(s.cart(s.API, p, 2))
		body["paymentId"] = "rec"
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Expect(t, 402, "payment_failed")
		var list []order.Order
		s.Get(t, "/order/v1/order.list", s.Admin).Must(t).Decode(t, "data", &list)
		if q, res := s.stock(p); len(list) != 0 || q != 5 || res != 2 || len(s.events()) != 0 {
			t.Errorf("after a declined checkout: %d orders, stock %d reserved %d, %d ORDERS events; want none, 5, 2, none", len(list), q, res, len(s.events()))
		}
		rec.mu.Lock()
		rec.declineAuth = false
		rec.mu.Unlock()
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
		if o.Payments[0].Provider != "rec" || o.Number == "" {
			t.Errorf("checkout once accepted: %+v", o)
		}
	})
}

// TestCheckoutRecovery: a checkout whose process died after the
// authorisation and before its transaction committed leaves its attempt
// behind; the recovery job voids that authorisation (the same one, asked
// again under the same key). Checkouts that complete or fail leave none.
func TestCheckoutRecovery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		rec := &recorder{}
		s := newShop(t, db, withProvider(rec))
		ctx := context.Background()
		attempts := func() int { return attemptsLeft(t, db) }
		p := s.product("C", "10.00", 5)
		body := checkoutBody(s.cart(s.API, p, 1))
		body["paymentId"] = "rec"
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
		rec.mu.Lock()
		rec.declineAuth = true
		rec.mu.Unlock()
		body = checkoutBody(s.cart(s.API, p, 1))
		body["paymentId"] = "rec"
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Expect(t, 402, "payment_failed")
		if n := attempts(); n != 0 {
			t.Fatalf("%d attempts left by a checkout that completed and one refused, want none", n)
		}
		rec.mu.Lock()
		rec.declineAuth = false
		rec.mu.Unlock()

		// The "crash": the attempt recorded, the payment authorised, no
		// transaction.
		r, err := s.App.Order.BeginCheckout(ctx, "rec", payment.AuthorizeRequest{IdempotencyKey: "checkout-crashed", CartID: "c",
			Amount: 1000, Currency: "USD", Precision: 2, Data: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(r.OrderNumber); n <= 1001 {
			t.Errorf("attempt's order number %q, want one after 1001", r.OrderNumber)
		}
		a, err := rec.Authorize(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.App.Order.RecoverCheckouts(ctx); err != nil || n != 0 {
			t.Errorf("recovery of a recent attempt: %d, %v; want it left alone", n, err)
		}
		s.App.Order.RecoverAfter = time.Nanosecond
		// Times are kept to the millisecond: an attempt made in the
		// current millisecond is not yet older than RecoverAfter.
		time.Sleep(2 * time.Millisecond)
		if n, err := s.App.Order.RecoverCheckouts(ctx); err != nil || n != 1 {
			t.Fatalf("recovery: %d, %v; want 1 attempt voided", n, err)
		}
		rec.mu.Lock()
		voids := append([]string(nil), rec.voids...)
		rec.mu.Unlock()
		if len(voids) != 1 || voids[0] != "checkout-crashed:void "+a.Reference {
			t.Errorf("voids %v, want the crashed authorisation's, once", voids)
		}
		if n := attempts(); n != 0 {
			t.Errorf("%d attempts left after recovery", n)
		}
	})
}

// attemptCounter is a provider that counts, when it is asked to
// authorise, the checkout attempts recorded.
type attemptCounter struct {
	manual.Provider
	db     *sqldb.DB
	local  bool
	mu     sync.Mutex
	counts []int
}

func (a *attemptCounter) Local() bool { return a.local }

func (a *attemptCounter) Authorize(ctx context.Context, q payment.AuthorizeRequest) (payment.Authorization, error) {
	var n int
	if err := a.db.QueryRow(ctx, `SELECT COUNT(*) FROM checkout_attempts`).Scan(&n); err != nil {
		return payment.Authorization{}, err
	}
	a.mu.Lock()
	a.counts = append(a.counts, n)
	a.mu.Unlock()
	return a.Provider.Authorize(ctx, q)
}

// TestLocalProviderRecordsNoAttempt: a checkout with a remote provider
// records its attempt (and the order's number, which the provider gets)
// before it authorises; with a local one (manual) it records none, and
// the order's number is allocated in the checkout's transaction, still
// after the numbers given before.
func TestLocalProviderRecordsNoAttempt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		remote, local := &attemptCounter{db: db}, &attemptCounter{db: db, local: true}
		s := newShop(t, db, func(o *app.Options) {
			o.PaymentProviders = map[string]payment.Provider{"remote": remote, "local": local}
		})
		p := s.product("L", "10.00", 10)
		var numbers []int
		for _, id := range []string{"remote", "local", "remote", "local"} {
			body := checkoutBody(s.cart(s.API, p, 1))
			body["paymentId"] = id
			var o order.Order
			s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
			n, err := strconv.Atoi(o.Number)
			if err != nil {
				t.Fatal(err)
			}
			numbers = append(numbers, n)
		}
		if fmt.Sprint(remote.counts) != "[1 1]" || fmt.Sprint(local.counts) != "[0 0]" {
			t.Errorf("attempts recorded when authorising: remote %v, local %v; want [1 1] and [0 0]", remote.counts, local.counts)
		}
		for i, n := range numbers {
			if (i == 0 && n != 1001) || (i > 0 && n <= numbers[i-1]) {
				t.Errorf("order numbers %v, want strictly increasing from 1001", numbers)
				break
			}
		}
		if left := attemptsLeft(t, db); left != 0 {
			t.Errorf("%d attempts left, want none", left)
		}
	})
}
