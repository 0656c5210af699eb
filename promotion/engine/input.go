package engine

import (
	"slices"
	"time"
)

// Input is what an evaluation applies the promotions to (see
// Index.EvaluateCart).
type Input struct {
	// Entries are the cart's entries, unit prices in minor units of a
	// currency with Precision decimals (clamped to 0..18).
	Entries   []Entry
	Precision int
	// Categories gives the category membership of the entries' products.
	Categories Categories
	// Coupons are the comparison keys of the coupon codes the cart holds
	// (as Promotion.Code): a promotion with a code applies only when its
	// code is among them.
	Coupons []string
	// Now is the time of the evaluation: a promotion applies from its
	// Start until before its End.
	Now time.Time
	// Shipping is the shipping method's rate in minor units, nil when the
	// cart has no shipping method: the target of `shipping` rules.
	Shipping *int64
	// Exclude names promotions that must not apply (such as those that
	// reached their usage limit).
	Exclude []string
}

// ShippingDiscount is the discount a promotion gave the shipping line:
// Discount minor units off Rate (never more than Rate).
type ShippingDiscount struct {
	PromotionID    string
	PromotionTitle string
	Rate           int64
	Discount       int64
}

// eligible reports whether the promotion may apply to in: its code held,
// in is within its dates, and it is not excluded.
func (c *compiled) eligible(in *Input) bool {
	if c.code != "" && !slices.Contains(in.Coupons, c.code) {
		return false
	}
	if !c.start.IsZero() && in.Now.Before(c.start) {
		return false
	}
	if !c.end.IsZero() && !in.Now.Before(c.end) {
		return false
	}
	return len(in.Exclude) == 0 || !slices.Contains(in.Exclude, c.id)
}

// shipped records the discount d of promotion c on the shipping line. A
// zero discount is not recorded (the line stays consumed), as for units.
func (s *scratch) shipped(d *Discount, c *compiled) {
	rate := *s.in.Shipping
	v := unitDiscount(rate, d, s.precision)
	if v <= 0 {
		return
	}
	s.ship = &ShippingDiscount{PromotionID: c.id, PromotionTitle: c.title, Rate: rate, Discount: v}
}
