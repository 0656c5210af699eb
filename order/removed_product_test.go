package order_test

import (
	"fmt"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// product.remove takes the product's stock with it: an order of the
// product still cancels and refunds with restock, its units going nowhere
// (no stock record is recreated for a product that does not exist).
func TestRestockOfRemovedProduct(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		noStock := func(p string) {
			t.Helper()
			s.Get(t, fmt.Sprintf("/stock/v1/stock.info?productId=%s&warehouseId=W1", p), s.Admin).Expect(t, 404, "stock_not_found")
		}
		o, p := s.order(s.API, 2)
		s.Post(t, "/catalog/v1/product.remove", s.Admin, map[string]any{"id": p}).Must(t)
		noStock(p)
		if c := s.op("cancel", map[string]any{"id": o.ID}); c.Status != "CANCELLED" {
			t.Errorf("cancel: %+v", c)
		}
		noStock(p)

		o2, p2 := s.order(s.API, 1)
		s.op("capture", map[string]any{"id": o2.ID})
		s.Post(t, "/catalog/v1/product.remove", s.Admin, map[string]any{"id": p2}).Must(t)
		r := s.op("refund", map[string]any{"id": o2.ID, "amount": 10, "restock": true,
			"items": []map[string]any{{"itemId": o2.Items[0].ID, "quantity": 1}}})
		if r.PaymentStatus != "PARTIALLY_REFUNDED" {
			t.Errorf("refund: payment status %s", r.PaymentStatus)
		}
		noStock(p2)
	})
}
