package engine

import (
	"slices"
	"strings"
)

// A kind is one kind of leaf rule of the rule language, `product` or
// `category`: the property that names it ({"<name>": {leaf}}), where it may
// stand, the properties of its leaf, and how it meets the cart. The parser,
// the index and the evaluation know the kinds only through this table, so a
// new kind of condition is one file that registers its kind (see
// kind_product.go and kind_category.go) plus its tests.
//
// A kind whose leaves count units of entries (every kind so far) gives ids:
// the evaluation then takes, targets and counts the units of the entries
// that match the leaf's id, as docs/api.md section 7 says. A kind that does
// not (a condition on the cart as a whole, a target that is not a unit)
// gives eval instead.
type kind struct {
	// name is the property of a rule object naming the kind.
	name string
	// at is where its leaves may stand: in `if` rules, `then` rules or both.
	at place
	// props are the properties of its leaf, in the order missing required
	// ones are reported.
	props []*property
	// almostType is the `type` of its almost fulfilled leaves ("PRODUCT").
	almostType string
	// ids appends to buf the ids an entry counts under for leaves of the
	// kind (its product id; its categories with their ancestors) and
	// returns the result. Nil for a kind with eval.
	ids func(buf []string, e *Entry, cats Categories) []string
	// eval is the behaviour of a kind whose leaves are not matched by units
	// of entries; nil for the unit kinds, whose behaviour is the engine's.
	eval evaluator
	// lowestPriceOrdersThen: a leaf of the kind with lowestPrice in a
	// promotion's `if` makes its `then` pick the cheapest units first
	// (docs/api.md section 7, item 2: category rules do, product rules do
	// not).
	lowestPriceOrdersThen bool
	// usesCategories: matching needs the category membership of the
	// cart's products (the caller may skip looking it up otherwise).
	usesCategories bool

	// index is the kind's position in kinds: its key space in an Index.
	index int
}

// evaluator is the behaviour of a kind whose leaves are not matched by units
// of entries, at each step of an evaluation (see scratch): possible for the
// candidate filter, satisfy for `if`, apply for `then`, almost for the
// almost fulfilled check. A method of a place the kind cannot stand in is
// never called.
type evaluator interface {
	possible(s *scratch, n *node) bool
	satisfy(s *scratch, n *node) bool
	apply(s *scratch, n *node, cheapest bool)
	almost(s *scratch, n *node, record bool) status
}

// place tells where a leaf kind or a property may stand.
type place uint8

const (
	inIf place = 1 << iota
	inThen
	anywhere = inIf | inThen
)

// only is the problem of something that stands where it may not.
func (p place) only() string {
	if p == inIf {
		return "only allowed in if rules"
	}
	return "only allowed in then rules"
}

// kinds is the table of leaf kinds, in registration order.
var kinds []*kind

// register adds a kind to the table. It is called from the init function
// of the kind's file and panics on a name in use (a programming error).
func register(k *kind) {
	if kindNamed(k.name) != nil || k.name == "all" || k.name == "any" {
		panic("engine: kind " + k.name + " registered twice")
	}
	if (k.ids == nil) == (k.eval == nil) {
		panic("engine: kind " + k.name + " needs ids or eval, not both")
	}
	k.index = len(kinds)
	kinds = append(kinds, k)
}

// kindNamed returns the kind with the name, or nil.
func kindNamed(name string) *kind {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// ruleNames lists what a rule object may hold, for the parser's message:
// the leaf kinds by name, then all and any.
func ruleNames() string {
	names := make([]string, 0, len(kinds)+2)
	for _, k := range kinds {
		names = append(names, k.name)
	}
	slices.Sort(names)
	return strings.Join(append(names, "all", "any"), ", ")
}
