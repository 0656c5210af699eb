package tax_test

import (
	"context"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/tax"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestTaxesAcrossProcesses: two services over one database (two processes
// sharing it), both computing a cart's taxes from their copy of the taxes
// in memory. A change through one is seen by it at once and by the other
// within the refresh interval: a new tax, a changed rate, a removal.
func TestTaxesAcrossProcesses(t *testing.T) {
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		ctx := context.Background()
		one := tax.NewService(sqldb.NewTaxStore(a), nil, nil)
		two := tax.NewService(sqldb.NewTaxStore(b), nil, nil)
		entries := []tax.Entry{{ID: "e", Quantity: 1, Amount: 10000, IsNetPrice: true, TaxCode: "vat"}}
		taxOf := func(s *tax.Service) int64 {
			t.Helper()
			r, err := s.Compute(ctx, entries, 2)
			if err != nil || len(r) != 1 {
				t.Fatalf("compute: %v, %v", r, err)
			}
			return r[0].Tax
		}
		// Both have read (and keep) the taxes: none for "vat" yet.
		if x, y := taxOf(one), taxOf(two); x != 0 || y != 0 {
			t.Fatalf("no taxes yet: got %d and %d", x, y)
		}
		vat, err := two.Create(ctx, tax.CreateInput{Fields: tax.Fields{Code: ptr("vat"), Class: ptr("default"), Title: ptr("VAT"), Rate: num("20")}})
		if err != nil {
			t.Fatal(err)
		}
		if got := taxOf(two); got != 2000 {
			t.Errorf("the process that created the tax computes %d, want 2000 at once", got)
		}
		testdb.Eventually(t, "the other process after the create", 2000, func() int64 { return taxOf(one) })

		if _, err := one.Update(ctx, tax.UpdateInput{ID: vat.ID, Fields: tax.Fields{Rate: num("10")}}); err != nil {
			t.Fatal(err)
		}
		if got := taxOf(one); got != 1000 {
			t.Errorf("the process that changed the rate computes %d, want 1000 at once", got)
		}
		testdb.Eventually(t, "the other process after the update", 1000, func() int64 { return taxOf(two) })

		if _, err := two.Remove(ctx, vat.ID); err != nil {
			t.Fatal(err)
		}
		testdb.Eventually(t, "the other process after the removal", 0, func() int64 { return taxOf(one) })
	})
}
