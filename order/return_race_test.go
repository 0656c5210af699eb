package order_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestConcurrentReturnRequests: 50 return.request at once, through two
// processes, each for 1 of the 3 units shipped: exactly 3 succeed, the
// others are return_exceeds_quantity, and the order lists 3 returns.
func TestConcurrentReturnRequests(t *testing.T) {
	twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
		cust := s.customer("c1")
		o, _ := s.shipped(cust, 3)
		body := func(int) map[string]any {
			return map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}}
		}
		res := parallel(t, servers, 50, cust, constPath("/order/v1/return.request"), body)
		ok := 0
		for _, r := range res {
			switch {
			case r.Status == 200:
				ok++
			case r.Error != "return_exceeds_quantity":
				t.Errorf("answer %d %s: want 200 or return_exceeds_quantity", r.Status, r.Error)
			}
		}
		if ok != 3 {
			t.Errorf("%d returns made, want 3 (the units shipped)", ok)
		}
		if cur := s.info(o.ID); len(cur.Returns) != 3 {
			t.Errorf("order lists %d returns, want 3", len(cur.Returns))
		}
	})
}

// TestReturnRefundRacesOrderRefund: return.refund (200.00 for 2 units)
// and 10 order.refund of 20.00 at once, through two processes, on 325.00
// captured: never more refunded than captured, and exactly what the
// successes add up to.
func TestReturnRefundRacesOrderRefund(t *testing.T) {
	twoProcesses(t, func(t *testing.T, s *shop, servers []*apitest.Server) {
		cust := s.customer("c1")
		o, _ := s.shipped(cust, 3)
		r := s.ret(cust, "request", map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 2}}})
		s.ret(s.Admin, "receive", map[string]any{"id": r.ID})
		path := func(i int) string {
			if i == 0 {
				return "/order/v1/return.refund"
			}
			return "/order/v1/order.refund"
		}
		body := func(i int) map[string]any {
			if i == 0 {
				return map[string]any{"id": r.ID}
			}
			return map[string]any{"id": o.ID, "amount": 20}
		}
		res := parallel(t, servers, 11, s.Admin, path, body)
		var want int64
		for i, x := range res {
			switch {
			case x.Status == 200 && i == 0:
				want += 20000
			case x.Status == 200:
				want += 2000
			case x.Error != "refund_exceeds_captured" && x.Error != "concurrent_modification":
				t.Errorf("answer %d %s: want 200, refund_exceeds_captured or concurrent_modification", x.Status, x.Error)
			}
		}
		cur := s.info(o.ID)
		p := cur.Payments[0]
		if p.Refunded.Amount != want || p.Refunded.Amount > p.Captured.Amount || len(cur.Pending) != 0 {
			t.Errorf("refunded %d of %d captured, want %d (the successes)", p.Refunded.Amount, p.Captured.Amount, want)
		}
		var sum int64
		for _, f := range cur.Refunds {
			sum += f.Amount.Amount
		}
		if sum != p.Refunded.Amount {
			t.Errorf("refunds add up to %d, payment refunded %d", sum, p.Refunded.Amount)
		}
	})
}

// TestReceiveRestocksOnce: return.receive retried with the same
// Idempotency-Key gets the first answer and restocks nothing more; asked
// again without it, invalid_return_state ({status}) and nothing changes.
func TestReceiveRestocksOnce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		cust := s.customer("c1")
		o, p := s.shipped(cust, 3)
		r := s.ret(cust, "request", map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 2}}})
		body := map[string]any{"id": r.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 2, "warehouseId": "W1"}}}
		status1, raw1, _ := keyedPost(t, s, "/order/v1/return.receive", body, "receive-1")
		status2, raw2, replayed := keyedPost(t, s, "/order/v1/return.receive", body, "receive-1")
		if status1 != 200 || status2 != 200 || string(raw1) != string(raw2) || !replayed {
			t.Fatalf("answers %d and %d (replayed %v): want the first answer replayed", status1, status2, replayed)
		}
		s.Post(t, "/order/v1/return.receive", s.Admin, body).Expect(t, 400, "invalid_return_state")
		if q, _ := s.stock(p); q != 9 {
			t.Errorf("stock %d, want 9 (7 + 2 restocked once)", q)
		}
		if it := s.info(o.ID).Items[0]; it.ReturnedQuantity != 2 {
			t.Errorf("returnedQuantity %d, want 2", it.ReturnedQuantity)
		}
	})
}

