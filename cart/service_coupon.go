package cart

import (
	"context"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion"
)

// ApplyCoupon is cart.applyCoupon (docs/api.md section 16): the cart holds
// the code from now on, as created, and its promotion applies when its
// rule is met. A code the cart holds already (compared
// case-insensitively) changes nothing: the cart is recalculated as by
// calculateCart (an event only when its prices moved meanwhile). At most
// promotion.MaxCoupons codes
// (validation_error). An unknown or inactive code, or one outside its
// dates: coupon_not_found (data: the code as given); a promotion at its
// usage limit, overall or for the cart's customer:
// coupon_usage_limit_reached (data: the code as given). Promotions and
// taxes are recalculated, and UPDATE is emitted on CARTS.
// Errors also: cart_not_found (data: the id), cart_not_active.
func (s *Service) ApplyCoupon(ctx context.Context, in CouponInput) (*Cart, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	key := promotion.CodeKey(in.Code)
	return s.change(ctx, in.CartID, change{op: "cart.applyCoupon", data: in,
		prepare: func(c *Cart, _ time.Time) error {
			if c.coupon(key) >= 0 {
				return errUnchanged
			}
			if len(c.Coupons) >= promotion.MaxCoupons {
				return commerce.Invalid("code: a cart holds at most 5 coupons")
			}
			code, err := s.deps.Promotions.Coupon(ctx, in.Code, customerOf(c))
			if err != nil {
				return err
			}
			c.Coupons = append(c.Coupons, code)
			return nil
		},
	})
}

// RemoveCoupon is cart.removeCoupon: the cart no longer holds the code
// (compared case-insensitively); one it does not hold is coupon_not_found
// (data: the code as given). Promotions and taxes are recalculated, and
// UPDATE is emitted on CARTS.
// Errors also: validation_error, cart_not_found (data: the id),
// cart_not_active.
func (s *Service) RemoveCoupon(ctx context.Context, in CouponInput) (*Cart, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	key := promotion.CodeKey(in.Code)
	return s.change(ctx, in.CartID, change{op: "cart.removeCoupon", data: in,
		prepare: func(c *Cart, _ time.Time) error {
			i := c.coupon(key)
			if i < 0 {
				return promotion.CouponNotFound(in.Code)
			}
			c.Coupons = slices.Delete(c.Coupons, i, i+1)
			return nil
		},
	})
}

func (in CouponInput) check() error {
	return commerce.CheckArgs(in) // cartId, code
}

// coupon returns the index of the code with the key among the cart's, or
// -1.
func (c *Cart) coupon(key string) int {
	return slices.IndexFunc(c.Coupons, func(code string) bool { return promotion.CodeKey(code) == key })
}

// shippingDiscount is the discount on the shipping method's rate.
func (c *Cart) shippingDiscount() int64 {
	if c.ShippingDiscount == nil || c.ShippingMethod == nil {
		return 0
	}
	return min(c.ShippingDiscount.Discount, c.ShippingMethod.Amount)
}

// customerOf returns the cart's customer as the promotion area counts
// uses: "" for ANON (not limited per customer).
func customerOf(c *Cart) string {
	if c.CustomerID == Anonymous {
		return ""
	}
	return c.CustomerID
}

// checkCoupons fails a checkout whose cart holds a code whose promotion
// reached a usage limit (coupon_usage_limit_reached, data: the code).
func checkCoupons(c *Cart) error {
	if len(c.exhausted) > 0 {
		return promotion.LimitReached(c.exhausted[0])
	}
	return nil
}

// redeem counts, in the checkout's transaction, one use of each promotion
// that fired for the cart; one at its limit fails the checkout
// (coupon_usage_limit_reached), which rolls everything back.
func redeem(ctx context.Context, tx Tx, c *Cart) error {
	if len(c.Fired) == 0 {
		return nil
	}
	return tx.Promotions().Redeem(ctx, promotion.Redemption{CartID: c.ID, CustomerID: customerOf(c), PromotionIDs: c.Fired})
}
