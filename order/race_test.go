package order_test

import (
	"context"
	"maps"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/payment/manual"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// twoProcesses runs fn on two services sharing one database (two pools,
// as two processes would have), both with the options opts: one SQLite
// file, then one PostgreSQL database (skipped without
// COMMERCE_TEST_POSTGRES_URL).
func twoProcesses(t *testing.T, fn func(t *testing.T, s *shop, servers []*apitest.Server), opts ...func(*app.Options)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "commerce.db")
		s := newShop(t, testdb.SQLiteAt(t, path), opts...)
		fn(t, s, []*apitest.Server{s.Server, apitest.New(t, testdb.SQLiteAt(t, path), opts...)})
	})
	t.Run("postgres", func(t *testing.T) {
		url := testdb.PostgresURL(t)
		s := newShop(t, testdb.PostgresAt(t, url), opts...)
		fn(t, s, []*apitest.Server{s.Server, apitest.New(t, testdb.PostgresAt(t, url), opts...)})
	})
}

// parallel sends n requests at once (path, body(i)) with the token,
// through the servers in turn, and returns the responses.
func parallel(t *testing.T, servers []*apitest.Server, n int, token string, path func(i int) string, body func(i int) map[string]any) []apitest.Response {
	out := make([]apitest.Response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = servers[i%len(servers)].Post(t, path(i), token, body(i))
		})
	}
	close(start)
	wg.Wait()
	return out
}

func constPath(p string) func(int) string { return func(int) string { return p } }

// TestConcurrentRefunds: 20 refunds of 20.00 at once, through two
// processes, on 225.00 captured: exactly 11 succeed, the others are
// refund_exceeds_captured, and the order records 220.00 refunded.
func TestConcurrentRefunds(t *testing.T) {
	twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
		o, _ := s.order(s.API, 2)
		s.op("capture", map[string]any{"id": o.ID})
		rs := parallel(t, servers, 20, s.Admin, constPath("/order/v1/order.refund"),
			func(int) map[string]any { return map[string]any{"id": o.ID, "amount": 20} })
		ok := 0
		for _, r := range rs {
			switch {
			case r.OK:
				ok++
			case r.Error != "refund_exceeds_captured" && r.Error != "concurrent_modification":
				t.Errorf("refund: %d %s", r.Status, r.Raw)
			}
		}
		var got order.Order
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if got.Payments[0].Refunded.Amount != int64(ok)*2000 || len(got.Refunds) != ok || ok > 11 {
			t.Errorf("%d refunds succeeded, order shows %d refunded in %d refunds: want them equal, at most 220.00", ok, got.Payments[0].Refunded.Amount, len(got.Refunds))
		}
		if ok != 11 {
			t.Errorf("%d refunds succeeded, want 11 (the 12th would exceed 225.00)", ok)
		}
	})
}

// TestCancelRacesFulfil: a cancel and a fulfil at once: exactly one
// wins, and the stock shows which.
func TestCancelRacesFulfil(t *testing.T) {
	twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
		for range 5 {
			o, p := s.order(s.API, 3)
			rs := parallel(t, servers, 2, s.Admin, func(i int) string { return []string{"/order/v1/order.cancel", "/order/v1/order.fulfill"}[i] },
				func(int) map[string]any { return map[string]any{"id": o.ID} })
			if rs[0].OK == rs[1].OK {
				t.Fatalf("cancel %s / fulfil %s: want exactly one to win", rs[0].Raw, rs[1].Raw)
			}
			loser := rs[0]
			if rs[0].OK {
				loser = rs[1]
			}
			if loser.Error != "invalid_order_state" {
				t.Errorf("loser: %s, want invalid_order_state", loser.Raw)
			}
			var got order.Order
			s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
			q, _ := s.stock(p)
			switch {
			case rs[0].OK && (got.Status != "CANCELLED" || q != 10 || got.Items[0].ShippedQuantity != 0):
				t.Errorf("cancel won: order %s, shipped %d, stock %d; want CANCELLED, 0, 10", got.Status, got.Items[0].ShippedQuantity, q)
			case rs[1].OK && (got.Status != "PLACED" || q != 7 || got.FulfillmentStatus != "SHIPPED"):
				t.Errorf("fulfil won: order %s %s, stock %d; want PLACED SHIPPED, 7", got.Status, got.FulfillmentStatus, q)
			}
		}
	})
}

// TestConcurrentCancels: ten cancels of one order at once: one wins and
// the stock comes back once.
func TestConcurrentCancels(t *testing.T) {
	twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
		o, p := s.order(s.API, 4)
		rs := parallel(t, servers, 10, s.API, constPath("/order/v1/order.cancel"),
			func(int) map[string]any { return map[string]any{"id": o.ID} })
		ok := 0
		for _, r := range rs {
			if r.OK {
				ok++
			} else if r.Error != "invalid_order_state" {
				t.Errorf("cancel: %s", r.Raw)
			}
		}
		if q, res := s.stock(p); ok != 1 || q != 10 || res != 0 {
			t.Errorf("%d cancels won, stock %d (reserved %d); want 1 and 10", ok, q, res)
		}
	})
}

