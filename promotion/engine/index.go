package engine

import (
	"cmp"
	"slices"
	"sync"
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
}

// Index is the set of active promotions compiled for evaluation. It maps
// every product and category id that a promotion's `if` mentions to that
// promotion, so an evaluation looks only at promotions that can touch the
// cart. An Index is immutable and safe for concurrent use; build a new one
// when the active promotions change.
type Index struct {
	promos      []compiled // in evaluation order
	productKey  map[string]int32
	categoryKey map[string]int32
	// ifPromos lists, per key, the promotions whose `if` mentions it.
	ifPromos [][]int32
	scratch  sync.Pool
	// unfiltered makes every promotion a candidate, for tests that check
	// the filter is conservative.
	unfiltered bool
}

// compiled is a promotion with its rule ids resolved to keys.
type compiled struct {
	id, title string
	cond      node
	then      node
	// thenCheapest: `then` picks cheapest first when any category rule in
	// `if` has lowestPrice (CONTRACT.md section 7, item 2).
	thenCheapest bool
}

type kind uint8

const (
	never kind = iota // a malformed rule: never satisfied, never targets
	productLeaf
	categoryLeaf
	allOf
	anyOf
)

type node struct {
	kind      kind
	key       int32
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
		promos:      make([]compiled, len(sorted)),
		productKey:  map[string]int32{},
		categoryKey: map[string]int32{},
	}
	for i, p := range sorted {
		c := &ix.promos[i]
		c.id, c.title = p.ID, p.Title
		c.cond = ix.compile(p.Rules.If, int32(i), &c.thenCheapest)
		c.then = ix.compile(p.Rules.Then, -1, nil)
	}
	ix.scratch.New = func() any { return new(scratch) }
	return ix
}

// compile resolves r's ids to keys. For an `if` rule (promo >= 0) it also
// indexes the promotion under every key and sets *cheapest.
func (ix *Index) compile(r Rule, promo int32, cheapest *bool) node {
	leaf := func(k kind, l *Leaf, keys map[string]int32) node {
		if l == nil || l.Quantity <= 0 {
			return node{}
		}
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
		n := node{kind: k, key: key, qty: l.Quantity, lowest: l.LowestPrice, leaf: l}
		n.threshold = float64(l.Quantity-1) / float64(l.Quantity)
		if l.Threshold != nil {
			n.threshold = *l.Threshold
		}
		return n
	}
	kids := func(k kind, rs []Rule) node {
		if len(rs) == 0 {
			return node{}
		}
		n := node{kind: k, kids: make([]node, len(rs))}
		for i, r := range rs {
			n.kids[i] = ix.compile(r, promo, cheapest)
		}
		return n
	}
	switch {
	case r.Category != nil && r.Product == nil && r.All == nil && r.Any == nil:
		if cheapest != nil && r.Category.LowestPrice {
			*cheapest = true
		}
		return leaf(categoryLeaf, r.Category, ix.categoryKey)
	case r.Product != nil && r.Category == nil && r.All == nil && r.Any == nil:
		return leaf(productLeaf, r.Product, ix.productKey)
	case r.All != nil && r.Category == nil && r.Product == nil && r.Any == nil:
		return kids(allOf, r.All)
	case r.Any != nil && r.Category == nil && r.Product == nil && r.All == nil:
		return kids(anyOf, r.Any)
	}
	return node{}
}

// Len returns the number of promotions in the index.
func (ix *Index) Len() int { return len(ix.promos) }
