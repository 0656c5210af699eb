package storetest

import (
	"context"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
)

// Returns is the suite of the returns' storage (order.Store and order.Tx):
// numbers, records with what is kept beside them, filters, not found.
func Returns(t *testing.T, open Opener) {
	t.Run("numbers", func(t *testing.T) { returnNumbers(t, open(t)) })
	t.Run("records", func(t *testing.T) { returnRecords(t, open(t)) })
}

func returnNumbers(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	var got []int64
	for range 3 {
		err := s.Update(ctx, func(tx order.Tx) error {
			n, err := tx.NextReturnNumber(ctx)
			got = append(got, n)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A rolled back allocation may leave a gap; numbers never go back.
	_ = s.Update(ctx, func(tx order.Tx) error {
		if _, err := tx.NextReturnNumber(ctx); err != nil {
			return err
		}
		return commerce.Errorf(commerce.EInternal, "roll back")
	})
	_ = s.Update(ctx, func(tx order.Tx) error {
		n, err := tx.NextReturnNumber(ctx)
		got = append(got, n)
		return err
	})
	if got[0] != order.FirstNumber || got[1] != got[0]+1 || got[2] != got[1]+1 || got[3] <= got[2] {
		t.Errorf("numbers %v: want 1001, 1002, 1003, then higher", got)
	}
	if order.FormatReturnNumber(got[0]) != "R1001" {
		t.Errorf("number %q, want R1001", order.FormatReturnNumber(got[0]))
	}
}

func returnRecords(t *testing.T, db *sqldb.DB) {
	s := sqldb.NewOrderStore(db)
	ctx := context.Background()
	m := money.Money{Amount: 500, Currency: "USD", Precision: 2}
	mk := func(n int64, orderID, customer string) *order.Return {
		return &order.Return{ID: commerce.NewID(), Number: order.FormatReturnNumber(n), OrderID: orderID, CustomerID: customer,
			Status: order.ReturnRequested, Items: []*order.ReturnItem{{ItemID: "i1", Quantity: 1, Reason: order.ReasonOther, WarehouseID: "W1"}},
			CreatedAt: orderT0, UpdatedAt: orderT0, Version: 1}
	}
	a, b, c := mk(1001, "o1", "c1"), mk(1002, "o1", "c1"), mk(1003, "o2", "c2")
	a.Exchange = &order.Exchange{Items: []order.ExchangeItem{{ProductID: "p2", Quantity: 1, WarehouseID: "W1", UnitPrice: m}},
		CartID: "cart-x", Value: 605, SKUs: map[string]string{"p2": "SKU2"}}
	err := s.Update(ctx, func(tx order.Tx) error {
		for _, r := range []*order.Return{a, b, c} {
			if err := tx.InsertReturn(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dup := mk(1001, "o3", "c3")
	if err := s.Update(ctx, func(tx order.Tx) error { return tx.InsertReturn(ctx, dup) }); commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Errorf("a taken number: %v, want duplicate_key", err)
	}
	got, err := s.Return(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != "R1001" || got.Exchange == nil || got.Exchange.CartID != "cart-x" || got.Exchange.Value != 605 ||
		got.Exchange.SKUs["p2"] != "SKU2" || got.Exchange.Items[0].UnitPrice != m || !got.CreatedAt.Equal(orderT0) {
		t.Errorf("return %+v (exchange %+v): want it as stored, with what is kept beside it", got, got.Exchange)
	}
	if _, err := s.Return(ctx, "nope"); commerce.ErrorCode(err) != commerce.EReturnNotFound {
		t.Errorf("unknown: %v, want return_not_found", err)
	}
	err = s.Update(ctx, func(tx order.Tx) error {
		r, err := tx.LockReturn(ctx, b.ID)
		if err != nil {
			return err
		}
		r.Status, r.Version = order.ReturnReceived, 2
		if err := tx.SaveReturn(ctx, r); err != nil {
			return err
		}
		list, err := tx.OrderReturns(ctx, "o1")
		if err != nil {
			return err
		}
		if len(list) != 2 || list[0].ID != a.ID || list[1].Status != order.ReturnReceived {
			t.Errorf("the order's returns %v: want a then b (RECEIVED)", list)
		}
		_, err = tx.LockReturn(ctx, "nope")
		if commerce.ErrorCode(err) != commerce.EReturnNotFound {
			t.Errorf("lock unknown: %v, want return_not_found", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    order.ReturnFilter
		want []string
	}{
		{"all", order.ReturnFilter{Limit: 10}, []string{a.ID, b.ID, c.ID}},
		{"order", order.ReturnFilter{OrderIDs: []string{"o2"}, Limit: 10}, []string{c.ID}},
		{"customer and status", order.ReturnFilter{CustomerIDs: []string{"c1"}, Statuses: []string{order.ReturnReceived}, Limit: 10}, []string{b.ID}},
		{"page", order.ReturnFilter{Limit: 1, Skip: 1}, []string{b.ID}},
	} {
		list, err := s.Returns(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range list {
			ids = append(ids, r.ID)
		}
		if len(ids) != len(tc.want) || (len(ids) > 0 && ids[0] != tc.want[0]) || (len(ids) > 1 && ids[len(ids)-1] != tc.want[len(tc.want)-1]) {
			t.Errorf("%s: %v, want %v", tc.name, ids, tc.want)
		}
	}
}
