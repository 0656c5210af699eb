package storetest

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/sqldb"
)

// Coupon is the suite of the coupon fields and the uses of promotions
// (promotion.Store and promotion.Tx, docs/api.md section 16): the fields
// stored and read back, codes unique by their key, Redeem's limits (also
// under concurrency) and ReleaseRedemptions.
func Coupon(t *testing.T, open Opener) {
	t.Run("fields and unique codes", func(t *testing.T) { couponFields(t, open(t)) })
	t.Run("redeem and release", func(t *testing.T) { couponRedeem(t, open(t)) })
	t.Run("concurrent redemptions stop at the limit", func(t *testing.T) { couponRace(t, open(t)) })
}

func intp(n int) *int { return &n }

func couponPromotion(t *testing.T, code string, limit, perCustomer *int) promotion.Promotion {
	p := fixturePromotion(t, "coupon "+code, true, 0, "p1")
	if code != "" {
		p.Code = &code
	}
	p.UsageLimit, p.UsageLimitPerCustomer = limit, perCustomer
	return p
}

func redeem(s promotion.Store, cart, customer string, ids ...string) error {
	ctx := context.Background()
	return s.Update(ctx, func(tx promotion.Tx) error {
		return tx.Redeem(ctx, promotion.Redemption{CartID: cart, CustomerID: customer, PromotionIDs: ids})
	})
}

