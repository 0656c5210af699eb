package cart_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// couponCart is a cart in the calculateCart form with its coupons and
// the shipping method's discount.
type couponCart struct {
	calcCart
	Coupons        []string `json:"coupons"`
	ShippingMethod *struct {
		ID       string `json:"id"`
		Rate     money  `json:"rate"`
		Discount *money `json:"discount"`
	} `json:"shippingMethod"`
	ShippingTaxes json.RawMessage `json:"shippingTaxes"`
}

// coupon creates a promotion with the code taking 10% off every unit of
// product, and the extra fields; it returns the promotion's id.
func (s *shop) coupon(code, product string, extra map[string]any) string {
	s.t.Helper()
	body := map[string]any{
		"title": "Coupon " + code, "class": "default", "active": true, "priority": 1, "code": code,
		"if":   map[string]any{"product": map[string]any{"id": product, "quantity": 1}},
		"then": map[string]any{"product": map[string]any{"id": product, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}},
	}
	for k, v := range extra {
		body[k] = v
	}
	var p struct{ ID string }
	s.Post(s.t, "/promotion/v1/promotion.create", s.Admin, body).Must(s.t).Decode(s.t, "promotion", &p)
	return p.ID
}

func (s *shop) usageCount(id string) int {
	s.t.Helper()
	var p struct {
		UsageCount int `json:"usageCount"`
	}
	s.Get(s.t, "/promotion/v1/promotion.info?id="+id, s.Admin).Must(s.t).Decode(s.t, "promotion", &p)
	return p.UsageCount
}

func applyCoupon(t *testing.T, srv *apitest.Server, token, cartID, code string) apitest.Response {
	t.Helper()
	return srv.Post(t, "/cart/v1/cart.applyCoupon", token, map[string]any{"cartId": cartID, "code": code})
}

func checkoutBody(cartID string) map[string]any {
	return map[string]any{"cartId": cartID, "paymentId": "manual", "paymentData": map[string]any{"method": "cash"}}
}

