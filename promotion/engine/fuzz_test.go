package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/commercekit/commerce"
)

// fuzzCatalog: c2 is under c1, c1 under c0; p3 is in no category.
var fuzzCatalog = Categories{
	"p0": {"c1", "c0"},
	"p1": {"c2", "c1", "c0"},
	"p2": {"c0"},
}

// fuzzCart turns bytes into entries, three bytes each: product (p0..p4, p4
// unknown to every rule), quantity (0..7) and unit price (-100..9335).
func fuzzCart(b []byte) []Entry {
	var entries []Entry
	for i := 0; i+3 <= len(b) && len(entries) < 20; i += 3 {
		entries = append(entries, Entry{
			ID:        fmt.Sprintf("e%d", len(entries)),
			ProductID: fmt.Sprintf("p%d", b[i]%5),
			Quantity:  int(b[i+1] % 8),
			UnitPrice: int64(b[i+2])*37 - 100,
		})
	}
	return entries
}

// genRule writes a random well-formed rule from the bytes of shape, so the
// engine meets deep and varied rules that byte mutations of JSON seldom
// reach.
func genRule(shape *[]byte, cond bool, depth int) string {
	next := func() int {
		if len(*shape) == 0 {
			return 0
		}
		b := (*shape)[0]
		*shape = (*shape)[1:]
		return int(b)
	}
	k := next() % 4
	if depth >= 4 {
		k %= 2
	}
	switch k {
	case 0, 1:
		if !cond && k == 1 && next()%3 == 0 {
			return fmt.Sprintf(`{"shipping":{"discount":{"rate":%d,"isPercentage":true}}}`, next()%101)
		}
		kind, id := "category", fmt.Sprintf("c%d", next()%4)
		if k == 1 {
			kind, id = "product", fmt.Sprintf("p%d", next()%5)
		}
		extra := ""
		if cond {
			if t := next() % 5; t < 4 {
				extra += fmt.Sprintf(`,"threshold":%g`, float64(t)/3)
			}
			if next()%2 == 1 {
				extra += `,"lowestPrice":true`
			}
		} else {
			switch r := next(); r % 3 {
			case 0:
				extra = fmt.Sprintf(`,"discount":{"rate":%d.%d,"isPercentage":true}`, r%100, next()%10)
			case 1:
				extra = fmt.Sprintf(`,"discount":{"rate":%g,"isFixedPrice":true}`, float64(next())/7)
			default:
				extra = fmt.Sprintf(`,"discount":{"rate":%g}`, float64(next())/3)
			}
		}
		return fmt.Sprintf(`{%q:{"id":%q,"quantity":%d%s}}`, kind, id, 1+next()%4, extra)
	}
	kids := ""
	for i := range 1 + next()%3 {
		if i > 0 {
			kids += ","
		}
		kids += genRule(shape, cond, depth+1)
	}
	return fmt.Sprintf(`{%q:[%s]}`, []string{"all", "any"}[k-2], kids)
}

