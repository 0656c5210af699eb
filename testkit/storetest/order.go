package storetest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/sqldb"
)

// Order is the suite of the order store (order.Store and order.Tx):
// numbers, records, filters, locks, notifications and pending operations.
func Order(t *testing.T, open Opener) {
	t.Run("numbers", func(t *testing.T) { orderNumbers(t, open(t)) })
	t.Run("records", func(t *testing.T) { orderRecords(t, open(t)) })
	t.Run("list", func(t *testing.T) { orderList(t, open(t)) })
	t.Run("notifications", func(t *testing.T) { orderNotifications(t, open(t)) })
	t.Run("lock serialises changes", func(t *testing.T) { orderLock(t, open(t)) })
	t.Run("checkout attempts", func(t *testing.T) { orderAttempts(t, open(t)) })
}

var orderT0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// newOrder returns an order record with the number.
func newOrder(number int64, customer, status string, created time.Time) *order.Order {
	m := func(v int64) money.Money { return money.Money{Amount: v, Currency: "USD", Precision: 2} }
	return &order.Order{ID: commerce.NewID(), Number: strconv.FormatInt(number, 10), CartID: commerce.NewID(), CustomerID: customer,
		Status: status, PaymentStatus: order.PaymentAuthorized, FulfillmentStatus: order.NotShipped, Currency: "USD",
		Country: "US", Channel: "WEB", Coupons: []string{}, Version: 1, CreatedAt: created, UpdatedAt: created,
		Items: []*order.Item{{ID: "i1", ProductID: "p1", Quantity: 2, UnitPrice: m(500), Total: m(1000),
			Allocations: []order.Allocation{{WarehouseID: "W1", Quantity: 2}}}},
		Payments: []*order.Payment{{ID: "pay", Provider: "manual", Status: order.PayAuthorized, Amount: m(1000),
			Reference: "ref-" + strconv.FormatInt(number, 10)}},
		Fulfillments: []*order.Fulfillment{}, Refunds: []*order.Refund{}}
}