func TestApplyCoupon(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
		s := newShop(t, db, func(o *app.Options) { o.Now = clk.Now })
		p := s.product("P", map[string]any{"stockStatus": 1})
		promo := s.coupon("Save10", p, nil)
		s.coupon("Later", p, map[string]any{"startDate": clk.t.Add(12 * time.Hour).Format(time.RFC3339)})
		s.coupon("Over", p, map[string]any{"endDate": clk.t.Format(time.RFC3339)})
		s.coupon("Off", p, map[string]any{"active": false})
		s.coupon("Used", p, map[string]any{"usageLimit": 1})
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 2)

		// Without the code the promotion does not apply.
		if got := s.calc(s.API, c.ID); len(got.Promotions.FulfilledPromos) != 0 {
			t.Fatalf("got fulfilled %+v without the code, want none", got.Promotions.FulfilledPromos)
		}
		for _, tc := range []struct {
			name, code string
			status     int
			want       string
		}{
			{"unknown", "Nope", 404, "coupon_not_found"},
			{"not started", "later", 404, "coupon_not_found"},
			{"ended (end excluded)", "OVER", 404, "coupon_not_found"},
			{"inactive", "off", 404, "coupon_not_found"},
			{"blank", "", 400, "validation_error"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := applyCoupon(t, s.Server, s.API, c.ID, tc.code).Expect(t, tc.status, tc.want)
				if tc.want == "coupon_not_found" && errData(r) != fmt.Sprintf("%q", tc.code) {
					t.Errorf("got data %s, want the code as given %q", errData(r), tc.code)
				}
			})
		}
		applyCoupon(t, s.Server, s.API, "nope", "Save10").Expect(t, 404, "cart_not_found")

		var got couponCart
		applyCoupon(t, s.Server, s.API, c.ID, "sAVE10").Must(t).Decode(t, "cart", &got)
		if !slices.Equal(got.Coupons, []string{"Save10"}) {
			t.Fatalf("got coupons %q, want [Save10] as created", got.Coupons)
		}
		e := got.entry(t, p)
		if len(e.Discounts) != 1 || e.Discounts[0].PromotionID != promo || e.Discounts[0].Discount.Amount != 1000 || e.Discounts[0].Quantity != 2 {
			t.Errorf("got discounts %+v, want 10.00 off 2 units by the coupon", e.Discounts)
		}
		// Again: nothing changes, no event.
		events := len(s.events())
		var again couponCart
		applyCoupon(t, s.Server, s.API, c.ID, "SAVE10").Must(t).Decode(t, "cart", &again)
		if !slices.Equal(again.Coupons, []string{"Save10"}) || len(again.entry(t, p).Discounts) != 1 {
			t.Errorf("got coupons %q discounts %+v after applying it again, want [Save10] and its discount", again.Coupons, again.entry(t, p).Discounts)
		}
		if n := len(s.events()) - events; n != 0 {
			t.Errorf("applying a held code again wrote %d CARTS events, want none", n)
		}
		// The code starts applying when its start date comes, with no
		// change to the promotion.
		clk.Advance(12 * time.Hour)
		applyCoupon(t, s.Server, s.API, c.ID, "later").Must(t)
		// At most 5 codes.
		for i := range 3 {
			s.coupon(fmt.Sprintf("More%d", i), p, nil)
			applyCoupon(t, s.Server, s.API, c.ID, fmt.Sprintf("more%d", i)).Must(t)
		}
		s.coupon("Sixth", p, nil)
		applyCoupon(t, s.Server, s.API, c.ID, "Sixth").Expect(t, 400, "validation_error")
		// Remove.
		var removed couponCart
		s.Post(t, "/cart/v1/cart.removeCoupon", s.API, map[string]any{"cartId": c.ID, "code": "save10"}).Must(t).Decode(t, "cart", &removed)
		if slices.Contains(removed.Coupons, "Save10") || len(removed.Coupons) != 4 {
			t.Errorf("got coupons %q after removing Save10, want the 4 others", removed.Coupons)
		}
		r := s.Post(t, "/cart/v1/cart.removeCoupon", s.API, map[string]any{"cartId": c.ID, "code": "save10"}).Expect(t, 404, "coupon_not_found")
		if errData(r) != `"save10"` {
			t.Errorf("got data %s, want \"save10\"", errData(r))
		}
		if info := s.info(s.API, c.ID); info.Status != "ACTIVE" {
			t.Errorf("got status %s", info.Status)
		}

		// A code at its limit: coupon_usage_limit_reached.
		sameDay, _ := shippingMethods(t, s)
		_ = sameDay
		u := s.newCart(s.API, nil)
		s.add(s.API, u.ID, p, 1)
		applyCoupon(t, s.Server, s.API, u.ID, "used").Must(t)
		setShipping(t, s, s.API, u.ID, address("US", "HI"))
		s.Post(t, "/cart/v1/cart.checkout", s.API, checkoutBody(u.ID)).Must(t)
		u2 := s.newCart(s.API, nil)
		s.add(s.API, u2.ID, p, 1)
		r = applyCoupon(t, s.Server, s.API, u2.ID, "USED").Expect(t, 400, "coupon_usage_limit_reached")
		if errData(r) != `"USED"` {
			t.Errorf("got data %s, want \"USED\"", errData(r))
		}
	})
}

// prepareCouponCarts creates n carts holding one unit of product and the
// code, shipped to Hawaii, each with the token of tokens[i % len].
func prepareCouponCarts(t *testing.T, s *shop, tokens []string, product, code string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		tok := tokens[i%len(tokens)]
		c := s.newCart(tok, nil)
		s.add(tok, c.ID, product, 1)
		applyCoupon(t, s.Server, tok, c.ID, code).Must(t)
		setShipping(t, s, tok, c.ID, address("US", "HI"))
		ids[i] = c.ID
	}
	return ids
}

// checkoutConcurrently checks the carts out at once, through the servers in
// turn, and returns the ids of those checked out and the error codes of
// the others.
func checkoutConcurrently(t *testing.T, servers []*apitest.Server, tokens []string, carts []string) ([]string, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	var ok []string
	failed := map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, id := range carts {
		wg.Go(func() {
			<-start
			r := servers[i%len(servers)].Post(t, "/cart/v1/cart.checkout", tokens[i%len(tokens)], checkoutBody(id))
			mu.Lock()
			defer mu.Unlock()
			if r.OK {
				ok = append(ok, id)
			} else {
				failed[r.Error]++
			}
		})
	}
	close(start)
	wg.Wait()
	return ok, failed
}

