package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/commercekit/commerce"
)

// coded returns the promotions of ps with code, start and end set on the
// one with the id.
func withCoupon(t *testing.T, id, code string, start, end time.Time, ps ...promo) *Index {
	t.Helper()
	list := promotions(t, ps...)
	for i := range list {
		if list[i].ID == id {
			list[i].Code, list[i].Start, list[i].End = code, start, end
		}
	}
	return NewIndex(list)
}

func TestCodedPromotion(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ix := withCoupon(t, "c", "save10", time.Time{}, time.Time{},
		promo{"c", 1, pctIf, pctThen},
		promo{"open", 2, fixedIf, fixedThen})
	entries := []Entry{{"E1", "cam", 1, 10000}, {"E2", "s1", 1, 1000}}
	tests := []struct {
		name    string
		coupons []string
		want    []ItemDiscount
		fired   []string
	}{
		{"without the code", nil, []ItemDiscount{item("E2", disc("open", 1, 1000, 500))}, []string{"open"}},
		{"another code", []string{"other"}, []ItemDiscount{item("E2", disc("open", 1, 1000, 500))}, []string{"open"}},
		{"with the code", []string{"other", "save10"}, []ItemDiscount{item("E1", disc("c", 1, 10000, 2000)), item("E2", disc("open", 1, 1000, 500))}, []string{"c", "open"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ix.EvaluateCart(Input{Entries: entries, Precision: 2, Categories: catalog, Coupons: tc.coupons, Now: now})
			if !reflect.DeepEqual(got.ItemDiscounts, tc.want) || !slices.Equal(got.Fired, tc.fired) {
				t.Errorf("got %s fired %v, want %s fired %v", show(got.ItemDiscounts), got.Fired, show(tc.want), tc.fired)
			}
		})
	}
	t.Run("not almost fulfilled without the code", func(t *testing.T) {
		ix := withCoupon(t, "c", "save10", time.Time{}, time.Time{}, promo{"c", 1, `{"category":{"id":"cameras","quantity":2}}`, pctThen})
		in := Input{Entries: []Entry{{"E1", "cam", 1, 10000}}, Precision: 2, Categories: catalog, Now: now}
		if got := ix.EvaluateCart(in); len(got.AlmostFulfilled) != 0 {
			t.Errorf("got almost fulfilled %s without the code, want none", show(got.AlmostFulfilled))
		}
		in.Coupons = []string{"save10"}
		if got := ix.EvaluateCart(in); len(got.AlmostFulfilled) != 1 {
			t.Errorf("got almost fulfilled %s with the code, want the promotion", show(got.AlmostFulfilled))
		}
	})
	t.Run("excluded", func(t *testing.T) {
		got := ix.EvaluateCart(Input{Entries: entries, Precision: 2, Categories: catalog, Coupons: []string{"save10"}, Now: now, Exclude: []string{"c"}})
		if want := []ItemDiscount{item("E2", disc("open", 1, 1000, 500))}; !reflect.DeepEqual(got.ItemDiscounts, want) {
			t.Errorf("got %s, want %s", show(got.ItemDiscounts), show(want))
		}
	})
}

func TestDatedPromotion(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	end := start.Add(24 * time.Hour)
	entries := []Entry{{"E1", "cam", 1, 10000}}
	applies := []ItemDiscount{item("E1", disc("d", 1, 10000, 2000))}
	tests := []struct {
		name       string
		start, end time.Time
		now        time.Time
		want       []ItemDiscount
	}{
		{"before start", start, end, start.Add(-time.Nanosecond), []ItemDiscount{}},
		{"at start", start, end, start, applies},
		{"inside", start, end, start.Add(time.Hour), applies},
		{"just before end", start, end, end.Add(-time.Millisecond), applies},
		{"at end", start, end, end, []ItemDiscount{}},
		{"after end", start, end, end.Add(time.Hour), []ItemDiscount{}},
		{"start only, later", start, time.Time{}, start.Add(1000 * time.Hour), applies},
		{"end only, earlier", time.Time{}, end, start.Add(-1000 * time.Hour), applies},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The same index follows the clock: no rebuild when a
			// promotion starts or ends.
			ix := withCoupon(t, "d", "", tc.start, tc.end, promo{"d", 1, pctIf, pctThen})
			got := ix.EvaluateCart(Input{Entries: entries, Precision: 2, Categories: catalog, Now: tc.now})
			if !reflect.DeepEqual(got.ItemDiscounts, tc.want) {
				t.Errorf("got %s, want %s", show(got.ItemDiscounts), show(tc.want))
			}
		})
	}
}

const freeShipThen = `{"shipping":{"discount":{"rate":100,"isPercentage":true}}}`