func couponFields(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	start := time.Date(2026, 11, 23, 10, 0, 0, 123e6, time.UTC)
	end := start.Add(48 * time.Hour)
	p := couponPromotion(t, "Été-10", intp(10), intp(2))
	p.StartDate, p.EndDate = &start, &end
	ps := createPromotions(t, s, p, fixturePromotion(t, "plain", true, 0, "p2"))
	for _, want := range ps {
		got, err := s.Promotion(ctx, want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Promotion(%s): got %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	// By code key, and as a list filter.
	got, err := s.PromotionByCode(ctx, promotion.CodeKey("ÉTÉ-10"))
	if err != nil || got.ID != ps[0].ID || *got.Code != "Été-10" {
		t.Errorf("PromotionByCode: got %+v, %v; want the promotion with its code as created", got, err)
	}
	_, err = s.PromotionByCode(ctx, "nope")
	wantCode(t, "PromotionByCode of an unknown code", err, commerce.EPromotionNotFound, "nope")
	key := promotion.CodeKey("été-10")
	list, err := s.Promotions(ctx, promotion.Filter{CodeKey: &key, Limit: 10})
	if err != nil || len(list) != 1 || list[0].ID != ps[0].ID {
		t.Errorf("Promotions by code: got %+v, %v; want the coupon", list, err)
	}
	// A code whose key is in use (another case, decomposed accents).
	dup := couponPromotion(t, "E\u0301TE\u0301-10", nil, nil)
	err = s.Update(ctx, func(tx promotion.Tx) error { return tx.CreatePromotion(ctx, &dup) })
	wantCode(t, "CreatePromotion of a code in use", err, commerce.EDuplicateKey, nil)
	other := ps[1]
	other.Code = dup.Code
	err = s.Update(ctx, func(tx promotion.Tx) error { return tx.UpdatePromotion(ctx, other) })
	wantCode(t, "UpdatePromotion to a code in use", err, commerce.EDuplicateKey, nil)
	// Removing the code frees it.
	free := ps[0]
	free.Code = nil
	if err := s.Update(ctx, func(tx promotion.Tx) error { return tx.UpdatePromotion(ctx, free) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx promotion.Tx) error { return tx.UpdatePromotion(ctx, other) }); err != nil {
		t.Errorf("UpdatePromotion to a freed code: %v", err)
	}
}

func couponRedeem(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	ps := createPromotions(t, s, couponPromotion(t, "TWO", intp(2), nil), couponPromotion(t, "ONCE", nil, intp(1)), couponPromotion(t, "", nil, nil))
	two, once, open := ps[0].ID, ps[1].ID, ps[2].ID
	usage := func(id, customer string) promotion.Usage {
		t.Helper()
		u, err := s.Usage(ctx, []string{id}, customer)
		if err != nil {
			t.Fatal(err)
		}
		return u[id]
	}
	v0, _ := s.Version(ctx)

	if err := redeem(s, "c1", "ann", two, once, open); err != nil {
		t.Fatal(err)
	}
	// Again for the same cart: nothing more.
	if err := redeem(s, "c1", "ann", two, once); err != nil {
		t.Fatal(err)
	}
	if u := usage(two, "ann"); u != (promotion.Usage{Count: 1, Customer: 1}) {
		t.Errorf("after one order: got %+v, want 1 and 1", u)
	}
	// ann's second order: once is at ann's limit; nothing of it counts.
	err := redeem(s, "c2", "ann", two, once)
	wantCode(t, "Redeem past the per-customer limit", err, commerce.ECouponUsageLimitReached, "ONCE")
	if u := usage(two, "ann"); u.Count != 1 {
		t.Errorf("a failed redemption counted: %+v", u)
	}
	// ANON orders are not counted per customer.
	for _, c := range []string{"c3", "c4"} {
		if err := redeem(s, c, "", once); err != nil {
			t.Errorf("ANON redemption %s: %v", c, err)
		}
	}
	if err := redeem(s, "c5", "bob", two, once); err != nil {
		t.Fatal(err)
	}
	err = redeem(s, "c6", "cy", two)
	wantCode(t, "Redeem past the limit", err, commerce.ECouponUsageLimitReached, "TWO")
	err = redeem(s, "c6", "cy", open, two)
	wantCode(t, "Redeem past the limit with another", err, commerce.ECouponUsageLimitReached, "TWO")
	if u := usage(open, ""); u.Count != 1 {
		t.Errorf("a failed redemption counted another promotion: %+v", u)
	}
	if u := usage(once, "ann"); u != (promotion.Usage{Count: 4, Customer: 1}) {
		t.Errorf("once: got %+v, want 4 in all, 1 by ann", u)
	}
	if v, _ := s.Version(ctx); v != v0 {
		t.Errorf("redemptions moved the version from %d to %d", v0, v)
	}
	// Release c1: its uses come back, once.
	var n int
	err = s.Update(ctx, func(tx promotion.Tx) (err error) { n, err = tx.ReleaseRedemptions(ctx, "c1"); return err })
	if err != nil || n != 3 {
		t.Fatalf("ReleaseRedemptions: got %d, %v; want 3", n, err)
	}
	err = s.Update(ctx, func(tx promotion.Tx) (err error) { n, err = tx.ReleaseRedemptions(ctx, "c1"); return err })
	if err != nil || n != 0 {
		t.Errorf("ReleaseRedemptions again: got %d, %v; want 0", n, err)
	}
	if u := usage(two, "ann"); u != (promotion.Usage{Count: 1, Customer: 0}) {
		t.Errorf("two after release: got %+v, want 1 and 0", u)
	}
	if p, _ := s.Promotion(ctx, two); p.UsageCount != 1 {
		t.Errorf("usageCount: got %d, want 1", p.UsageCount)
	}
	if err := redeem(s, "c7", "ann", two, once); err != nil {
		t.Errorf("ann after the release: %v", err)
	}
}

// couponRace redeems a promotion with usageLimit 10 for 50 carts at
// once, and per customer limit 1 for 5 carts of one customer: exactly 10
// and 1 succeed.
func couponRace(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	ps := createPromotions(t, s, couponPromotion(t, "TEN", intp(10), nil), couponPromotion(t, "MINE", nil, intp(1)))
	race := func(n int, customer func(i int) string, id string) (ok int, codes map[string]int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		codes = map[string]int{}
		for i := range n {
			wg.Go(func() {
				err := redeem(s, fmt.Sprintf("%s-%d", id, i), customer(i), id)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok++
				} else {
					codes[commerce.ErrorCode(err)]++
				}
			})
		}
		wg.Wait()
		return ok, codes
	}
	ok, codes := race(50, func(i int) string { return fmt.Sprintf("c%d", i) }, ps[0].ID)
	if ok != 10 || codes[commerce.ECouponUsageLimitReached] != 40 {
		t.Errorf("usageLimit 10: got %d and %v, want 10 and 40 coupon_usage_limit_reached", ok, codes)
	}
	ok, codes = race(5, func(int) string { return "ann" }, ps[1].ID)
	if ok != 1 || codes[commerce.ECouponUsageLimitReached] != 4 {
		t.Errorf("usageLimitPerCustomer 1: got %d and %v, want 1 and 4 coupon_usage_limit_reached", ok, codes)
	}
	u, err := s.Usage(ctx, []string{ps[0].ID, ps[1].ID}, "ann")
	if err != nil || u[ps[0].ID].Count != 10 || u[ps[1].ID] != (promotion.Usage{Count: 1, Customer: 1}) {
		t.Errorf("got usage %+v, %v; want 10, and 1 by ann", u, err)
	}
}