// couponRace checks out 50 carts holding a code with usageLimit 10 at
// once: exactly 10 succeed, the 40 others fail with
// coupon_usage_limit_reached and are left as they were (ACTIVE, their
// units still reserved, the stock untouched).
func couponRace(t *testing.T, s *shop, servers []*apitest.Server) {
	p := s.product("RACE", nil)
	s.stock(p, "W1", 100)
	promo := s.coupon("RACE10", p, map[string]any{"usageLimit": 10})
	shippingMethods(t, s)
	carts := prepareCouponCarts(t, s, []string{s.API}, p, "race10", 50)
	eventsBefore := len(s.events())
	ok, failed := checkoutConcurrently(t, servers, []string{s.API}, carts)
	if len(ok) != 10 || failed["coupon_usage_limit_reached"] != 40 {
		t.Fatalf("got %d checkouts and failures %v, want 10 and 40 coupon_usage_limit_reached", len(ok), failed)
	}
	// Exactly 10 orders, each keeping the code, one per cart checked out.
	var orders []struct {
		CartID  string   `json:"cartId"`
		Coupons []string `json:"coupons"`
	}
	s.Get(t, "/order/v1/order.list?limit=1000", s.Admin).Must(t).Decode(t, "data", &orders)
	if len(orders) != 10 {
		t.Errorf("got %d orders, want 10", len(orders))
	}
	for _, o := range orders {
		if !slices.Contains(ok, o.CartID) || !slices.Equal(o.Coupons, []string{"RACE10"}) {
			t.Errorf("order of cart %s with coupons %q: want one of the carts checked out, keeping RACE10", o.CartID, o.Coupons)
		}
	}
	// The 40 failed checkouts wrote nothing: the only CARTS events are
	// the 10 CHECKOUTs.
	evs := s.events()[eventsBefore:]
	for _, e := range evs {
		if e.Type != "CHECKOUT" {
			t.Errorf("got a CARTS %s event during the checkouts, want CHECKOUT only", e.Type)
		}
	}
	if len(evs) != 10 {
		t.Errorf("got %d CARTS events during the checkouts, want 10", len(evs))
	}
	if n := s.usageCount(promo); n != 10 {
		t.Errorf("got usageCount %d, want 10", n)
	}
	if q, r := s.stockInfo(p, "W1"); q != 90 || r != 40 {
		t.Errorf("got stock %d reserved %d, want 90 (10 sold) and 40 (the failed carts keep theirs)", q, r)
	}
	for _, id := range carts {
		c := s.info(s.API, id)
		want := "ACTIVE"
		if slices.Contains(ok, id) {
			want = "CHECKED_OUT"
		}
		if c.Status != want || len(c.Items) != 1 || len(c.Items[0].Reserves) != 1 || c.Items[0].Reserves[0].Quantity != 1 {
			t.Errorf("cart %s: got status %s entries %+v, want %s with its unit reserved", id, c.Status, c.Items, want)
		}
	}
}

func TestCouponUsageLimitRace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		couponRace(t, s, []*apitest.Server{s.Server})
	})
}

// TestCouponUsageLimitTwoInstances races the checkouts through two
// instances of the service with their own pools on one PostgreSQL
// database.
func TestCouponUsageLimitTwoInstances(t *testing.T) {
	url := testdb.PostgresURL(t)
	s := newShop(t, testdb.PostgresAt(t, url))
	other := apitest.New(t, testdb.PostgresAt(t, url))
	couponRace(t, s, []*apitest.Server{s.Server, other})
}

func TestCouponPerCustomerLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("P", nil)
		s.stock(p, "W1", 100)
		promo := s.coupon("ONCE", p, map[string]any{"usageLimitPerCustomer": 1, "usageLimit": 100})
		shippingMethods(t, s)
		customers := []string{s.customer("ann"), s.customer("bob"), s.customer("cy")}
		// Four carts per customer, checked out at once: one each.
		carts := prepareCouponCarts(t, s, customers, p, "once", 12)
		ok, failed := checkoutConcurrently(t, []*apitest.Server{s.Server}, customers, carts)
		if len(ok) != 3 || failed["coupon_usage_limit_reached"] != 9 {
			t.Fatalf("got %d checkouts and failures %v, want 3 (one per customer) and 9 coupon_usage_limit_reached", len(ok), failed)
		}
		per := map[string]int{}
		for _, id := range ok {
			per[s.info(s.Admin, id).CustomerID]++
		}
		if len(per) != 3 {
			t.Errorf("got checkouts per customer %v, want one each", per)
		}
		// The customer's next cart cannot take the code.
		c := s.newCart(customers[0], nil)
		s.add(customers[0], c.ID, p, 1)
		applyCoupon(t, s.Server, customers[0], c.ID, "once").Expect(t, 400, "coupon_usage_limit_reached")
		// ANON orders are not limited per customer.
		anon := prepareCouponCarts(t, s, []string{s.API}, p, "ONCE", 3)
		ok, failed = checkoutConcurrently(t, []*apitest.Server{s.Server}, []string{s.API}, anon)
		if len(ok) != 3 {
			t.Errorf("got %d ANON checkouts and failures %v, want all 3", len(ok), failed)
		}
		if n := s.usageCount(promo); n != 6 {
			t.Errorf("got usageCount %d, want 6", n)
		}
	})
}

// TestFreeShippingJourney: a FREESHIP code on a GB cart shipped to
// Dorset (UPS Next Day, 4.90 GBP there): the shipping method shows the
// discount, the shipping line is taxed at zero, and checkout uses the
// code once.
func TestFreeShippingJourney(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		_, nextDay := shippingMethods(t, s)
		p := s.product("GB-1", map[string]any{"stockStatus": 1, "prices": []map[string]any{{"amount": json.Number("399.99"), "currency": "GBP"}}})
		var promo struct {
			ID string
		}
		s.Post(t, "/promotion/v1/promotion.create", s.Admin, map[string]any{
			"title": "Free shipping", "class": "default", "active": true, "priority": 1, "code": "FREESHIP", "usageLimit": 100,
			"if":   map[string]any{"category": map[string]any{"id": s.category, "quantity": 1}},
			"then": map[string]any{"shipping": map[string]any{"discount": map[string]any{"rate": 100, "isPercentage": true}}},
		}).Must(t).Decode(t, "promotion", &promo)

		c := s.newCart(s.API, map[string]any{"currency": "GBP", "country": "GB"})
		s.add(s.API, c.ID, p, 1)
		setShipping(t, s, s.API, c.ID, map[string]any{"firstName": "Thomas", "address_1": "Max Gate", "postCode": "DT1 2AB",
			"city": "Dorchester", "state": "Dorset", "country": "GB"})
		var before couponCart
		s.Post(t, "/cart/v1/cart.setShippingMethod", s.API, map[string]any{"cartId": c.ID, "methodId": nextDay}).Must(t).Decode(t, "cart", &before)
		pNet, pTax := gross21(39999)
		sNet, sTax := gross21(490)
		if before.Taxes.BeforeTax.Amount != pNet+sNet || before.Taxes.Tax.Amount != pTax+sTax || before.ShippingMethod.Discount != nil {
			t.Fatalf("without the code: got taxes %+v method %+v, want %d + %d and no discount", before.Taxes, before.ShippingMethod, pNet+sNet, pTax+sTax)
		}

		var got couponCart
		applyCoupon(t, s.Server, s.API, c.ID, "freeship").Must(t).Decode(t, "cart", &got)
		m := got.ShippingMethod
		if m == nil || m.Rate != (money{490, "GBP", 2}) || m.Discount == nil || *m.Discount != (money{490, "GBP", 2}) {
			t.Fatalf("got shippingMethod %+v, want the 4.90 GBP rate with 4.90 GBP discount", m)
		}
		if got.Taxes.BeforeTax.Amount != pNet || got.Taxes.Tax.Amount != pTax {
			t.Errorf("got taxes %+v, want the product's alone (%d + %d): the shipping line taxed at zero", got.Taxes, pNet, pTax)
		}
		f := got.Promotions.FulfilledPromos
		if len(f) != 1 || f[0].ID != promo.ID || string(f[0].Discount) != `{"amount":490,"currency":"GBP","precision":2}` {
			t.Errorf("got fulfilledPromos %+v, want Free shipping with 4.90 GBP", f)
		}
		if !slices.Equal(got.Coupons, []string{"FREESHIP"}) {
			t.Errorf("got coupons %q, want [FREESHIP]", got.Coupons)
		}

		var done couponCart
		var placed struct {
			ID      string   `json:"id"`
			Coupons []string `json:"coupons"`
			Totals  struct {
				Shipping money `json:"shipping"`
				Total    money `json:"total"`
			} `json:"totals"`
			ShippingMethod struct {
				Rate money `json:"rate"`
			} `json:"shippingMethod"`
		}
		r := s.Post(t, "/cart/v1/cart.checkout", s.API, checkoutBody(c.ID)).Must(t)
		r.Decode(t, "cart", &done)
		r.Decode(t, "order", &placed)
		if done.Status != "CHECKED_OUT" || done.Taxes.BeforeTax.Amount+done.Taxes.Tax.Amount != 39999 {
			t.Errorf("got status %s taxes %+v, want CHECKED_OUT for 399.99 in all", done.Status, done.Taxes)
		}
		if !slices.Equal(placed.Coupons, []string{"FREESHIP"}) || placed.Totals.Shipping.Amount != 0 || placed.Totals.Total.Amount != 39999 ||
			placed.ShippingMethod.Rate.Amount != 490 {
			t.Errorf("got order %+v, want it to keep FREESHIP, shipping 0 of the 4.90 rate, 399.99 in all", placed)
		}
		if n := s.usageCount(promo.ID); n != 1 {
			t.Errorf("got usageCount %d after checkout, want 1", n)
		}

		// Cancel the order: the use is back, once.
		s.Post(t, "/order/v1/order.cancel", s.API, map[string]any{"id": placed.ID, "reason": "changed my mind"}).Must(t)
		if n := s.usageCount(promo.ID); n != 0 {
			t.Errorf("got usageCount %d after the cancel, want 0", n)
		}
		s.Post(t, "/order/v1/order.cancel", s.API, map[string]any{"id": placed.ID}).Expect(t, 400, "invalid_order_state")
		if n := s.usageCount(promo.ID); n != 0 {
			t.Errorf("got usageCount %d after a second cancel, want 0", n)
		}
	})
}