// TestConcurrentCheckoutNumbers: 200 checkouts of different carts at
// once, through two processes: 200 orders with 200 distinct numbers, all
// from 1001 on. With manual (a local provider) each number is allocated
// in its checkout's transaction; with a remote provider, before the
// authorisation, with the checkout attempt (BeginCheckout), and the
// provider is asked with that number; no attempt is left behind.
func TestConcurrentCheckoutNumbers(t *testing.T) {
	for _, remote := range []bool{false, true} {
		name, paymentID := "manual", "manual"
		var rec *numberRecorder
		var opts []func(*app.Options)
		if remote {
			name, paymentID, rec = "remote", "rec", &numberRecorder{}
			opts = append(opts, withProvider(rec))
		}
		t.Run(name, func(t *testing.T) {
			twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
				if rec != nil {
					rec.reset()
				}
				p := s.product("N", "10.00", 1000)
				const n = 200
				carts := make([]string, n)
				for i := range carts {
					carts[i] = s.cart(s.API, p, 1)
				}
				rs := parallel(t, servers, n, s.API, constPath("/cart/v1/cart.checkout"), func(i int) map[string]any {
					body := checkoutBody(carts[i])
					body["paymentId"] = paymentID
					return body
				})
				seen := map[string]bool{}
				for _, r := range rs {
					var o order.Order
					r.Must(t).Decode(t, "order", &o)
					if seen[o.Number] || len(o.Number) < 4 || o.Number < "1001" && len(o.Number) == 4 {
						t.Fatalf("number %q repeated or below 1001", o.Number)
					}
					seen[o.Number] = true
				}
				var list []order.Order
				s.Get(t, "/order/v1/order.list?limit=1000", s.Admin).Must(t).Decode(t, "data", &list)
				if len(list) != n || len(seen) != n {
					t.Errorf("%d orders listed, %d distinct numbers; want %d", len(list), len(seen), n)
				}
				if q, _ := s.stock(p); q != 1000-n {
					t.Errorf("stock %d, want %d", q, 1000-n)
				}
				if rec != nil {
					asked := rec.numbers()
					for _, o := range list {
						if asked[o.Payments[0].Reference] != o.Number {
							t.Errorf("order %s: the provider was asked to authorise %s with number %q", o.Number, o.Payments[0].Reference, asked[o.Payments[0].Reference])
						}
					}
					if left := attemptsLeft(t, s.DB); left != 0 {
						t.Errorf("%d checkout attempts left, want none", left)
					}
				}
			}, opts...)
		})
	}
}

// numberRecorder is a remote provider that authorises as manual does and
// records the order number each authorisation was asked with.
type numberRecorder struct {
	manual.Provider
	mu    sync.Mutex
	byRef map[string]string
}

func (r *numberRecorder) Local() bool { return false }

func (r *numberRecorder) Authorize(ctx context.Context, q payment.AuthorizeRequest) (payment.Authorization, error) {
	a, err := r.Provider.Authorize(ctx, q)
	if err == nil {
		r.mu.Lock()
		r.byRef[a.Reference] = q.OrderNumber
		r.mu.Unlock()
	}
	return a, err
}

func (r *numberRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byRef = map[string]string{}
}

func (r *numberRecorder) numbers() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.byRef)
}

// TestRecoveredCancelRestocksOnce: a cancel whose process died after its
// intent was recorded is finished by recovery jobs running at once (two
// processes): the stock comes back once, with one CANCEL event.
func TestRecoveredCancelRestocksOnce(t *testing.T) {
	twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
		o, p := s.order(s.API, 4)
		addPending(t, servers[1].DB, o.ID, &order.Operation{ID: "op1", Kind: order.OpCancel, Key: "order-" + o.ID + "-op1", Void: true,
			Created: time.Now().Add(-time.Hour).UTC()})
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				if _, err := servers[i%2].App.Order.Recover(context.Background()); err != nil {
					t.Errorf("recover: %v", err)
				}
			})
		}
		wg.Wait()
		var got order.Order
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &got)
		if q, res := s.stock(p); got.Status != "CANCELLED" || got.PaymentStatus != "VOIDED" || q != 10 || res != 0 {
			t.Errorf("after recovery: %s/%s, stock %d (reserved %d); want CANCELLED/VOIDED and 10", got.Status, got.PaymentStatus, q, res)
		}
		s.wantEvents(o.ID, "CREATE", "CANCEL")
	})
}