// TestReturnRefundRecovery: the provider refunds and its answer is lost
// (then the process "dies": the operation stays pending); the recovery
// job calls it again with the same key and applies it once: one refund on
// the order, the return REFUNDED, one RETURNS REFUND event.
func TestReturnRefundRecovery(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		l := newLossy()
		clk := &clock{t: time.Now()}
		s := newShop(t, db, withProvider(l), func(o *app.Options) { o.Now = clk.Now })
		cust := s.customer("c1")
		cartID := s.cart(cust, s.product("R1", "100.00", 10), 3)
		body := checkoutBody(cartID)
		body["paymentId"] = "rec"
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", cust, body).Must(t).Decode(t, "order", &o)
		s.op("capture", map[string]any{"id": o.ID})
		s.op("fulfill", map[string]any{"id": o.ID})
		r := s.ret(cust, "request", map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
		s.ret(s.Admin, "receive", map[string]any{"id": r.ID})

		l.loseNext("refund", 1)
		s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": r.ID}).Expect(t, 402, "payment_failed")
		if len(l.made("refund")) != 1 {
			t.Fatalf("refunds made %v: want 1 (its answer lost)", l.made("refund"))
		}
		cur := s.info(o.ID)
		if cur.Payments[0].Refunded.Amount != 0 || len(cur.Refunds) != 0 {
			t.Fatalf("order %+v: nothing recorded yet", cur.Payments[0])
		}
		clk.Advance(order.DefaultRecoverAfter + time.Minute)
		n, err := s.App.Order.Recover(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("recover: %d, %v: want 1 finished", n, err)
		}
		if n, _ := s.App.Order.Recover(context.Background()); n != 0 {
			t.Fatalf("second recovery finished %d, want 0", n)
		}
		cur = s.info(o.ID)
		if cur.Payments[0].Refunded.Amount != 10000 || len(cur.Refunds) != 1 || len(l.made("refund")) != 1 {
			t.Errorf("refunded %d in %d refunds under keys %v: want 100.00 once, one key", cur.Payments[0].Refunded.Amount, len(cur.Refunds), l.made("refund"))
		}
		var got order.Return
		s.Get(t, "/order/v1/return.info?id="+r.ID, s.Admin).Must(t).Decode(t, "return", &got)
		if got.Status != "REFUNDED" || got.Refund.Amount.Amount != 10000 {
			t.Errorf("return %+v: want REFUNDED 100.00", got)
		}
		evs := s.channelEvents("RETURNS")
		if n := count(evs, "REFUND"); n != 1 {
			t.Errorf("RETURNS events %v: want one REFUND", evs)
		}
		// Asked again: the return is refunded, nothing more moves.
		s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": r.ID}).Expect(t, 400, "invalid_return_state")
	})
}

func count(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// keyedPost sends an admin POST with an Idempotency-Key and returns the
// status, the body and whether it was replayed.
func keyedPost(t *testing.T, s *shop, path string, body any, key string) (int, []byte, bool) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.Admin)
	req.Header.Set("Idempotency-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, raw, res.Header.Get("Idempotent-Replayed") == "true"
}

// TestOrderRefundLeavesAReturnsRefund: a return's refund whose answer was
// lost stays the return's: an order.refund of the same amount and items
// is another refund (another key), not the return's finished as a plain
// refund; asked again, return.refund finishes its own (REFUNDED).
func TestOrderRefundLeavesAReturnsRefund(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		l := newLossy()
		s := newShop(t, db, withProvider(l))
		cust := s.customer("c1")
		body := checkoutBody(s.cart(cust, s.product("L1", "100.00", 10), 3))
		body["paymentId"] = "rec"
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", cust, body).Must(t).Decode(t, "order", &o)
		s.op("capture", map[string]any{"id": o.ID})
		s.op("fulfill", map[string]any{"id": o.ID})
		r := s.ret(cust, "request", map[string]any{"orderId": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
		s.ret(s.Admin, "receive", map[string]any{"id": r.ID})
		l.loseNext("refund", 1)
		s.Post(t, "/order/v1/return.refund", s.Admin, map[string]any{"id": r.ID}).Expect(t, 402, "payment_failed")
		got := s.op("refund", map[string]any{"id": o.ID, "amount": 100, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
		if keys := l.made("refund"); len(keys) != 2 || len(got.Refunds) != 1 || got.Refunds[0].Reason != "" {
			t.Fatalf("refund keys %v, refunds %+v: want the order's own refund under a second key", keys, got.Refunds)
		}
		done := s.ret(s.Admin, "refund", map[string]any{"id": r.ID})
		cur := s.info(o.ID)
		if done.Status != "REFUNDED" || len(cur.Refunds) != 2 || cur.Payments[0].Refunded.Amount != 20000 || len(l.made("refund")) != 2 {
			t.Errorf("return %s, refunds %d, refunded %d, keys %v: want REFUNDED, 2 refunds of 100.00, 2 keys",
				done.Status, len(cur.Refunds), cur.Payments[0].Refunded.Amount, l.made("refund"))
		}
	})
}