func TestShippingRule(t *testing.T) {
	rate := func(v int64) *int64 { return &v }
	ps := []promo{
		{"free", 1, `{"category":{"id":"shirts","quantity":2}}`, freeShipThen},
		{"half", 2, `{"category":{"id":"shirts","quantity":1}}`, `{"shipping":{"discount":{"rate":50,"isPercentage":true}}}`},
		{"both", 3, `{"product":{"id":"cam","quantity":1}}`, `{"all":[{"shipping":{"discount":{"rate":3}}},{"product":{"id":"cam","quantity":1,"discount":{"rate":10}}}]}`},
	}
	tests := []struct {
		name     string
		entries  []Entry
		shipping *int64
		wantShip *ShippingDiscount
		wantIt   []ItemDiscount
		fired    []string
		almost   []AlmostFulfilled
	}{
		{"free shipping", []Entry{{"E1", "s1", 2, 1000}}, rate(495), &ShippingDiscount{"free", "T free", 495, 495}, []ItemDiscount{}, []string{"free"}, []AlmostFulfilled{}},
		{"the line is taken once", []Entry{{"E1", "s1", 5, 1000}}, rate(495), &ShippingDiscount{"free", "T free", 495, 495}, []ItemDiscount{}, []string{"free"}, []AlmostFulfilled{}},
		{"a lower priority one when the first does not fire", []Entry{{"E1", "s1", 1, 1000}}, rate(495), &ShippingDiscount{"half", "T half", 495, 248}, []ItemDiscount{}, []string{"half"},
			[]AlmostFulfilled{}},
		{"no shipping method: no firing, units free", []Entry{{"E1", "s1", 2, 1000}}, nil, nil, []ItemDiscount{}, nil, []AlmostFulfilled{}},
		{"fixed amount capped at the rate, with units", []Entry{{"E1", "cam", 1, 5000}}, rate(200), &ShippingDiscount{"both", "T both", 200, 200},
			[]ItemDiscount{item("E1", disc("both", 1, 5000, 1000))}, []string{"both"}, []AlmostFulfilled{}},
		{"shipping taken, units still target", []Entry{{"E1", "cam", 2, 5000}}, rate(200), &ShippingDiscount{"both", "T both", 200, 200},
			[]ItemDiscount{item("E1", disc("both", 2, 5000, 1000))}, []string{"both"}, []AlmostFulfilled{}},
		{"zero rate: fires, nothing listed", []Entry{{"E1", "s1", 2, 1000}}, rate(0), nil, []ItemDiscount{}, []string{"free"}, []AlmostFulfilled{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, unfiltered := range []bool{false, true} {
				ix := newIndex(t, ps...)
				ix.unfiltered = unfiltered
				got := ix.EvaluateCart(Input{Entries: tc.entries, Precision: 2, Categories: catalog, Shipping: tc.shipping, Now: time.Now()})
				if !reflect.DeepEqual(got.Shipping, tc.wantShip) || !reflect.DeepEqual(got.ItemDiscounts, tc.wantIt) || !slices.Equal(got.Fired, tc.fired) {
					t.Errorf("got shipping %s items %s fired %v, want %s %s %v", show(got.Shipping), show(got.ItemDiscounts), got.Fired, show(tc.wantShip), show(tc.wantIt), tc.fired)
				}
				if !reflect.DeepEqual(got.AlmostFulfilled, tc.almost) {
					t.Errorf("got almost %s, want %s", show(got.AlmostFulfilled), show(tc.almost))
				}
			}
		})
	}
	t.Run("almost fulfilled", func(t *testing.T) {
		ix := newIndex(t, promo{"free", 1, `{"category":{"id":"shirts","quantity":3}}`, freeShipThen})
		got := ix.EvaluateCart(Input{Entries: []Entry{{"E1", "s1", 2, 1000}}, Precision: 2, Categories: catalog, Shipping: rate(495), Now: time.Now()})
		want := []AlmostFulfilled{af("free", leaf("CATEGORY", "shirts", 2, 3, use("E1", 2)))}
		if !reflect.DeepEqual(got.AlmostFulfilled, want) || got.Shipping != nil {
			t.Errorf("got %s shipping %s, want %s and no shipping discount", show(got.AlmostFulfilled), show(got.Shipping), show(want))
		}
	})
	t.Run("validation", func(t *testing.T) {
		for _, tc := range []struct{ name, ifJSON, thenJSON, want string }{
			{"in if", `{"shipping":{"discount":{"rate":1}}}`, freeShipThen, "if.shipping: only allowed in then rules"},
			{"no discount", pctIf, `{"shipping":{}}`, "then.shipping.discount: required"},
			{"an id", pctIf, `{"shipping":{"id":"x","discount":{"rate":1}}}`, "then.shipping.id: unknown property"},
			{"percentage over 100", pctIf, `{"shipping":{"discount":{"rate":101,"isPercentage":true}}}`, "then.shipping.discount.rate: must be between 0 and 100 for a percentage"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := Parse(json.RawMessage(tc.ifJSON), json.RawMessage(tc.thenJSON))
				problems, _ := commerce.ErrorData(err).([]string)
				if !slices.Contains(problems, tc.want) {
					t.Errorf("got %q, want %q among them", problems, tc.want)
				}
			})
		}
		r, err := Parse(json.RawMessage(pctIf), json.RawMessage(freeShipThen))
		if err != nil || show(r.Then) != freeShipThen {
			t.Errorf("got %s (%v), want %s", show(r.Then), err, freeShipThen)
		}
	})
}