// TestUsesCountFiredPromotions: a checkout uses each promotion that fired
// (with or without a code) and nothing of a code it holds whose promotion
// did not fire; a promotion without a code at its limit stops applying
// (the checkout goes on without it); a cancel gives the use back.
func TestUsesCountFiredPromotions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		shippingMethods(t, s)
		p := s.product("P", map[string]any{"stockStatus": 1})
		// PAIR (a code): 10% off one unit when the cart has two.
		pair := s.coupon("PAIR", p, map[string]any{"priority": 2,
			"if": map[string]any{"product": map[string]any{"id": p, "quantity": 2}}})
		// FIRST (no code, one use): 5.00 off one unit.
		var first struct{ ID string }
		s.Post(t, "/promotion/v1/promotion.create", s.Admin, map[string]any{
			"title": "First", "class": "default", "active": true, "priority": 1, "usageLimit": 1,
			"if":   map[string]any{"product": map[string]any{"id": p, "quantity": 1}},
			"then": map[string]any{"product": map[string]any{"id": p, "quantity": 1, "discount": map[string]any{"rate": 5}}},
		}).Must(t).Decode(t, "promotion", &first)
		type placed struct {
			ID      string   `json:"id"`
			Coupons []string `json:"coupons"`
			Totals  struct {
				Discount money `json:"discount"`
			} `json:"totals"`
		}
		checkout := func(units int, code string) placed {
			t.Helper()
			c := s.newCart(s.API, nil)
			s.add(s.API, c.ID, p, units)
			if code != "" {
				applyCoupon(t, s.Server, s.API, c.ID, code).Must(t)
			}
			setShipping(t, s, s.API, c.ID, address("US", "Hawaii"))
			var o placed
			s.Post(t, "/cart/v1/cart.checkout", s.API, checkoutBody(c.ID)).Must(t).Decode(t, "order", &o)
			return o
		}
		uses := func() [2]int { return [2]int{s.usageCount(pair), s.usageCount(first.ID)} }

		// One unit holding PAIR: FIRST fires, PAIR does not.
		a := checkout(1, "pair")
		if !slices.Equal(a.Coupons, []string{"PAIR"}) || a.Totals.Discount.Amount != 500 {
			t.Errorf("got order coupons %q discount %d, want [PAIR] and 5.00 (FIRST only)", a.Coupons, a.Totals.Discount.Amount)
		}
		if got := uses(); got != [2]int{0, 1} {
			t.Errorf("got uses PAIR, FIRST = %v, want [0 1]: a held code that did not fire uses nothing", got)
		}
		// FIRST is at its limit: it no longer applies; the checkout goes on.
		if b := checkout(1, ""); b.Totals.Discount.Amount != 0 {
			t.Errorf("got discount %d with FIRST at its limit, want 0", b.Totals.Discount.Amount)
		}
		// Two units holding PAIR: PAIR fires (FIRST at its limit).
		if c := checkout(2, "PAIR"); c.Totals.Discount.Amount != 1000 {
			t.Errorf("got discount %d, want 10.00 by PAIR", c.Totals.Discount.Amount)
		}
		if got := uses(); got != [2]int{1, 1} {
			t.Errorf("got uses PAIR, FIRST = %v, want [1 1]", got)
		}
		// Cancelling the first order gives FIRST's use back: it applies again.
		s.Post(t, "/order/v1/order.cancel", s.API, map[string]any{"id": a.ID}).Must(t)
		if got := uses(); got != [2]int{1, 0} {
			t.Errorf("got uses PAIR, FIRST = %v after the cancel, want [1 0]", got)
		}
		if d := checkout(1, ""); d.Totals.Discount.Amount != 500 {
			t.Errorf("got discount %d after the use came back, want 5.00", d.Totals.Discount.Amount)
		}
	})
}

