package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
)

// Admin is the suite of the admin app's reads (sqldb.AdminReads).
func Admin(t *testing.T, open Opener) {
	t.Run("orders since", func(t *testing.T) { adminOrdersSince(t, open(t)) })
}

func adminOrdersSince(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	from := orderT0
	total := func(o *order.Order, amount int64, currency string, precision int) *order.Order {
		o.Currency = currency
		o.Totals.Total = money.Money{Amount: amount, Currency: currency, Precision: precision}
		return o
	}
	cancelled := newOrder(1004, "c1", order.StatusCancelled, from.Add(3*time.Hour))
	insertOrders(t, s,
		total(newOrder(1001, "c1", order.StatusPlaced, from.Add(-time.Millisecond)), 99999, "USD", 2), // before: not counted
		total(newOrder(1002, "c1", order.StatusPlaced, from), 1050, "USD", 2),
		total(newOrder(1003, "c2", order.StatusCompleted, from.Add(time.Hour)), 2025, "USD", 2),
		total(cancelled, 700, "USD", 2), // counted, its total not
		total(newOrder(1005, "c3", order.StatusPlaced, from.Add(2*time.Hour)), 1500, "JPY", 0),
		total(newOrder(1006, "c3", order.StatusPlaced, from.Add(4*time.Hour)), 123456, "BHD", 3),
	)
	got, err := sqldb.NewAdminReads(db).OrdersSince(context.Background(), from)
	if err != nil {
		t.Fatal(err)
	}
	want := []sqldb.OrderSums{{Currency: "BHD", Count: 1, Revenue: 123456, Precision: 3}, {Currency: "JPY", Count: 1, Revenue: 1500},
		{Currency: "USD", Count: 3, Revenue: 3075, Precision: 2}}
	if len(got) != len(want) {
		t.Fatalf("OrdersSince: %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("OrdersSince[%d]: %+v, want %+v", i, got[i], want[i])
		}
	}
	none, err := sqldb.NewAdminReads(db).OrdersSince(context.Background(), from.Add(24*time.Hour))
	if err != nil || len(none) != 0 {
		t.Errorf("OrdersSince a time after every order: %+v, %v; want none", none, err)
	}
}
