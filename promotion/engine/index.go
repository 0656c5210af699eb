package engine

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Promotion is an active promotion as the engine needs it.
type Promotion struct {
	ID    string
	Title string
	// Priority orders evaluation, lowest first.
	Priority int
	// Seq is the creation order, which breaks priority ties.
	Seq   int64
	Rules Rules
	// Code, when not empty, is the coupon code (its comparison key, see
	// Input.Coupons) a cart must hold for the promotion to apply.
	Code string
	// Start and End bound when the promotion applies: from Start until
	// before End; a zero time does not bound.
	Start, End time.Time
}

// Index is the set of active promotions compiled for evaluation. It maps
// every id that a promotion's `if` mentions (per kind of rule: product
// ids, category ids) to that promotion, so an evaluation looks only at
// promotions that can touch the cart. An Index is immutable and safe for
// concurrent use; build a new one when the active promotions change.
type Index struct {
	promos []compiled // in evaluation order
	// keys maps, per kind (kind.index), the ids its rules mention to keys.
	keys []map[string]int32
	// ifPromos lists, per key, the promotions whose `if` mentions it.
	ifPromos [][]int32
	// always lists the promotions whose `if` holds a rule of a kind that
	// is not matched by units (kind.eval): candidates of every evaluation.
	always []int32
	// categories tells whether a rule needs the category membership of
	// products (see UsesCategories).
	categories bool
	scratch    sync.Pool
	// unfiltered makes every promotion a candidate, for tests that check
	// the filter is conservative.
	unfiltered bool
}

// compiled is a promotion with its rule ids resolved to keys.
type compiled struct {
	id, title  string
	code       string
	start, end time.Time
	cond       node
	then       node
	// thenCheapest: `then` picks cheapest first when a rule of `if` whose
	// kind says so has lowestPrice (docs/api.md section 7, item 2).
	thenCheapest bool
}

type nodeKind uint8

const (
	never nodeKind = iota // a malformed rule: never satisfied, never targets
	leafNode
	allOf
	anyOf
)

type node struct {
	kind      nodeKind
	def       *kind // of a leaf
	key       int32 // of a leaf of a unit kind
	qty       int
	threshold float64
	lowest    bool
	leaf      *Leaf
	kids      []node
}

// NewIndex compiles the promotions. The caller passes only the active ones:
// inactive promotions are simply left out. Rules should come from Parse;
// malformed hand-built rules never fire rather than misbehave.
func NewIndex(promos []Promotion) *Index {
	sorted := slices.Clone(promos)
	slices.SortStableFunc(sorted, func(a, b Promotion) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.Seq, b.Seq))
	})
	ix := &Index{
		promos: make([]compiled, len(sorted)),
		keys:   make([]map[string]int32, len(kinds)),
	}
	for i := range ix.keys {
		ix.keys[i] = map[string]int32{}
	}
	for i, p := range sorted {
		c := &ix.promos[i]
		c.id, c.title, c.code, c.start, c.end = p.ID, p.Title, p.Code, p.Start, p.End
		always := false
		c.cond = ix.compile(p.Rules.If, int32(i), &c.thenCheapest, &always)
		c.then = ix.compile(p.Rules.Then, -1, nil, nil)
		if always {
			ix.always = append(ix.always, int32(i))
		}
	}
	ix.scratch.New = func() any { return new(scratch) }
	return ix
}

// compile resolves r's ids to keys. For an `if` rule (promo >= 0) it also
// indexes the promotion under every key, and sets *cheapest and *always.
func (ix *Index) compile(r Rule, promo int32, cheapest, always *bool) node {
	leaf := func(k *kind, l *Leaf) node {
		ix.categories = ix.categories || k.usesCategories
		if k.eval != nil {
			if promo >= 0 {
				*always = true
			}
			return node{kind: leafNode, def: k, qty: l.Quantity, leaf: l}
		}
		if l.Quantity <= 0 {
			return node{}
		}
		keys := ix.keys[k.index]
		key, ok := keys[l.ID]
		if !ok {
			key = int32(len(ix.ifPromos))
			keys[l.ID] = key
			ix.ifPromos = append(ix.ifPromos, nil)
		}
		if promo >= 0 {
			// A promotion mentioning a key twice is listed once.
			if ps := ix.ifPromos[key]; len(ps) == 0 || ps[len(ps)-1] != promo {
				ix.ifPromos[key] = append(ps, promo)
			}
		}
		n := node{kind: leafNode, def: k, key: key, qty: l.Quantity, lowest: l.LowestPrice, leaf: l}
		n.threshold = float64(l.Quantity-1) / float64(l.Quantity)
		if l.Threshold != nil {
			n.threshold = *l.Threshold
		}
		return n
	}
	kids := func(k nodeKind, rs []Rule) node {
		if len(rs) == 0 {
			return node{}
		}
		n := node{kind: k, kids: make([]node, len(rs))}
		for i, r := range rs {
			n.kids[i] = ix.compile(r, promo, cheapest, always)
		}
		return n
	}
	switch {
	case r.Leaf != nil && r.All == nil && r.Any == nil:
		k := kindNamed(r.Kind)
		if k == nil {
			return node{}
		}
		if cheapest != nil && k.lowestPriceOrdersThen && r.Leaf.LowestPrice {
			*cheapest = true
		}
		return leaf(k, r.Leaf)
	case r.All != nil && r.Leaf == nil && r.Any == nil:
		return kids(allOf, r.All)
	case r.Any != nil && r.Leaf == nil && r.All == nil:
		return kids(anyOf, r.Any)
	}
	return node{}
}

// Len returns the number of promotions in the index.
func (ix *Index) Len() int { return len(ix.promos) }

// UsesCategories reports whether a rule of the index needs the category
// membership of products: when none does, a caller may evaluate without
// looking it up.
func (ix *Index) UsesCategories() bool { return ix.categories }