// TestDatedPromotionOnTime: a promotion with dates starts applying at its
// startDate and stops at its endDate, in carts and in
// promotion.cartPromotions, with no change to any promotion and no
// restart (the cache of active promotions follows the clock).
func TestDatedPromotionOnTime(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
		s := newShop(t, db, func(o *app.Options) { o.Now = clk.Now })
		p := s.product("P", map[string]any{"stockStatus": 1})
		var promo struct{ ID string }
		s.Post(t, "/promotion/v1/promotion.create", s.Admin, map[string]any{
			"title": "Weekend", "class": "default", "active": true, "priority": 1,
			"startDate": clk.t.Add(time.Hour).Format(time.RFC3339), "endDate": clk.t.Add(2 * time.Hour).Format(time.RFC3339),
			"if":   map[string]any{"product": map[string]any{"id": p, "quantity": 1}},
			"then": map[string]any{"product": map[string]any{"id": p, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}},
		}).Must(t).Decode(t, "promotion", &promo)
		c := s.newCart(s.API, nil)
		s.add(s.API, c.ID, p, 1)
		applies := func() (inCart, quoted bool) {
			t.Helper()
			got := s.calc(s.API, c.ID)
			inCart = len(got.Promotions.FulfilledPromos) == 1 && got.Promotions.FulfilledPromos[0].ID == promo.ID
			var ds []json.RawMessage
			s.Post(t, "/promotion/v1/promotion.cartPromotions", s.API, map[string]any{"cartId": "q",
				"items": []map[string]any{{"id": "e1", "productId": p, "quantity": 1, "price": 100}}}).Must(t).Decode(t, "itemDiscounts", &ds)
			return inCart, len(ds) == 1
		}
		for _, step := range []struct {
			name    string
			advance time.Duration
			want    bool
		}{
			{"before its start", 0, false},
			{"a second before its start", time.Hour - time.Second, false},
			{"at its start", time.Second, true},
			{"a second before its end", time.Hour - time.Second, true},
			{"at its end (excluded)", time.Second, false},
			{"after its end", time.Hour, false},
		} {
			clk.Advance(step.advance)
			if inCart, quoted := applies(); inCart != step.want || quoted != step.want {
				t.Errorf("%s: applies in the cart %v, in cartPromotions %v; want %v", step.name, inCart, quoted, step.want)
			}
		}
	})
}
