package shipping_test

import (
	"context"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestMethodsAcrossProcesses: two services over one database (two
// processes sharing it), both answering from their copy of the methods in
// memory. A method created through one is offered by it at once and by
// the other within the refresh interval; a removal likewise.
func TestMethodsAcrossProcesses(t *testing.T) {
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		ctx := context.Background()
		one := shipping.NewService(sqldb.NewShippingStore(a), nil)
		two := shipping.NewService(sqldb.NewShippingStore(b), nil)
		// offered lists the ids of the methods srv offers for Hawaii in USD.
		offered := func(srv *shipping.Service) string {
			t.Helper()
			av, err := srv.Available(ctx, "US", "Hawaii", "USD")
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(av))
			for i, m := range av {
				ids[i] = m.ID
			}
			return strings.Join(ids, ",")
		}
		// rateCode is the error code of srv's rate for method id.
		rateCode := func(srv *shipping.Service, id string) string {
			_, err := srv.Rate(ctx, id, "US", "Hawaii", "USD")
			return commerce.ErrorCode(err)
		}
		if x, y := offered(one), offered(two); x != "" || y != "" {
			t.Fatalf("no methods yet: got %q and %q", x, y)
		}
		m, err := two.Create(ctx, decodeInput(t, sampleSameDay))
		if err != nil {
			t.Fatal(err)
		}
		if got := offered(two); got != m.ID {
			t.Errorf("the process that created the method offers %q, want it at once", got)
		}
		testdb.Eventually(t, "the other process after the create", m.ID, func() string { return offered(one) })
		if code := rateCode(one, m.ID); code != "" {
			t.Errorf("rate of the new method: %s", code)
		}
		if got, err := one.Info(ctx, shipping.InfoInput{ID: m.ID}); err != nil || got.Title != m.Title {
			t.Errorf("info: %+v, %v", got, err)
		}

		if _, err := one.Remove(ctx, shipping.RemoveInput{ID: m.ID}); err != nil {
			t.Fatal(err)
		}
		if got := offered(one); got != "" {
			t.Errorf("the process that removed the method offers %q, want none at once", got)
		}
		if code := rateCode(one, m.ID); code != commerce.EInvalidShippingMethod {
			t.Errorf("rate of the removed method: %q, want %s", code, commerce.EInvalidShippingMethod)
		}
		testdb.Eventually(t, "the other process after the removal", "", func() string { return offered(two) })
		testdb.Eventually(t, "info on the other process after the removal", commerce.EShippingNotFound, func() string {
			_, err := two.Info(ctx, shipping.InfoInput{ID: m.ID})
			return commerce.ErrorCode(err)
		})
	})
}
