package promotion

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion/engine"
)

// Coupon limits.
const (
	// MaxCodeLength is the most characters a coupon code has.
	MaxCodeLength = 64
	// MaxCoupons is the most codes a cart holds (docs/api.md section 16).
	MaxCoupons = 5
)

// apply checks the coupon fields of in (problems go to p) and sets them on
// pr: for an update (update true) a field absent stays, and code "" removes
// the code. The dates are checked together, as they stand after the
// change.
func (in Coupon) apply(p *commerce.Problems, pr *Promotion, update bool) {
	if in.Code != nil {
		switch code := *in.Code; {
		case code == "" && update:
			pr.Code = nil
		case strings.TrimSpace(code) == "":
			p.Add("code", "must not be blank")
		case strings.TrimSpace(code) != code:
			p.Add("code", "must not start or end with white space")
		case len([]rune(code)) > MaxCodeLength:
			p.Add("code", "at most %d characters", MaxCodeLength)
		case strings.IndexFunc(code, unicode.IsControl) >= 0:
			p.Add("code", "must not hold control characters")
		default:
			pr.Code = &code
		}
	}
	date := func(path string, v *string, dst **time.Time) {
		if v == nil {
			return
		}
		t, err := time.Parse(time.RFC3339Nano, *v)
		if err != nil {
			p.Add(path, "must be an RFC 3339 date-time (2026-11-23T00:00:00Z)")
			return
		}
		// Kept to the millisecond, as stored.
		t = t.UTC().Truncate(time.Millisecond)
		*dst = &t
	}
	date("startDate", in.StartDate, &pr.StartDate)
	date("endDate", in.EndDate, &pr.EndDate)
	if pr.StartDate != nil && pr.EndDate != nil && !pr.EndDate.After(*pr.StartDate) {
		p.Add("endDate", "must be after startDate")
	}
	limit := func(path string, v *int, dst **int) {
		if v == nil {
			return
		}
		if *v < 1 {
			p.Add(path, "must be a positive integer")
			return
		}
		n := *v
		*dst = &n
	}
	limit("usageLimit", in.UsageLimit, &pr.UsageLimit)
	limit("usageLimitPerCustomer", in.UsageLimitPerCustomer, &pr.UsageLimitPerCustomer)
}

// given reports whether in gives any field.
func (in Coupon) given() bool {
	return in.Code != nil || in.StartDate != nil || in.EndDate != nil || in.UsageLimit != nil || in.UsageLimitPerCustomer != nil
}

// limited is what the cache keeps of a promotion with a usage limit.
type limited struct {
	code               string // as created, "" without
	limit, perCustomer int    // 0: no limit
}

// exhausted reports whether u reaches one of l's limits (the customer's
// only when counted, customer true).
func (l limited) exhausted(u Usage, customer bool) bool {
	return l.limit > 0 && u.Count >= l.limit || customer && l.perCustomer > 0 && u.Customer >= l.perCustomer
}

// CartEval is a cart to evaluate (see Service.EvaluateCart).
type CartEval struct {
	Entries   []engine.Entry
	Precision int
	// Coupons are the codes the cart holds (as created or as typed).
	Coupons []string
	// CustomerID is the cart's customer, "" for an ANON cart (not limited
	// per customer).
	CustomerID string
	// Shipping is the shipping method's rate in minor units, nil without
	// a method.
	Shipping *int64
}

// CartOutcome is the result of Service.EvaluateCart.
type CartOutcome struct {
	engine.Result
	// Exhausted lists the codes held whose promotion would have applied
	// but reached its usage limit (overall or for the customer): left out
	// of the result, they fail a checkout (coupon_usage_limit_reached).
	Exhausted []string
}

// maxExclusionRounds bounds the re-evaluations that leave out promotions
// found at their limit (each round reads their uses once).
const maxExclusionRounds = 4

