package engine

import (
	"reflect"
	"testing"
)

// catalog: "combi" is a sub-category of "fridges"; the lists hold the
// ancestors, as Categories requires.
var catalog = Categories{
	"pa":   {"fridges", "ROOT"},
	"pb":   {"fridges", "ROOT"},
	"pc":   {"combi", "fridges", "ROOT"},
	"p1":   {"c1", "ROOT"},
	"px":   {"c", "ROOT"},
	"py":   {"c", "ROOT"},
	"pz":   {"c", "ROOT"},
	"s1":   {"shirts", "ROOT"},
	"s2":   {"shirts", "ROOT"},
	"s3":   {"shirts", "ROOT"},
	"con":  {"consoles", "ROOT"},
	"g1":   {"games", "ROOT"},
	"p001": {"games", "ROOT"},
	"acc1": {"accessories", "ROOT"},
	"acc2": {"accessories", "ROOT"},
	"cam":  {"cameras", "ROOT"},
	"dup":  {"c", "c", "ROOT", "c"},
}

// Rules of PROMOTION-EXAMPLES.md, by type number.
const (
	bundleIf    = `{"all":[{"product":{"id":"pA","quantity":1}},{"product":{"id":"pB","quantity":1}},{"product":{"id":"pC","quantity":1}}]}`
	bundleThen  = `{"all":[{"product":{"id":"pA","quantity":1,"discount":{"rate":50,"isFixedPrice":true}}},{"product":{"id":"pB","quantity":1,"discount":{"rate":100,"isPercentage":true}}},{"product":{"id":"pC","quantity":1,"discount":{"rate":100,"isPercentage":true}}}]}`
	b1g1If      = `{"category":{"id":"c1","quantity":2}}`
	b1g1Then    = `{"category":{"id":"c1","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`
	fixedIf     = `{"category":{"id":"shirts","quantity":1}}`
	fixedThen   = `{"category":{"id":"shirts","quantity":1,"discount":{"rate":5,"isFixedPrice":true}}}`
	multiIf     = `{"category":{"id":"shirts","quantity":3}}`
	multiThen   = `{"all":[{"category":{"id":"shirts","quantity":1,"discount":{"rate":50,"isFixedPrice":true}}},{"category":{"id":"shirts","quantity":2,"discount":{"rate":100,"isPercentage":true}}}]}`
	partnerIf   = `{"category":{"id":"consoles","quantity":1}}`
	partnerThen = `{"category":{"id":"games","quantity":1,"discount":{"rate":10,"isFixedPrice":true}}}`
	oneToOneIf  = `{"all":[{"product":{"id":"p001","quantity":1}},{"category":{"id":"accessories","quantity":1}}]}`
	oneToOneTh  = `{"all":[{"product":{"id":"p001","quantity":1,"discount":{"rate":25,"isFixedPrice":true}}},{"category":{"id":"accessories","quantity":1,"discount":{"rate":100,"isPercentage":true}}}]}`
	pbundleIf   = `{"all":[{"product":{"id":"con","quantity":1}},{"category":{"id":"accessories","quantity":3}}]}`
	pbundleThen = `{"all":[{"product":{"id":"con","quantity":1,"discount":{"rate":200,"isFixedPrice":true}}},{"category":{"id":"accessories","quantity":3,"discount":{"rate":100,"isPercentage":true}}}]}`
	pctIf       = `{"category":{"id":"cameras","quantity":1}}`
	pctThen     = `{"category":{"id":"cameras","quantity":1,"discount":{"rate":20,"isPercentage":true}}}`
	cheap3If    = `{"category":{"id":"fridges","quantity":3,"lowestPrice":true}}`
	cheap3Then  = `{"category":{"id":"fridges","quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name       string
		promos     []promo
		entries    []Entry
		precision  int // 2 unless set
		precSet    bool
		wantItems  []ItemDiscount
		wantAlmost []AlmostFulfilled
	}{
		{
			name:   "worked example of docs/api.md",
			promos: []promo{{"fx", 1, cheap3If, cheap3Then}},
			entries: []Entry{
				{"A", "pa", 1, 57765},
				{"B", "pb", 2, 32147},
				{"C", "pc", 2, 46900},
			},
			wantItems: []ItemDiscount{
				item("B", disc("fx", 2, 32147, 31147)),
				item("C", disc("fx", 1, 46900, 45900)),
			},
			wantAlmost: []AlmostFulfilled{af("fx", leaf("CATEGORY", "fridges", 2, 3, use("C", 1), use("A", 1)))},
		},
		{
			name:      "type 2 buy one get one free fires twice on 4 units",
			promos:    []promo{{"b", 1, b1g1If, b1g1Then}},
			entries:   []Entry{{"S", "p1", 4, 1000}},
			wantItems: []ItemDiscount{item("S", disc("b", 2, 1000, 1000))},
		},
		{
			name:       "type 2 on 3 units fires once and the third is almost fulfilled",
			promos:     []promo{{"b", 1, b1g1If, b1g1Then}},
			entries:    []Entry{{"S", "p1", 3, 1000}},
			wantItems:  []ItemDiscount{item("S", disc("b", 1, 1000, 1000))},
			wantAlmost: []AlmostFulfilled{af("b", leafT("CATEGORY", "c1", 1, 2, 0.5, use("S", 1)))},
		},
		{
			name:   "type 2 over two entries",
			promos: []promo{{"b", 1, b1g1If, b1g1Then}},
			entries: []Entry{
				{"S", "p1", 1, 1000},
				{"T", "p1", 3, 700},
			},
			// Cart order: S+T, then T+T; the first `if` unit of each is free.
			wantItems: []ItemDiscount{item("S", disc("b", 1, 1000, 1000)), item("T", disc("b", 1, 700, 700))},
		},
		{
			name:   "type 1 bundle",
			promos: []promo{{"bu", 1, bundleIf, bundleThen}},
			entries: []Entry{
				{"A", "pA", 1, 8000},
				{"B", "pB", 1, 3000},
				{"C", "pC", 1, 2000},
			},
			wantItems: []ItemDiscount{
				item("A", disc("bu", 1, 8000, 3000)),
				item("B", disc("bu", 1, 3000, 3000)),
				item("C", disc("bu", 1, 2000, 2000)),
			},
		},
		{
			name:    "bundle with a product missing neither fires nor is almost fulfilled",
			promos:  []promo{{"bu", 1, bundleIf, bundleThen}},
			entries: []Entry{{"A", "pA", 1, 8000}, {"B", "pB", 1, 3000}},
		},
		{
			name: "bundle almost fulfilled lists only the almost leaf",
			promos: []promo{{"bu", 1,
				`{"all":[{"product":{"id":"pA","quantity":1}},{"product":{"id":"pB","quantity":2}}]}`,
				`{"product":{"id":"pA","quantity":1,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries:    []Entry{{"A", "pA", 1, 8000}, {"B", "pB", 1, 3000}},
			wantAlmost: []AlmostFulfilled{af("bu", leaf("PRODUCT", "pB", 1, 2, use("B", 1)))},
		},
		{
			name: "all needs disjoint units",
			promos: []promo{{"d", 1,
				`{"all":[{"category":{"id":"c","quantity":1}},{"category":{"id":"c","quantity":1}}]}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries: []Entry{{"X", "px", 1, 1000}},
		},
		{
			name: "all with enough units fires",
			promos: []promo{{"d", 1,
				`{"all":[{"category":{"id":"c","quantity":1}},{"category":{"id":"c","quantity":1}}]}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries:   []Entry{{"X", "px", 1, 1000}, {"Y", "py", 1, 900}},
			wantItems: []ItemDiscount{item("X", disc("d", 1, 1000, 1000))},
		},
		{
			name: "any in if; then takes the if units before cart order",
			promos: []promo{{"a", 1,
				`{"any":[{"product":{"id":"px","quantity":1}},{"product":{"id":"py","quantity":1}}]}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":50,"isPercentage":true}}}`}},
			entries: []Entry{{"Z", "pz", 1, 1000}, {"Y", "py", 1, 1000}, {"X", "px", 1, 1000}},
			wantItems: []ItemDiscount{
				item("Y", disc("a", 1, 1000, 500)),
				item("X", disc("a", 1, 1000, 500)),
			},
		},
		{
			name: "any in if takes the first satisfied sub-rule",
			promos: []promo{{"a", 1,
				`{"any":[{"category":{"id":"c","quantity":2}},{"product":{"id":"px","quantity":1}}]}`,
				`{"product":{"id":"px","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries:   []Entry{{"X", "px", 1, 1000}, {"Y", "py", 1, 800}},
			wantItems: []ItemDiscount{item("X", disc("a", 1, 1000, 1000))},
		},
		{
			name: "any in if in the other order leaves a unit almost fulfilled",
			promos: []promo{{"a", 1,
				`{"any":[{"product":{"id":"px","quantity":1}},{"category":{"id":"c","quantity":2}}]}`,
				`{"product":{"id":"px","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries:    []Entry{{"X", "px", 1, 1000}, {"Y", "py", 1, 800}},
			wantItems:  []ItemDiscount{item("X", disc("a", 1, 1000, 1000))},
			wantAlmost: []AlmostFulfilled{af("a", leaf("CATEGORY", "c", 1, 2, use("Y", 1)))},
		},
		{
			name: "any in if almost fulfilled by any sub-rule",
			promos: []promo{{"a", 1,
				`{"any":[{"product":{"id":"px","quantity":3}},{"product":{"id":"py","quantity":2}}]}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries:    []Entry{{"X", "px", 2, 1000}, {"Y", "py", 1, 800}},
			wantAlmost: []AlmostFulfilled{af("a", leaf("PRODUCT", "px", 2, 3, use("X", 2)), leaf("PRODUCT", "py", 1, 2, use("Y", 1)))},
		},
		{
			name: "any in then applies only the first sub-rule",
			promos: []promo{{"a", 1,
				`{"category":{"id":"c","quantity":1}}`,
				`{"any":[{"product":{"id":"px","quantity":1,"discount":{"rate":100,"isPercentage":true}}},{"product":{"id":"py","quantity":1,"discount":{"rate":50,"isPercentage":true}}}]}`}},
			entries:   []Entry{{"X", "px", 1, 1000}, {"Y", "py", 1, 800}},
			wantItems: []ItemDiscount{item("X", disc("a", 1, 1000, 1000))},
		},
		{
			name: "any in then whose first sub-rule finds no target does not fire",
			promos: []promo{{"a", 1,
				`{"category":{"id":"c","quantity":1}}`,
				`{"any":[{"product":{"id":"px","quantity":1,"discount":{"rate":100,"isPercentage":true}}},{"product":{"id":"py","quantity":1,"discount":{"rate":50,"isPercentage":true}}}]}`}},
			entries: []Entry{{"Y", "py", 1, 800}},
		},
		{
			name: "lower priority number first and units are consumed",
			promos: []promo{
				{"p10", 2, `{"product":{"id":"px","quantity":1}}`, `{"product":{"id":"px","quantity":1,"discount":{"rate":10,"isPercentage":true}}}`},
				{"p50", 1, `{"product":{"id":"px","quantity":2}}`, `{"product":{"id":"px","quantity":1,"discount":{"rate":50,"isPercentage":true}}}`},
			},
			entries:   []Entry{{"X", "px", 3, 1000}},
			wantItems: []ItemDiscount{item("X", disc("p50", 1, 1000, 500), disc("p10", 1, 1000, 100))},
		},
		{
			name: "priority ties go to the earlier created",
			promos: []promo{
				{"first", 1, `{"product":{"id":"px","quantity":1}}`, `{"product":{"id":"px","quantity":1,"discount":{"rate":1}}}`},
				{"second", 1, `{"product":{"id":"px","quantity":1}}`, `{"product":{"id":"px","quantity":1,"discount":{"rate":2}}}`},
			},
			entries:   []Entry{{"X", "px", 2, 1000}},
			wantItems: []ItemDiscount{item("X", disc("first", 2, 1000, 100))},
		},
		{
			name: "cart order without lowestPrice",
			promos: []promo{{"o", 1, `{"category":{"id":"c","quantity":2}}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries:    []Entry{{"E", "px", 1, 1000}, {"M", "py", 1, 500}, {"C", "pz", 1, 100}},
			wantItems:  []ItemDiscount{item("E", disc("o", 1, 1000, 1000))},
			wantAlmost: []AlmostFulfilled{af("o", leaf("CATEGORY", "c", 1, 2, use("C", 1)))},
		},
		{
			name: "cheapest first with lowestPrice, in if and then",
			promos: []promo{{"o", 1, `{"category":{"id":"c","quantity":2,"lowestPrice":true}}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`}},
			entries:    []Entry{{"E", "px", 1, 1000}, {"M", "py", 1, 500}, {"C", "pz", 1, 100}},
			wantItems:  []ItemDiscount{item("C", disc("o", 1, 100, 100))},
			wantAlmost: []AlmostFulfilled{af("o", leaf("CATEGORY", "c", 1, 2, use("E", 1)))},
		},
		{
			name: "fixed price above the unit price: no discount listed, units consumed",
			promos: []promo{
				{"fix", 1, `{"category":{"id":"c","quantity":1}}`, `{"category":{"id":"c","quantity":1,"discount":{"rate":5,"isFixedPrice":true}}}`},
				{"pct", 2, `{"category":{"id":"c","quantity":1}}`, `{"category":{"id":"c","quantity":1,"discount":{"rate":10,"isPercentage":true}}}`},
			},
			entries: []Entry{{"X", "px", 1, 400}},
		},
		{
			name: "amount above the unit price is capped at the price",
			promos: []promo{{"amt", 1, `{"category":{"id":"c","quantity":1}}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":7.5}}}`}},
			entries:   []Entry{{"X", "px", 1, 400}, {"Y", "py", 1, 1000}},
			wantItems: []ItemDiscount{item("X", disc("amt", 1, 400, 400)), item("Y", disc("amt", 1, 1000, 750))},
		},
		{
			name: "default threshold excludes 2 of 4",
			promos: []promo{{"th", 1, `{"product":{"id":"px","quantity":4}}`,
				`{"product":{"id":"px","quantity":4,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries: []Entry{{"X", "px", 2, 1000}},
		},
		{
			name: "default threshold accepts 3 of 4",
			promos: []promo{{"th", 1, `{"product":{"id":"px","quantity":4}}`,
				`{"product":{"id":"px","quantity":4,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries:    []Entry{{"X", "px", 3, 1000}},
			wantAlmost: []AlmostFulfilled{af("th", leafT("PRODUCT", "px", 3, 4, 0.75, use("X", 3)))},
		},
		{
			name: "explicit threshold accepts 2 of 4",
			promos: []promo{{"th", 1, `{"product":{"id":"px","quantity":4,"threshold":0.5}}`,
				`{"product":{"id":"px","quantity":4,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries:    []Entry{{"X", "px", 2, 1000}},
			wantAlmost: []AlmostFulfilled{af("th", leafT("PRODUCT", "px", 2, 4, 0.5, use("X", 2)))},
		},
		{
			name: "explicit threshold 0 accepts any unit",
			promos: []promo{{"th", 1, `{"product":{"id":"px","quantity":4,"threshold":0}}`,
				`{"product":{"id":"px","quantity":4,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries:    []Entry{{"X", "px", 1, 1000}},
			wantAlmost: []AlmostFulfilled{af("th", leafT("PRODUCT", "px", 1, 4, 0, use("X", 1)))},
		},
		{
			name: "explicit threshold 1 is never almost",
			promos: []promo{{"th", 1, `{"product":{"id":"px","quantity":4,"threshold":1}}`,
				`{"product":{"id":"px","quantity":4,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries: []Entry{{"X", "px", 3, 1000}},
		},
		{
			name: "threshold excludes one leaf of an all",
			promos: []promo{{"th", 1,
				`{"all":[{"product":{"id":"px","quantity":2}},{"product":{"id":"py","quantity":4,"threshold":0.8}}]}`,
				`{"product":{"id":"px","quantity":1,"discount":{"rate":10,"isPercentage":true}}}`}},
			entries: []Entry{{"X", "px", 1, 1000}, {"Y", "py", 3, 1000}},
		},
		{
			name: "product in a sub-category counts for its ancestor",
			promos: []promo{{"sub", 1, `{"category":{"id":"fridges","quantity":1}}`,
				`{"category":{"id":"fridges","quantity":1,"discount":{"rate":20,"isPercentage":true}}}`}},
			entries:   []Entry{{"C", "pc", 1, 46900}},
			wantItems: []ItemDiscount{item("C", disc("sub", 1, 46900, 9380))},
		},
		{
			name:      "type 3 fixed price",
			promos:    []promo{{"t3", 1, fixedIf, fixedThen}},
			entries:   []Entry{{"S", "s1", 2, 2000}},
			wantItems: []ItemDiscount{item("S", disc("t3", 2, 2000, 1500))},
		},
		{
			name:    "type 4 multi-buy",
			promos:  []promo{{"t4", 1, multiIf, multiThen}},
			entries: []Entry{{"A", "s1", 1, 6000}, {"B", "s2", 1, 7000}, {"C", "s3", 2, 8000}},
			wantItems: []ItemDiscount{
				item("A", disc("t4", 1, 6000, 1000)),
				item("B", disc("t4", 1, 7000, 7000)),
				item("C", disc("t4", 1, 8000, 8000)),
			},
		},
		{
			name:      "type 5 perfect partner",
			promos:    []promo{{"t5", 1, partnerIf, partnerThen}},
			entries:   []Entry{{"K", "con", 1, 30000}, {"G", "g1", 2, 6000}},
			wantItems: []ItemDiscount{item("G", disc("t5", 1, 6000, 5000))},
		},
		{
			name:    "type 5 with a console and no game does not fire",
			promos:  []promo{{"t5", 1, partnerIf, partnerThen}},
			entries: []Entry{{"K", "con", 1, 30000}},
		},
		{
			name:    "type 6 one-to-one partner bundle",
			promos:  []promo{{"t6", 1, oneToOneIf, oneToOneTh}},
			entries: []Entry{{"Acc", "acc1", 1, 1500}, {"G", "p001", 1, 4000}},
			wantItems: []ItemDiscount{
				item("Acc", disc("t6", 1, 1500, 1500)),
				item("G", disc("t6", 1, 4000, 1500)),
			},
		},
		{
			name:    "type 7 partner bundle",
			promos:  []promo{{"t7", 1, pbundleIf, pbundleThen}},
			entries: []Entry{{"K", "con", 1, 30000}, {"A1", "acc1", 2, 1000}, {"A2", "acc2", 1, 1200}},
			wantItems: []ItemDiscount{
				item("K", disc("t7", 1, 30000, 10000)),
				item("A1", disc("t7", 2, 1000, 1000)),
				item("A2", disc("t7", 1, 1200, 1200)),
			},
		},
		{
			name:       "type 7 with two accessories is almost fulfilled",
			promos:     []promo{{"t7", 1, pbundleIf, pbundleThen}},
			entries:    []Entry{{"K", "con", 1, 30000}, {"A1", "acc1", 2, 1000}},
			wantAlmost: []AlmostFulfilled{af("t7", leaf("CATEGORY", "accessories", 2, 3, use("A1", 2)))},
		},
		{
			name:      "type 8 percentage rounds half away from zero per unit",
			promos:    []promo{{"t8", 1, pctIf, pctThen}},
			entries:   []Entry{{"Cam", "cam", 3, 19999}},
			wantItems: []ItemDiscount{item("Cam", disc("t8", 3, 19999, 4000))},
		},
		{
			name:    "type 9 cheapest of 3 at a fixed price",
			promos:  []promo{{"t9", 1, cheap3If, cheap3Then}},
			entries: []Entry{{"A", "pa", 2, 50000}, {"B", "pb", 1, 40000}, {"C", "pc", 1, 60000}},
			wantItems: []ItemDiscount{
				item("A", disc("t9", 2, 50000, 49000)),
				item("B", disc("t9", 1, 40000, 39000)),
			},
		},
		{
			name: "JPY has no decimals",
			promos: []promo{
				{"amt", 1, `{"product":{"id":"px","quantity":1}}`, `{"product":{"id":"px","quantity":1,"discount":{"rate":500}}}`},
				{"pct", 2, `{"product":{"id":"py","quantity":1}}`, `{"product":{"id":"py","quantity":1,"discount":{"rate":15,"isPercentage":true}}}`},
				{"half", 3, `{"product":{"id":"pz","quantity":1}}`, `{"product":{"id":"pz","quantity":1,"discount":{"rate":10.5}}}`},
			},
			entries:   []Entry{{"X", "px", 1, 1200}, {"Y", "py", 1, 999}, {"Z", "pz", 1, 100}},
			precision: 0, precSet: true,
			wantItems: []ItemDiscount{
				item("X", disc("amt", 1, 1200, 500)),
				item("Y", disc("pct", 1, 999, 150)),
				item("Z", disc("half", 1, 100, 11)),
			},
		},
		{
			name: "JOD has three decimals",
			promos: []promo{
				{"fix", 1, `{"product":{"id":"px","quantity":1}}`, `{"product":{"id":"px","quantity":1,"discount":{"rate":1.25,"isFixedPrice":true}}}`},
				{"pct", 2, `{"product":{"id":"py","quantity":1}}`, `{"product":{"id":"py","quantity":1,"discount":{"rate":12.5,"isPercentage":true}}}`},
			},
			entries:   []Entry{{"X", "px", 1, 2500}, {"Y", "py", 1, 1005}},
			precision: 3, precSet: true,
			wantItems: []ItemDiscount{
				item("X", disc("fix", 1, 2500, 1250)),
				item("Y", disc("pct", 1, 1005, 126)),
			},
		},
		{
			name: "a rate finer than the currency rounds half away from zero",
			promos: []promo{{"r", 1, `{"product":{"id":"px","quantity":1}}`,
				`{"product":{"id":"px","quantity":1,"discount":{"rate":0.005}}}`}},
			entries:   []Entry{{"X", "px", 1, 1000}},
			wantItems: []ItemDiscount{item("X", disc("r", 1, 1000, 1))},
		},
		{
			name: "entries with no units are ignored",
			promos: []promo{{"b", 1, `{"category":{"id":"c","quantity":1}}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":1}}}`}},
			entries:   []Entry{{"X", "px", 0, 1000}, {"Y", "py", -2, 1000}, {"Z", "pz", 1, 1000}},
			wantItems: []ItemDiscount{item("Z", disc("b", 1, 1000, 100))},
		},
		{
			name: "a category listed twice counts a product once",
			promos: []promo{{"b", 1, `{"category":{"id":"c","quantity":2}}`,
				`{"category":{"id":"c","quantity":1,"discount":{"rate":1}}}`}},
			entries:    []Entry{{"D", "dup", 1, 1000}},
			wantAlmost: []AlmostFulfilled{af("b", leaf("CATEGORY", "c", 1, 2, use("D", 1)))},
		},
		{
			name: "discounts of one promotion are grouped by amount",
			promos: []promo{{"g", 1, `{"product":{"id":"px","quantity":3}}`,
				`{"all":[{"product":{"id":"px","quantity":1,"discount":{"rate":1}}},{"product":{"id":"px","quantity":2,"discount":{"rate":2}}}]}`}},
			entries:   []Entry{{"X", "px", 6, 1000}},
			wantItems: []ItemDiscount{item("X", disc("g", 2, 1000, 100), disc("g", 4, 1000, 200))},
		},
		{
			name:   "no promotion touches the cart",
			promos: []promo{{"b", 1, b1g1If, b1g1Then}},
			entries: []Entry{
				{"X", "unknown", 5, 1000},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := newIndex(t, tc.promos...)
			prec := 2
			if tc.precSet {
				prec = tc.precision
			}
			got := ix.Evaluate(tc.entries, prec, catalog)
			wantItems, wantAlmost := tc.wantItems, tc.wantAlmost
			if wantItems == nil {
				wantItems = []ItemDiscount{}
			}
			if wantAlmost == nil {
				wantAlmost = []AlmostFulfilled{}
			}
			if !reflect.DeepEqual(got.ItemDiscounts, wantItems) {
				t.Errorf("item discounts: got %s, want %s", show(got.ItemDiscounts), show(wantItems))
			}
			if !reflect.DeepEqual(got.AlmostFulfilled, wantAlmost) {
				t.Errorf("almost fulfilled: got %s, want %s", show(got.AlmostFulfilled), show(wantAlmost))
			}
			// Evaluating again with the pooled scratch gives the same result.
			if again := ix.Evaluate(tc.entries, prec, catalog); !reflect.DeepEqual(again, got) {
				t.Errorf("second evaluation: got %s, want %s", show(again), show(got))
			}
		})
	}
}

// TestWorkedExampleAlmostValue checks the worked example's almost fulfilled
// value and threshold as the numbers the interface shows.
func TestWorkedExampleAlmostValue(t *testing.T) {
	ix := newIndex(t, promo{"fx", 1, cheap3If, cheap3Then})
	got := ix.Evaluate([]Entry{{"A", "pa", 1, 57765}, {"B", "pb", 2, 32147}, {"C", "pc", 2, 46900}}, 2, catalog)
	if len(got.AlmostFulfilled) != 1 || len(got.AlmostFulfilled[0].Data) != 1 {
		t.Fatalf("almost fulfilled: got %s, want one promotion with one leaf", show(got.AlmostFulfilled))
	}
	d := got.AlmostFulfilled[0].Data[0]
	const want = `{"collectedQuantity":2,"promoQuantity":3,"threshold":0.6666666666666666,"value":0.6666666666666666,"type":"CATEGORY","code":"fridges","items":[{"itemId":"C","quantityToUse":1},{"itemId":"A","quantityToUse":1}]}`
	if s := show(d); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

func TestEvaluateEmpty(t *testing.T) {
	got := NewIndex(nil).Evaluate(nil, 2, nil)
	if got.ItemDiscounts == nil || got.AlmostFulfilled == nil {
		t.Errorf("got nil lists %s, want empty lists", show(got))
	}
}