// FuzzEngine parses arbitrary rules, and rules generated from shape, and
// evaluates them, with two fixed promotions competing for the units,
// against an arbitrary cart. The bits of precision above the currency's
// also choose a shipping rate (the target of shipping rules), a coupon
// code on the fuzzed promotion and whether the cart holds it, and dates
// that keep the generated promotion out.
func FuzzEngine(f *testing.F) {
	carts := [][]byte{
		{0, 3, 27, 1, 2, 120, 2, 1, 250},
		{1, 7, 3, 1, 7, 200, 0, 5, 0, 3, 2, 9, 4, 1, 1},
	}
	seeds := [][2]string{
		{bundleIf, bundleThen}, {b1g1If, b1g1Then}, {fixedIf, fixedThen}, {multiIf, multiThen},
		{partnerIf, partnerThen}, {oneToOneIf, oneToOneTh}, {pbundleIf, pbundleThen},
		{pctIf, pctThen}, {cheap3If, cheap3Then},
		{`{"category":{"id":"c1","quantity":3,"lowestPrice":true}}`, `{"category":{"id":"c1","quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`},
		{`{"any":[{"product":{"id":"p0","quantity":2}},{"category":{"id":"c2","quantity":1,"threshold":0}}]}`, `{"any":[{"product":{"id":"p1","quantity":1,"discount":{"rate":0.005}}}]}`},
		{`{"all":[{"product":{"id":"p0","quantity":1}},{"any":[{"category":{"id":"c0","quantity":2}},{"product":{"id":"p2","quantity":3}}]}]}`, `{"all":[{"category":{"id":"c0","quantity":2,"discount":{"rate":1e-30,"isPercentage":true}}},{"product":{"id":"p2","quantity":1,"discount":{"rate":99999999999999999}}}]}`},
		{`{"category":{"id":"c0","quantity":1}}`, `{"category":{"id":"c0","quantity":1,"discount":{"rate":10,"isPercentaje":true}}}`},
		{nest(9, `{"product":{"id":"p0","quantity":1}}`), `{}`},
		{`{"category":{"id":"c0","quantity":2}}`, `{"shipping":{"discount":{"rate":100,"isPercentage":true}}}`},
		{`{"product":{"id":"p1","quantity":1}}`, `{"all":[{"shipping":{"discount":{"rate":2.5}}},{"product":{"id":"p1","quantity":1,"discount":{"rate":1}}}]}`},
		{`{"shipping":{"discount":{"rate":1}}}`, `{"shipping":{"discount":{"rate":1}}}`},
	}
	for i, s := range seeds {
		f.Add(s[0], s[1], carts[i%len(carts)], []byte{byte(i), 3, 1, 7, 2, 2, 9, 0, 1, 4}, uint8(i%4))
	}
	background := promotions(f,
		promo{"bg2", 5, `{"category":{"id":"c1","quantity":2}}`, `{"category":{"id":"c1","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`},
		promo{"bg9", 0, `{"category":{"id":"c0","quantity":3,"lowestPrice":true}}`, `{"category":{"id":"c0","quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`},
	)
	f.Fuzz(func(t *testing.T, ifJSON, thenJSON string, cart, shape []byte, precision uint8) {
		genIf, genThen := genRule(&shape, true, 1), genRule(&shape, false, 1)
		gen, err := Parse(json.RawMessage(genIf), json.RawMessage(genThen))
		if err != nil {
			t.Fatalf("generated rules %s %s: %v", genIf, genThen, err)
		}
		background := append(background, Promotion{ID: "gen", Title: "generated", Priority: 1, Seq: 3, Rules: gen})
		now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		in := Input{Precision: int(precision % 5), Categories: fuzzCatalog, Now: now}
		if precision&8 != 0 {
			rate := int64(precision) * 13
			in.Shipping = &rate
		}
		outOfDates := precision&64 != 0
		if outOfDates {
			background[len(background)-1].Start = now.Add(time.Second)
		}
		r, err := Parse(json.RawMessage(ifJSON), json.RawMessage(thenJSON))
		if err != nil {
			if code := commerce.ErrorCode(err); code != commerce.EValidation {
				t.Fatalf("got code %q, want %q", code, commerce.EValidation)
			}
			if problems, _ := commerce.ErrorData(err).([]string); len(problems) == 0 {
				t.Fatalf("got no problems for %v", err)
			}
			r = Rules{} // evaluated anyway: a malformed rule must never fire
		} else {
			ifB, _ := json.Marshal(r.If)
			thenB, _ := json.Marshal(r.Then)
			back, err := Parse(ifB, thenB)
			if err != nil || !reflect.DeepEqual(back, r) {
				t.Fatalf("round trip of %s %s: got %s (%v), want %s", ifB, thenB, show(back), err, show(r))
			}
		}

		entries := fuzzCart(cart)
		fz := Promotion{ID: "fz", Title: "fuzz", Priority: 1, Seq: 2, Rules: r}
		coded := precision&16 != 0
		if coded {
			fz.Code = "fzcode"
		}
		if precision&32 != 0 {
			in.Coupons = []string{"other", "fzcode"}
		}
		ps := append([]Promotion{fz}, background...)
		ix := NewIndex(ps)
		in.Entries = entries
		res := ix.EvaluateCart(in)
		if again := ix.EvaluateCart(in); !reflect.DeepEqual(again, res) {
			t.Fatalf("second evaluation: got %s, want %s", show(again), show(res))
		}
		unfiltered := NewIndex(ps)
		unfiltered.unfiltered = true
		if all := unfiltered.EvaluateCart(in); !reflect.DeepEqual(all, res) {
			t.Fatalf("without the index filter: got %s, want %s", show(all), show(res))
		}
		seen := map[string]bool{}
		for _, id := range res.Fired {
			if seen[id] {
				t.Fatalf("fired %v: %s twice", res.Fired, id)
			}
			seen[id] = true
		}
		if coded && precision&32 == 0 && seen["fz"] || outOfDates && seen["gen"] {
			t.Fatalf("fired %v: a promotion not eligible fired", res.Fired)
		}
		if sd := res.Shipping; sd != nil {
			if in.Shipping == nil || sd.Rate != *in.Shipping || sd.Discount <= 0 || sd.Discount > sd.Rate || !seen[sd.PromotionID] {
				t.Fatalf("shipping discount %s with rate %v: want 0 < discount <= rate, by a promotion that fired", show(sd), in.Shipping)
			}
		}
		byID := map[string]Entry{}
		for _, e := range entries {
			byID[e.ID] = e
		}
		units := map[string]int{}
		for _, it := range res.ItemDiscounts {
			e, ok := byID[it.ID]
			if !ok || len(it.Discounts) == 0 {
				t.Fatalf("item %s: unknown entry or no discounts", show(it))
			}
			for _, d := range it.Discounts {
				if !seen[d.PromotionID] {
					t.Fatalf("discount %+v by a promotion not in fired %v", d, res.Fired)
				}
				if d.Discount <= 0 || d.Discount > e.UnitPrice || d.UnitPrice != e.UnitPrice || d.Quantity <= 0 {
					t.Fatalf("entry %+v: got discount %+v, want 0 < discount <= price", e, d)
				}
				units[it.ID] += d.Quantity
			}
			if units[it.ID] > e.Quantity {
				t.Fatalf("entry %+v: got %d discounted units, want at most %d", e, units[it.ID], e.Quantity)
			}
		}
		for _, a := range res.AlmostFulfilled {
			if len(a.Data) == 0 {
				t.Fatalf("almost fulfilled %s: no data", show(a))
			}
			for _, l := range a.Data {
				n := 0
				for _, u := range l.Items {
					if e, ok := byID[u.ItemID]; !ok || u.QuantityToUse <= 0 || u.QuantityToUse > e.Quantity {
						t.Fatalf("almost fulfilled %s: bad item %+v", show(a), u)
					}
					n += u.QuantityToUse
				}
				if n != l.CollectedQuantity || n <= 0 || n >= l.PromoQuantity || l.Value < l.Threshold || math.IsNaN(l.Value) {
					t.Fatalf("almost fulfilled %s: inconsistent leaf", show(a))
				}
			}
		}
	})
}
