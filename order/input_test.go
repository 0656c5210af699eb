package order

import (
	"slices"
	"testing"

	"github.com/commercekit/commerce"
)

// The items of order.fulfill and order.refund are checked alike: every
// problem at once, each with its path.
func TestCheckItems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []ItemQuantity
		want  []string
	}{
		{"none", nil, nil},
		{"good", []ItemQuantity{{ItemID: "a", Quantity: 1}, {ItemID: "b", Quantity: 3}}, nil},
		{"every problem", []ItemQuantity{{ItemID: "a", Quantity: 1}, {Quantity: 0}, {ItemID: "c", Quantity: -2}},
			[]string{"items[1].itemId: required", "items[1].quantity: must be a positive integer", "items[2].quantity: must be a positive integer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p commerce.Problems
			checkItems(&p, tc.items)
			if !slices.Equal([]string(p), tc.want) {
				t.Errorf("got %q, want %q", p, tc.want)
			}
		})
	}
}
