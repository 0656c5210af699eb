package cart_test

import (
	"testing"
	"time"

	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestCouponCreatedByAnotherProcess (issue 27 defect 3): a coupon created
// through one process moments ago is applied through another, whose copy
// of the promotions (checked against the store at most every
// snapcache.Interval) does not have it yet. cart.applyCoupon reads the
// store, so the cart holds the code; its price must come from that
// coupon's promotion too, and checkout must count the promotion's uses:
// before the fix the carts were priced, and checked out, at full price
// with the coupon listed and its per-customer limit never checked.
func TestCouponCreatedByAnotherProcess(t *testing.T) {
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		s, other, p, _, _ := twoProcesses(t, a, b)
		shippingMethods(t, s)
		ada := s.customer("ada")
		carts := make([]string, 2)
		for i := range carts {
			carts[i] = s.newCart(ada, nil).ID
			other.add(ada, carts[i], p, 1)
			setShipping(t, other, ada, carts[i], address("US", "HI"))
		}
		// The other process has just looked at the promotions (none).
		other.calc(ada, carts[0])
		start := time.Now()
		promo := s.coupon("FRESH", p, map[string]any{"usageLimitPerCustomer": 1})
		for _, id := range carts {
			var got couponCart
			applyCoupon(t, other.Server, ada, id, "fresh").Must(t).Decode(t, "cart", &got)
			if e := got.entry(t, p); len(e.Discounts) != 1 || e.Discounts[0].PromotionID != promo {
				t.Errorf("cart %s holds %q, priced with discounts %+v; want the coupon's", id, got.Coupons, e.Discounts)
			}
		}
		other.Post(t, "/cart/v1/cart.checkout", ada, checkoutBody(carts[0])).Must(t)
		r := other.Post(t, "/cart/v1/cart.checkout", ada, checkoutBody(carts[1]))
		if r.OK || r.Error != "coupon_usage_limit_reached" {
			t.Errorf("a second checkout with the code, once per customer: got %d %s, want coupon_usage_limit_reached", r.Status, r.Error)
		}
		if took := time.Since(start); took > snapcache.Interval {
			// The other process's copy may have caught up by itself:
			// this run proves less (it passes either way).
			t.Logf("the coupon was applied and checked out %v after its creation, more than the copy's interval %v", took, snapcache.Interval)
		}
		if n := s.usageCount(promo); n != 1 {
			t.Errorf("usageCount %d, want 1", n)
		}
	})
}