func insertOrders(t *testing.T, s *sqldb.OrderStore, orders ...*order.Order) {
	t.Helper()
	err := s.Update(context.Background(), func(tx order.Tx) error {
		for _, o := range orders {
			if err := tx.Insert(context.Background(), o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func orderNumbers(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	first, err := s.NextNumber(ctx)
	if err != nil || first != order.FirstNumber {
		t.Fatalf("first number %d, %v; want %d", first, err, order.FirstNumber)
	}
	// A number is never given again, even after a rolled back transaction
	// used it, and numbers increase.
	_ = db.Update(ctx, func(tx *sqldb.Tx) error { return errors.New("roll back") })
	var mu sync.Mutex
	seen := map[int64]bool{first: true}
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			n, err := s.NextNumber(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || seen[n] || n <= first {
				t.Errorf("number %d, %v: repeated or not after %d", n, err, first)
			}
			seen[n] = true
		})
	}
	wg.Wait()
	last, _ := s.NextNumber(ctx)
	for n := range seen {
		if n >= last {
			t.Errorf("number %d given before %d", n, last)
		}
	}
	if c := count(t, db, `SELECT COUNT(*) FROM order_numbers`); c != 0 {
		t.Errorf("%d rows left in order_numbers, want none", c)
	}
}

func orderRecords(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	o := newOrder(1001, "ANON", order.StatusPlaced, orderT0)
	insertOrders(t, s, o)
	dup := newOrder(1001, "ANON", order.StatusPlaced, orderT0)
	err := s.Update(ctx, func(tx order.Tx) error { return tx.Insert(ctx, dup) })
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Errorf("a second order with number 1001: %v, want duplicate_key", err)
	}
	if _, err := s.Order(ctx, "nope"); commerce.ErrorCode(err) != order.ENotFound {
		t.Errorf("unknown id: %v, want order_not_found", err)
	}
	// Save keeps the document, the internal data and the columns; an
	// error rolls everything back, events included.
	err = s.Update(ctx, func(tx order.Tx) error {
		cur, err := tx.Lock(ctx, o.ID)
		if err != nil {
			return err
		}
		cur.Status, cur.Version = order.StatusCancelled, 2
		cur.Items[0].Restocked = 1
		cur.Pending = []*order.Operation{{ID: "op", Kind: order.OpRefund, Key: "k", Amount: 5, Created: orderT0}}
		if err := tx.Save(ctx, cur); err != nil {
			return err
		}
		e, _ := event.New(event.Orders, order.EventCancel, orderT0, map[string]any{"order": cur})
		tx.Emit(e)
		return errors.New("roll back")
	})
	if err == nil {
		t.Fatal("want the error back")
	}
	got, err := s.Order(ctx, o.ID)
	if err != nil || got.Status != order.StatusPlaced || got.Version != 1 || len(got.Pending) != 0 {
		t.Fatalf("after a rolled back change: %+v, %v", got, err)
	}
	if c := count(t, db, `SELECT COUNT(*) FROM events WHERE channel = 'ORDERS'`); c != 0 {
		t.Errorf("%d events of a rolled back change", c)
	}
	err = s.Update(ctx, func(tx order.Tx) error {
		cur, err := tx.Lock(ctx, o.ID)
		if err != nil {
			return err
		}
		cur.Version = 2
		cur.Items[0].Restocked = 1
		cur.Pending = []*order.Operation{{ID: "op", Kind: order.OpRefund, Key: "k", Amount: 5, Created: orderT0}}
		return tx.Save(ctx, cur)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = s.Order(ctx, o.ID)
	if got.Version != 2 || len(got.Pending) != 1 || got.Pending[0].Key != "k" || got.Items[0].Restocked != 1 ||
		len(got.Items[0].Allocations) != 1 || got.Number != "1001" || !got.CreatedAt.Equal(orderT0) {
		t.Errorf("saved: %+v item %+v", got, got.Items[0])
	}
	ids, err := s.PendingSince(ctx, orderT0, 10)
	if err != nil || len(ids) != 1 || ids[0] != o.ID {
		t.Errorf("pending since t0: %v, %v", ids, err)
	}
	if ids, _ := s.PendingSince(ctx, orderT0.Add(-time.Second), 10); len(ids) != 0 {
		t.Errorf("pending before t0: %v, want none", ids)
	}
	if id, err := s.OrderIDByPayment(ctx, "manual", "ref-1001"); err != nil || id != o.ID {
		t.Errorf("by payment: %q, %v", id, err)
	}
	if id, err := s.OrderIDByPayment(ctx, "stripe", "ref-1001"); err != nil || id != "" {
		t.Errorf("by another provider's payment: %q, %v; want none", id, err)
	}
}

func orderList(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	var all []*order.Order
	for i := range 6 {
		customer := []string{"ada", "bob"}[i%2]
		status := []string{order.StatusPlaced, order.StatusCancelled, order.StatusCompleted}[i%3]
		all = append(all, newOrder(int64(1001+i), customer, status, orderT0.Add(time.Duration(i)*time.Hour)))
	}
	insertOrders(t, s, all...)
	numbers := func(f order.Filter) []string {
		t.Helper()
		if f.Limit == 0 {
			f.Limit = 100
		}
		os, err := s.Orders(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range os {
			out = append(out, o.Number)
		}
		return out
	}
	from, to := orderT0.Add(time.Hour), orderT0.Add(3*time.Hour)
	for _, tc := range []struct {
		name string
		f    order.Filter
		want string
	}{
		{"all, newest first", order.Filter{}, "[1006 1005 1004 1003 1002 1001]"},
		{"customer", order.Filter{CustomerIDs: []string{"ada"}}, "[1005 1003 1001]"},
		{"status", order.Filter{Statuses: []string{order.StatusCancelled, order.StatusCompleted}}, "[1006 1005 1003 1002]"},
		{"customer and status", order.Filter{CustomerIDs: []string{"bob"}, Statuses: []string{order.StatusPlaced}}, "[1004]"},
		{"number", order.Filter{Numbers: []string{"1002", "x"}}, "[1002]"},
		{"dates", order.Filter{CreatedFrom: &from, CreatedTo: &to}, "[1004 1003 1002]"},
		{"page", order.Filter{Limit: 2, Skip: 1}, "[1005 1004]"},
		{"payment status", order.Filter{PaymentStatuses: []string{order.PaymentPaid}}, "[]"},
	} {
		if got := fmtList(numbers(tc.f)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func fmtList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

func orderNotifications(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	see := func(provider, id string) bool {
		var seen bool
		if err := s.Update(ctx, func(tx order.Tx) (err error) { seen, err = tx.SeeNotification(ctx, provider, id); return err }); err != nil {
			t.Fatal(err)
		}
		return seen
	}
	if see("stripe", "evt_1") || !see("stripe", "evt_1") || see("other", "evt_1") {
		t.Error("want evt_1 new, then seen, and new for another provider")
	}
	// Rolled back: not recorded.
	_ = s.Update(ctx, func(tx order.Tx) error {
		_, _ = tx.SeeNotification(ctx, "stripe", "evt_2")
		return errors.New("roll back")
	})
	if see("stripe", "evt_2") {
		t.Error("a rolled back notification was recorded")
	}
}

// orderLock: parallel read-modify-write changes of one order under Lock
// lose no update, whatever the database.
func orderLock(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	o := newOrder(1001, "ANON", order.StatusPlaced, orderT0)
	insertOrders(t, s, o)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			err := s.Update(ctx, func(tx order.Tx) error {
				cur, err := tx.Lock(ctx, o.ID)
				if err != nil {
					return err
				}
				cur.Version++
				cur.Items[0].ShippedQuantity++
				return tx.Save(ctx, cur)
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, _ := s.Order(ctx, o.ID)
	if got.Version != 11 || got.Items[0].ShippedQuantity != 10 {
		t.Errorf("after 10 changes: version %d, shipped %d; want 11 and 10", got.Version, got.Items[0].ShippedQuantity)
	}
}

// orderAttempts: BeginCheckout allocates a number and records the
// attempt with it; EndCheckout (alone, or in a transaction) forgets it;
// StaleCheckouts finds the old ones.
func orderAttempts(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	begin := func(key string, at time.Time) int64 {
		n, err := s.BeginCheckout(ctx, &order.Attempt{Provider: "manual", Created: at,
			Request: payment.AuthorizeRequest{IdempotencyKey: key, CartID: "c-" + key, Amount: 100, Currency: "USD", Precision: 2, Data: []byte(`{"a":1}`)}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n1, n2 := begin("k1", orderT0), begin("k2", orderT0.Add(time.Minute))
	if n1 != order.FirstNumber || n2 <= n1 {
		t.Errorf("numbers %d, %d; want %d then more", n1, n2, order.FirstNumber)
	}
	stale, err := s.StaleCheckouts(ctx, orderT0, 10)
	if err != nil || len(stale) != 1 || stale[0].Request.IdempotencyKey != "k1" || stale[0].Request.OrderNumber != strconv.FormatInt(n1, 10) ||
		stale[0].Provider != "manual" || string(stale[0].Request.Data) != `{"a":1}` || !stale[0].Created.Equal(orderT0) {
		t.Fatalf("stale at t0: %+v, %v", stale, err)
	}
	if err := s.Update(ctx, func(tx order.Tx) error { return tx.EndCheckout(ctx, "k2") }); err != nil {
		t.Fatal(err)
	}
	if err := s.EndCheckout(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if stale, _ := s.StaleCheckouts(ctx, orderT0.Add(time.Hour), 10); len(stale) != 0 {
		t.Errorf("attempts left: %+v", stale)
	}
}
