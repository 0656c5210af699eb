package rpc_test

import (
	"slices"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// Issue 9 defect 2 over the real service, on both stores: a NUL byte in
// an argument is validation_error naming the field (PostgreSQL answered
// 500), and nothing is written.
func TestNULBytesOverTheService(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := apitest.New(t, db)
		for _, tc := range []struct {
			name, method, path, token, body, want string
		}{
			{"product.info id in the query", "GET", "/catalog/v1/product.info?id=a%00", s.API, "", "id: must not contain a NUL byte"},
			{"product.list sku in the query", "GET", "/catalog/v1/product.list?sku=a,b%00", s.API, "", "sku[1]: must not contain a NUL byte"},
			{"cart.create channel", "POST", "/cart/v1/cart.create", s.API, `{"currency":"USD","channel":"web\u0000"}`, "channel: must not contain a NUL byte"},
			{"category.create title", "POST", "/catalog/v1/category.create", s.Admin, `{"title":"A\u0000","slug":"a","parent":"ROOT"}`, "title: must not contain a NUL byte"},
			{"stock.create warehouse", "POST", "/stock/v1/stock.create", s.Admin, `{"productId":"p","warehouseId":"\u0000","quantity":1}`, "warehouseId: must not contain a NUL byte"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Do(t, tc.method, tc.path, tc.token, tc.body).Expect(t, 400, "validation_error")
				var problems []string
				r.Decode(t, "data", &problems)
				if !slices.Contains(problems, tc.want) {
					t.Errorf("problems %v, want %q", problems, tc.want)
				}
			})
		}
		r := s.Get(t, "/event/v1/event.list", s.Admin).Must(t)
		var events []any
		r.Decode(t, "data", &events)
		if len(events) != 0 {
			t.Errorf("%d events after rejected requests, want none: %s", len(events), r.Raw)
		}
	})
}
