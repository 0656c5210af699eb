package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
)

// cartUnits is a kind of condition that exists only in these tests, to
// show that a kind the engine does not know is one registration: the cart
// holds at least quantity units, whatever they are
// ({"cartUnits":{"quantity":3}}). It is not matched by units of entries
// (it gives eval, not ids) and takes no units: only the other rules of
// the promotion do.
type cartUnits struct{}

func init() {
	register(&kind{
		name:  "cartUnits",
		at:    inIf,
		props: []*property{unitProps[1]}, // quantity
		eval:  cartUnits{},
	})
}

// free counts the units not consumed and not taken by the firing being
// tried.
func (cartUnits) free(s *scratch) int {
	n := 0
	for i := range s.entries {
		n += s.avail[i] - s.taken[i]
	}
	return n
}

func (c cartUnits) possible(s *scratch, n *node) bool { return c.free(s) >= n.qty }

func (c cartUnits) satisfy(s *scratch, n *node) bool { return c.free(s) >= n.qty }

func (cartUnits) apply(*scratch, *node, bool) { panic("cartUnits stands in if rules only") }

func (c cartUnits) almost(s *scratch, n *node, _ bool) status {
	if c.free(s) >= n.qty {
		return fulfilled
	}
	return none
}

func TestKindRegisteredInOneFile(t *testing.T) {
	const ifJSON = `{"all":[{"cartUnits":{"quantity":3}},{"product":{"id":"p","quantity":1}}]}`
	const thenJSON = `{"product":{"id":"p","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`
	t.Run("parse and round trip", func(t *testing.T) {
		r, err := Parse(json.RawMessage(ifJSON), json.RawMessage(thenJSON))
		if err != nil {
			t.Fatal(err)
		}
		if got := show(r.If); got != ifJSON {
			t.Errorf("got %s, want %s", got, ifJSON)
		}
		var back Rules
		if err := json.Unmarshal([]byte(show(r)), &back); err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("round trip: got %s (%v), want %s", show(back), err, show(r))
		}
	})
	t.Run("validation", func(t *testing.T) {
		for _, tc := range []struct {
			name, ifJSON, thenJSON, want string
		}{
			{"in then", `{"product":{"id":"p","quantity":1}}`, `{"cartUnits":{"quantity":1}}`, "then.cartUnits: only allowed in if rules"},
			{"a property of another kind", `{"cartUnits":{"quantity":1,"id":"p"}}`, thenJSON, "if.cartUnits.id: unknown property"},
			{"required property", `{"cartUnits":{}}`, thenJSON, "if.cartUnits.quantity: required"},
			{"the message lists it", `{}`, thenJSON, "if: must hold exactly one of cartUnits, category, product, shipping, all, any"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := Parse(json.RawMessage(tc.ifJSON), json.RawMessage(tc.thenJSON))
				problems, _ := commerce.ErrorData(err).([]string)
				if !slices.Contains(problems, tc.want) {
					t.Errorf("got %q, want %q among them", problems, tc.want)
				}
			})
		}
	})
	t.Run("evaluation", func(t *testing.T) {
		ps := []promo{
			{"units", 1, ifJSON, thenJSON},
			// A condition on the cart alone: a candidate though the index
			// holds no id of the cart.
			{"alone", 2, `{"cartUnits":{"quantity":2}}`, `{"category":{"id":"c","quantity":1,"discount":{"rate":1}}}`},
		}
		tests := []struct {
			name    string
			entries []Entry
			want    []ItemDiscount
		}{
			{"too few units", []Entry{{"P", "p", 1, 1000}, {"X", "px", 1, 500}}, []ItemDiscount{item("X", disc("alone", 1, 500, 100))}},
			{"enough units, once", []Entry{{"P", "p", 2, 1000}, {"X", "pa", 1, 500}}, []ItemDiscount{item("P", disc("units", 1, 1000, 1000))}},
			{"no unit of the rules", []Entry{{"A", "pa", 5, 1000}}, []ItemDiscount{}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				ix, all := newIndex(t, ps...), newIndex(t, ps...)
				all.unfiltered = true
				got := ix.Evaluate(tc.entries, 2, catalog)
				if !reflect.DeepEqual(got.ItemDiscounts, tc.want) {
					t.Errorf("got %s, want %s", show(got.ItemDiscounts), show(tc.want))
				}
				if want := all.Evaluate(tc.entries, 2, catalog); !reflect.DeepEqual(got, want) {
					t.Errorf("filtered %s, unfiltered %s", show(got), show(want))
				}
			})
		}
	})
	if n := strings.Count(ruleNames(), ","); n != 5 {
		t.Errorf("ruleNames %q: want six names", ruleNames())
	}
}