// EvaluateCart applies the active promotions to a cart, as Evaluate does,
// at the service's clock (a promotion applies from its startDate until
// before its endDate, without any change to the cache), with the coupons
// the cart holds and its shipping rate (the target of `shipping` rules).
// The codes are those of the promotions as the store has them, even when
// this process's copy of the promotions is older than a code's promotion
// (see holding). A promotion that fired but has reached a usage limit is
// left out and the cart evaluated again; when it has a code, the code is reported in
// Exhausted. Only promotions with limits that fire cost a read of their
// uses.
func (s *Service) EvaluateCart(ctx context.Context, in CartEval) (CartOutcome, error) {
	input := engine.Input{Entries: in.Entries, Precision: in.Precision, Now: s.now(), Shipping: in.Shipping}
	for _, c := range in.Coupons {
		input.Coupons = append(input.Coupons, CodeKey(c))
	}
	snap, err := s.holding(ctx, input.Coupons)
	if err != nil {
		return CartOutcome{}, err
	}
	if snap.index.Len() == 0 || len(in.Entries) == 0 {
		return CartOutcome{Result: engine.Result{ItemDiscounts: []engine.ItemDiscount{}, AlmostFulfilled: []engine.AlmostFulfilled{}}}, nil
	}
	if snap.index.UsesCategories() {
		if input.Categories, err = s.categories(ctx, in.Entries); err != nil {
			return CartOutcome{}, err
		}
	}
	var out CartOutcome
	for round := 0; ; round++ {
		out.Result = snap.index.EvaluateCart(input)
		var check []string
		for _, id := range out.Fired {
			if _, ok := snap.limited[id]; ok {
				check = append(check, id)
			}
		}
		if len(check) == 0 {
			return out, nil
		}
		if round == maxExclusionRounds {
			// Checkout counts the uses under lock anyway: no promotion is
			// ever used beyond its limit.
			return out, nil
		}
		usage, err := s.store.Usage(ctx, check, in.CustomerID)
		if err != nil {
			return CartOutcome{}, fmt.Errorf("promotion usage: %w", err)
		}
		excluded := false
		for _, id := range check {
			l := snap.limited[id]
			if u, ok := usage[id]; ok && l.exhausted(u, in.CustomerID != "") {
				input.Exclude = append(input.Exclude, id)
				excluded = true
				if l.code != "" && !slices.Contains(out.Exhausted, l.code) {
					out.Exhausted = append(out.Exhausted, l.code)
				}
			}
		}
		if !excluded {
			return out, nil
		}
	}
}

// Coupon checks a code a cart is to hold (cart.applyCoupon), for the
// customer customerID ("" for ANON), and returns it as created. An unknown
// or inactive code, or one outside its dates now, is coupon_not_found
// (data: the code as given); a promotion at its usage limit, overall or
// for the customer, is coupon_usage_limit_reached (data: the code as
// given).
func (s *Service) Coupon(ctx context.Context, code, customerID string) (string, error) {
	if code == "" {
		return "", commerce.Invalid("code: required")
	}
	p, err := s.store.PromotionByCode(ctx, CodeKey(code))
	if commerce.ErrorCode(err) == commerce.EPromotionNotFound {
		return "", CouponNotFound(code)
	}
	if err != nil {
		return "", fmt.Errorf("coupon: %w", err)
	}
	if p.Code == nil || !p.ActiveAt(s.now()) {
		return "", CouponNotFound(code)
	}
	if p.UsageLimit != nil || p.UsageLimitPerCustomer != nil && customerID != "" {
		usage, err := s.store.Usage(ctx, []string{p.ID}, customerID)
		if err != nil {
			return "", fmt.Errorf("coupon usage: %w", err)
		}
		if limitsOf(p).exhausted(usage[p.ID], customerID != "") {
			return "", LimitReached(code)
		}
	}
	return *p.Code, nil
}

// limitsOf returns p's limits as the cache keeps them.
func limitsOf(p Promotion) limited {
	l := limited{}
	if p.Code != nil {
		l.code = *p.Code
	}
	if p.UsageLimit != nil {
		l.limit = *p.UsageLimit
	}
	if p.UsageLimitPerCustomer != nil {
		l.perCustomer = *p.UsageLimitPerCustomer
	}
	return l
}
