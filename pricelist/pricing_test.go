package pricelist_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// refList is a price list as the reference implementation sees it.
type refList struct {
	id, status, channel, country string
	groups                       []string
	from, until                  *time.Time
	priority                     int64
	prices                       map[string]map[int64]int64 // product -> minQuantity -> cents
}

// refShopper is whom the reference prices for.
type refShopper struct {
	customerType, country string // the token's; country "" is the cart's US
	groups                []string
}

// refPrice is the reference selection (docs/api.md section 26, docs/api.md's
// product prices): written from the contract, independently of
// catalog.SelectPrice. lists are in creation order; the product's own
// prices are the test's: 100.00 USD for everyone, 90.00 for VIP, 95.00
// for ES.
func refPrice(lists []refList, product string, sh refShopper, qty int64, now time.Time) (int64, string) {
	country := sh.country
	if country == "" {
		country = "US"
	}
	var best *refList
	var bestAmount int64
	for i := range lists {
		l := &lists[i]
		if l.status != "ACTIVE" || l.channel != "" && l.channel != "WEB" || l.country != "" && l.country != country {
			continue
		}
		if l.from != nil && now.Before(*l.from) || l.until != nil && now.After(*l.until) {
			continue
		}
		open := len(l.groups) == 0
		for _, g := range l.groups {
			open = open || slices.Contains(sh.groups, g)
		}
		if !open {
			continue
		}
		tier, amount := int64(0), int64(0)
		for minQ, a := range l.prices[product] {
			if minQ <= qty && minQ > tier {
				tier, amount = minQ, a
			}
		}
		if tier == 0 {
			continue
		}
		if best == nil || l.priority > best.priority { // a tie: the earlier list
			best, bestAmount = l, amount
		}
	}
	if best != nil {
		return bestAmount, best.id
	}
	switch {
	case sh.customerType == "VIP":
		return 9000, "" // customer type scores 4, country 1
	case country == "ES":
		return 9500, ""
	}
	return 10000, ""
}

// productPrices are the test products' own prices (see refPrice).
var productPrices = []map[string]any{
	{"amount": 100, "currency": "USD"},
	{"amount": 90, "currency": "USD", "customerType": "VIP"},
	{"amount": 95, "currency": "USD", "country": "ES"},
}

// randomLists creates 1 to 4 random price lists over the products and
// returns them in creation order for the reference.
func randomLists(s *shop, rnd *rand.Rand, products []string, now time.Time, round int) []refList {
	pick := func(opts ...string) string { return opts[rnd.IntN(len(opts))] }
	day := 24 * time.Hour
	var out []refList
	for i := range 1 + rnd.IntN(4) {
		l := refList{status: pick("ACTIVE", "ACTIVE", "ACTIVE", "DRAFT"), channel: pick("", "", "WEB", "POS"),
			country: pick("", "", "US", "ES"), priority: int64(rnd.IntN(3)), prices: map[string]map[int64]int64{}}
		body := map[string]any{"code": fmt.Sprintf("r%d-l%d", round, i), "currency": "USD", "status": l.status,
			"priority": l.priority, "channel": l.channel, "country": l.country}
		switch rnd.IntN(4) {
		case 1: // current
			f, u := now.Add(-day), now.Add(day)
			l.from, l.until = &f, &u
		case 2: // future
			f, u := now.Add(day), now.Add(2*day)
			l.from, l.until = &f, &u
		case 3: // past
			f, u := now.Add(-2*day), now.Add(-day)
			l.from, l.until = &f, &u
		}
		if l.from != nil {
			body["validFrom"], body["validUntil"] = l.from.Format(time.RFC3339Nano), l.until.Format(time.RFC3339Nano)
		}
		for _, g := range []string{"G1", "G2"} {
			if rnd.IntN(3) == 0 {
				l.groups = append(l.groups, g)
			}
		}
		body["groups"] = append([]string{}, l.groups...)
		prices := []map[string]any{}
		for _, p := range products {
			if rnd.IntN(3) == 0 {
				continue
			}
			l.prices[p] = map[int64]int64{}
			for _, tier := range []int64{1, 3, 5} {
				if rnd.IntN(2) == 0 {
					cents := int64(5000 + rnd.IntN(5000))
					l.prices[p][tier] = cents
					prices = append(prices, map[string]any{"productId": p, "minQuantity": tier, "amount": json.Number(fmt.Sprintf("%d.%02d", cents/100, cents%100))})
				}
			}
		}
		body["prices"] = prices
		l.id = s.priceList(body).ID
		out = append(out, l)
	}
	return out
}

// TestSamePriceEverywhere is the property: over random price lists,
// groups, dates, customers and quantities, the unit price of a product for
// a customer and quantity is the same in product.info, in
// cart.calculateCart and in the order, and it is the reference's.
func TestSamePriceEverywhere(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		s.group("G1")
		s.group("G2")
		products := []string{s.product("A", productPrices...), s.product("B", productPrices...)}
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rnd := rand.New(rand.NewPCG(seed, 32))
		rounds := 25
		if testing.Short() {
			rounds = 8
		}
		listed := 0
		for round := range rounds {
			now := time.Now()
			lists := randomLists(s, rnd, products, now, round)
			sh := refShopper{customerType: []string{"", "VIP"}[rnd.IntN(2)], country: []string{"", "US", "ES"}[rnd.IntN(3)]}
			for _, g := range []string{"G1", "G2"} {
				if rnd.IntN(2) == 0 {
					sh.groups = append(sh.groups, g)
				}
			}
			product := products[rnd.IntN(len(products))]
			qty := int64(1 + rnd.IntN(7))
			tok := s.token(fmt.Sprintf("cust-%d", round), sh.customerType, sh.country, sh.groups...)
			want, wantList := refPrice(lists, product, sh, qty, now)
			if wantList != "" {
				listed++
			}
			what := fmt.Sprintf("round %d: %d of %s for %+v, lists %+v", round, qty, product, sh, lists)

			shown := s.infoPrice(tok, product, int(qty))
			if shown == nil || shown.Amount.String() != fmt.Sprintf("%g", float64(want)/100) || shown.PriceListID != wantList {
				t.Fatalf("%s: product.info shows %+v, want %d cents from %q", what, shown, want, wantList)
			}
			c := s.newCart(tok, product, int(qty))
			got := s.calc(tok, c.ID)
			if len(got.Items) != 1 || got.Items[0].Price.Amount != want || got.Items[0].Price.PriceListID != wantList {
				t.Fatalf("%s: calculateCart prices %+v, want %d cents from %q", what, got.Items, want, wantList)
			}
			if paid := s.checkout(tok, c.ID); paid[product] != want {
				t.Fatalf("%s: the order's unit price is %d, want %d", what, paid[product], want)
			}
			for _, l := range lists {
				s.Post(t, "/catalog/v1/priceList.remove", s.Admin, map[string]any{"id": l.id}).Must(t)
			}
		}
		if listed == 0 {
			t.Fatalf("no round was priced by a price list: the test proves little (seed %d)", seed)
		}
	})
}
