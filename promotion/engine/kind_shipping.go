package engine

// The `shipping` rule (docs/api.md section 16): a `then` rule whose target
// is the cart's shipping line, {"shipping": {"discount": {...}}}. Its
// discount applies to the shipping method's rate as section 7 step 5 says
// for a unit (isPercentage 100 is free shipping). The shipping line is one
// target, present when the evaluation is given a shipping rate
// (Input.Shipping): the first promotion that targets it consumes it, so a
// promotion whose only `then` is a shipping rule fires at most once, and
// never without a shipping method. It stands only in `then` rules.
func init() {
	register(&kind{
		name:  "shipping",
		at:    inThen,
		props: []*property{discountProp},
		eval:  shippingRule{},
	})
}

// shippingTarget is the entry index of the shipping line in a firing.
const shippingTarget = -1

type shippingRule struct{}

// possible, satisfy and almost are never called: the kind stands only in
// `then` rules. They answer as a rule that is never satisfied.
func (shippingRule) possible(*scratch, *node) bool       { return false }
func (shippingRule) satisfy(*scratch, *node) bool        { return false }
func (shippingRule) almost(*scratch, *node, bool) status { return none }
func (shippingRule) apply(s *scratch, n *node, _ bool) {
	if !s.shipFree {
		return
	}
	s.shipFree = false // a firing with a target always commits
	s.fires = append(s.fires, fire{entry: shippingTarget, n: 1, discount: n.leaf.Discount})
}
