package engine

import (
	"cmp"
	"math/bits"
	"slices"
	"time"
)

// Entry is a cart entry: Quantity units of a product at UnitPrice minor
// units each.
type Entry struct {
	ID        string
	ProductID string
	Quantity  int
	UnitPrice int64
}

// Categories maps a product id to the ids of every category the product
// belongs to, together with all their ancestors: a product in a
// sub-category counts for each category above it (docs/api.md section 6).
// Products absent from the map are in no category.
type Categories map[string][]string

// Result is the outcome of an evaluation. Both lists are non-nil.
type Result struct {
	// ItemDiscounts holds one element per entry that got a non-zero
	// discount, in cart order.
	ItemDiscounts []ItemDiscount
	// AlmostFulfilled holds the promotions whose `if` is close to being
	// satisfied by the units left, in evaluation order.
	AlmostFulfilled []AlmostFulfilled
	// Shipping is the discount of the shipping line, nil when no
	// promotion discounted it (see Input.Shipping).
	Shipping *ShippingDiscount
	// Fired lists the ids of the promotions that fired, in evaluation
	// order, whether or not their discount came to more than zero: the
	// promotions an order uses (docs/api.md section 16).
	Fired []string
}

// ItemDiscount is the discounts of one entry. Amounts are in minor units;
// the caller converts them to the plain-number or money-object form.
type ItemDiscount struct {
	ID        string
	Discounts []AppliedDiscount
}

// AppliedDiscount groups the units of an entry that one promotion
// discounted by the same amount: Discount is per unit, UnitPrice the entry's
// unit price, both in minor units.
type AppliedDiscount struct {
	PromotionID    string
	PromotionTitle string
	Quantity       int
	UnitPrice      int64
	Discount       int64
}

// AlmostFulfilled is a promotion the cart almost satisfies, with the leaves
// of its `if` that are almost fulfilled.
type AlmostFulfilled struct {
	PromotionID string       `json:"id"`
	Data        []AlmostLeaf `json:"data"`
}

// AlmostLeaf is an almost fulfilled category or product rule: Value is
// CollectedQuantity / PromoQuantity, at least Threshold.
type AlmostLeaf struct {
	CollectedQuantity int     `json:"collectedQuantity"`
	PromoQuantity     int     `json:"promoQuantity"`
	Threshold         float64 `json:"threshold"`
	Value             float64 `json:"value"`
	// Type is "CATEGORY" or "PRODUCT", Code the category or product id.
	Type  string    `json:"type"`
	Code  string    `json:"code"`
	Items []ItemUse `json:"items"`
}

// ItemUse is how many units of an entry an almost fulfilled rule would use.
type ItemUse struct {
	ItemID        string `json:"itemId"`
	QuantityToUse int    `json:"quantityToUse"`
}

// Evaluate applies the promotions of the index to the entries following
// docs/api.md section 7. precision is the currency's number of decimals
// (USD 2, JPY 0, JOD 3; clamped to 0..18), used to turn rates given in major
// units into minor units. Entries with a non-positive quantity hold no
// units. The work grows with the number of units, so the caller bounds
// quantities (the cart allows 100 per product).
//
// Evaluate is EvaluateCart without coupons or shipping line, at time.Now().
func (ix *Index) Evaluate(entries []Entry, precision int, cats Categories) Result {
	return ix.EvaluateCart(Input{Entries: entries, Precision: precision, Categories: cats, Now: time.Now()})
}

// EvaluateCart applies the promotions of the index to in (see Input and
// Evaluate): only promotions eligible for it take part (see eligible).
func (ix *Index) EvaluateCart(in Input) Result {
	entries, cats := in.Entries, in.Categories
	s := ix.scratch.Get().(*scratch)
	defer func() {
		s.entries, s.cats, s.in = nil, nil, nil // the pool must not keep the caller's data alive
		ix.scratch.Put(s)
	}()
	s.load(ix, entries, cats)
	s.entries, s.precision, s.cats = entries, min(max(in.Precision, 0), 18), cats
	s.in, s.shipFree, s.ship, s.fired = &in, in.Shipping != nil, nil, s.fired[:0]

	// Candidates are the promotions whose `if` mentions something in the
	// cart; those that cannot possibly match are dropped before firing so
	// the almost-fulfilled pass skips them too.
	if ix.unfiltered {
		for p := range ix.promos {
			s.cands[p/64] |= 1 << (p % 64)
		}
	}
	for _, p := range ix.always {
		s.cands[p/64] |= 1 << (p % 64)
	}
	for w, word := range s.cands {
		for ; word != 0; word &= word - 1 {
			p := w*64 + bits.TrailingZeros64(word)
			c := &ix.promos[p]
			if !c.eligible(&in) || !ix.unfiltered && !s.possible(&c.cond) {
				s.cands[w] &^= word & -word
				continue
			}
			s.fire(c, int32(p))
		}
	}

	res := Result{ItemDiscounts: s.itemDiscounts(ix), AlmostFulfilled: []AlmostFulfilled{}, Shipping: s.ship}
	if len(s.fired) > 0 {
		res.Fired = make([]string, len(s.fired))
		for i, p := range s.fired {
			res.Fired[i] = ix.promos[p].id
		}
	}
	for w, word := range s.cands {
		for ; word != 0; word &= word - 1 {
			c := &ix.promos[w*64+bits.TrailingZeros64(word)]
			s.recs, s.recItems = s.recs[:0], s.recItems[:0]
			st := s.almost(&c.cond, true)
			s.rollback(0)
			if st != none && len(s.recs) > 0 {
				res.AlmostFulfilled = append(res.AlmostFulfilled, s.almostResult(c))
			}
		}
	}
	return res
}

// scratch is the reusable working memory of one evaluation, pooled so an
// evaluation allocates little beyond its result.
type scratch struct {
	entries   []Entry
	precision int
	cats      Categories
	ids       []string // an entry's ids under a kind (kind.ids)

	gen     uint32
	keyGen  []uint32 // keyGen[key] == gen: key occurs in the cart
	keySlot []int32  // key -> slot in byCart and byPrice
	byCart  [][]int32
	byPrice [][]int32
	// cartFrom and priceFrom skip, per slot, the leading entries with no
	// units left: units are only ever consumed, so once drained an entry
	// stays drained and a long run of firings does not rescan it.
	cartFrom, priceFrom []int32
	nslots              int
	// pairs lists (entry, slot) in entry order; entry i's pairs are
	// pairs[pairEnd[i-1]:pairEnd[i]].
	pairs   []pair
	pairEnd []int32
	order   []int32 // entries by price, then cart order
	cands   []uint64

	avail []int // units per entry not consumed by a firing
	taken []int // units tentatively taken by `if`
	// thenIf and thenFree count units a firing's `then` takes among the
	// `if` units and among the free units.
	thenIf, thenFree []int
	picks            []pick
	fires            []fire
	discs            []discRec
	lastDisc         []int32   // per entry, its latest record in discs, or -1
	grouped          []discRec // discs by entry
	start            []int32

	recs     []almostRec
	recItems []pick

	// in is the evaluation's input; shipFree tells that the shipping line
	// exists and no firing took it yet, ship is its discount.
	in       *Input
	shipFree bool
	ship     *ShippingDiscount
	fired    []int32
}

type pair struct{ entry, slot int32 }

type pick struct {
	entry int32
	n     int
}

type fire struct {
	entry    int32
	n        int
	fromIf   bool
	discount *Discount
}

type discRec struct {
	entry, promo int32
	n            int
	discount     int64
}

type almostRec struct {
	n          *node
	collected  int
	value      float64
	start, end int // in recItems
}

type status uint8

const (
	none status = iota
	almost
	fulfilled
)

func (s *scratch) load(ix *Index, entries []Entry, cats Categories) {
	if nk := len(ix.ifPromos); len(s.keyGen) < nk {
		s.keyGen = make([]uint32, nk)
		s.keySlot = make([]int32, nk)
		s.gen = 0
	}
	if s.gen++; s.gen == 0 {
		clear(s.keyGen)
		s.gen = 1
	}
	n := len(entries)
	s.avail = resize(s.avail, n)
	s.taken = resize(s.taken, n)
	s.thenIf = resize(s.thenIf, n)
	s.thenFree = resize(s.thenFree, n)
	s.pairEnd = resize(s.pairEnd, n)
	s.lastDisc = resize(s.lastDisc, n)
	s.cands = resize(s.cands, (len(ix.promos)+63)/64)
	clear(s.taken)
	clear(s.thenIf)
	clear(s.thenFree)
	clear(s.cands)
	for i := range s.lastDisc {
		s.lastDisc[i] = -1
	}
	s.nslots, s.pairs, s.picks, s.discs = 0, s.pairs[:0], s.picks[:0], s.discs[:0]

	for i := range entries {
		s.avail[i] = max(entries[i].Quantity, 0)
		if s.avail[i] > 0 {
			for _, kd := range kinds {
				keys := ix.keys[kd.index]
				if kd.ids == nil || len(keys) == 0 {
					continue
				}
				s.ids = kd.ids(s.ids[:0], &entries[i], cats)
				for _, id := range s.ids {
					if k, ok := keys[id]; ok {
						s.add(ix, k, int32(i))
					}
				}
			}
		}
		s.pairEnd[i] = int32(len(s.pairs))
	}

	s.order = s.order[:0]
	for i := range entries {
		s.order = append(s.order, int32(i))
	}
	slices.SortStableFunc(s.order, func(a, b int32) int {
		return cmp.Compare(entries[a].UnitPrice, entries[b].UnitPrice)
	})
	s.cartFrom = resize(s.cartFrom, s.nslots)
	s.priceFrom = resize(s.priceFrom, s.nslots)
	clear(s.cartFrom)
	clear(s.priceFrom)
	for i := range s.nslots {
		s.byPrice[i] = s.byPrice[i][:0]
	}
	for _, e := range s.order {
		start := int32(0)
		if e > 0 {
			start = s.pairEnd[e-1]
		}
		for _, p := range s.pairs[start:s.pairEnd[e]] {
			s.byPrice[p.slot] = append(s.byPrice[p.slot], e)
		}
	}
}

// add records that entry e matches key k.
func (s *scratch) add(ix *Index, k, e int32) {
	if s.keyGen[k] != s.gen {
		s.keyGen[k] = s.gen
		s.keySlot[k] = int32(s.nslots)
		if s.nslots == len(s.byCart) {
			s.byCart = append(s.byCart, nil)
			s.byPrice = append(s.byPrice, nil)
		}
		s.byCart[s.nslots] = s.byCart[s.nslots][:0]
		s.nslots++
		for _, p := range ix.ifPromos[k] {
			s.cands[p/64] |= 1 << (p % 64)
		}
	}
	slot := s.keySlot[k]
	// A category listed twice for a product (or as its own ancestor) must
	// not count the entry twice.
	if l := s.byCart[slot]; len(l) > 0 && l[len(l)-1] == e {
		return
	}
	s.byCart[slot] = append(s.byCart[slot], e)
	s.pairs = append(s.pairs, pair{e, slot})
}

// list returns the entries matching a leaf's key, cheapest first or in cart
// order; nil when none does.
func (s *scratch) list(key int32, cheapest bool) []int32 {
	if s.keyGen[key] != s.gen {
		return nil
	}
	slot := s.keySlot[key]
	list, from := s.byCart[slot], &s.cartFrom[slot]
	if cheapest {
		list, from = s.byPrice[slot], &s.priceFrom[slot]
	}
	for int(*from) < len(list) && s.avail[list[*from]] == 0 {
		*from++
	}
	return list[*from:]
}

// possible reports whether the cart holds something for every rule that
// must be satisfied: a promotion failing it can neither fire nor be almost
// fulfilled.
func (s *scratch) possible(n *node) bool {
	switch n.kind {
	case leafNode:
		if n.def.eval != nil {
			return n.def.eval.possible(s, n)
		}
		return len(s.list(n.key, false)) > 0
	case allOf:
		for i := range n.kids {
			if !s.possible(&n.kids[i]) {
				return false
			}
		}
		return true
	case anyOf:
		for i := range n.kids {
			if s.possible(&n.kids[i]) {
				return true
			}
		}
	}
	return false
}

// fire applies promotion c as many times as the units left allow.
func (s *scratch) fire(c *compiled, promo int32) {
	for {
		ok := s.satisfy(&c.cond)
		if ok {
			s.fires = s.fires[:0]
			s.apply(&c.then, c.thenCheapest)
			ok = len(s.fires) > 0
		}
		if !ok {
			s.rollback(0)
			return
		}
		// Every unit used by `if` and `then` is consumed, discounted or not.
		for _, p := range s.picks {
			s.avail[p.entry] -= p.n
		}
		if len(s.fired) == 0 || s.fired[len(s.fired)-1] != promo {
			s.fired = append(s.fired, promo)
		}
		for _, f := range s.fires {
			if f.entry == shippingTarget {
				s.shipped(f.discount, c)
				continue
			}
			if !f.fromIf {
				s.avail[f.entry] -= f.n
			}
			s.thenIf[f.entry], s.thenFree[f.entry] = 0, 0
			// A zero discount is not listed; its units stay consumed.
			if d := unitDiscount(s.entries[f.entry].UnitPrice, f.discount, s.precision); d > 0 {
				s.record(discRec{entry: f.entry, promo: promo, n: f.n, discount: d})
			}
		}
		s.rollback(0)
	}
}

// record adds a discount record, merging it into the entry's previous one
// when a promotion fires again with the same discount.
func (s *scratch) record(r discRec) {
	if i := s.lastDisc[r.entry]; i >= 0 && s.discs[i].promo == r.promo && s.discs[i].discount == r.discount {
		s.discs[i].n += r.n
		return
	}
	s.lastDisc[r.entry] = int32(len(s.discs))
	s.discs = append(s.discs, r)
}

// satisfy takes units for rule n from the free units, reporting whether n
// is satisfied. On failure the caller rolls back what n took.
func (s *scratch) satisfy(n *node) bool {
	switch n.kind {
	case leafNode:
		if n.def.eval != nil {
			return n.def.eval.satisfy(s, n)
		}
		list := s.list(n.key, n.lowest)
		total := 0
		for _, e := range list {
			if total += s.avail[e] - s.taken[e]; total >= n.qty {
				break
			}
		}
		if total < n.qty {
			return false
		}
		s.take(list, n.qty)
		return true
	case allOf:
		// Greedy in rule order: each sub-rule takes units the earlier ones
		// left, which keeps them disjoint.
		for i := range n.kids {
			if !s.satisfy(&n.kids[i]) {
				return false
			}
		}
		return true
	case anyOf:
		for i := range n.kids {
			mark := len(s.picks)
			if s.satisfy(&n.kids[i]) {
				return true
			}
			s.rollback(mark)
		}
	}
	return false
}

// take takes up to want free units from the entries of list, in order, and
// returns how many it took.
func (s *scratch) take(list []int32, want int) int {
	got := 0
	for _, e := range list {
		if t := min(s.avail[e]-s.taken[e], want-got); t > 0 {
			s.taken[e] += t
			s.picks = append(s.picks, pick{e, t})
			if got += t; got == want {
				break
			}
		}
	}
	return got
}

// rollback gives back the units taken by picks[mark:].
func (s *scratch) rollback(mark int) {
	for _, p := range s.picks[mark:] {
		s.taken[p.entry] -= p.n
	}
	s.picks = s.picks[:mark]
}

// apply picks the targets of `then` rule n: first among the units `if`
// took, then among the free ones.
func (s *scratch) apply(n *node, cheapest bool) {
	switch n.kind {
	case leafNode:
		if n.def.eval != nil {
			n.def.eval.apply(s, n, cheapest)
			return
		}
		list := s.list(n.key, cheapest)
		need := n.qty
		for _, fromIf := range [2]bool{true, false} {
			for _, e := range list {
				var t int
				if fromIf {
					t = min(s.taken[e]-s.thenIf[e], need)
					s.thenIf[e] += max(t, 0)
				} else {
					t = min(s.avail[e]-s.taken[e]-s.thenFree[e], need)
					s.thenFree[e] += max(t, 0)
				}
				if t > 0 {
					s.fires = append(s.fires, fire{e, t, fromIf, n.leaf.Discount})
					if need -= t; need == 0 {
						return
					}
				}
			}
		}
	case allOf:
		for i := range n.kids {
			s.apply(&n.kids[i], cheapest)
		}
	case anyOf:
		// docs/api.md: "any applies only the first".
		s.apply(&n.kids[0], cheapest)
	}
}

// almost checks rule n against the units left after all firings (docs/api.md
// section 7, item 7), recording its almost fulfilled leaves when record is
// set. Leaves take the units they collect, so the sub-rules of an `all` use
// disjoint units.
func (s *scratch) almost(n *node, record bool) status {
	switch n.kind {
	case leafNode:
		if n.def.eval != nil {
			return n.def.eval.almost(s, n, record)
		}
		mark := len(s.picks)
		got := s.take(s.list(n.key, n.lowest), n.qty)
		if got == n.qty {
			return fulfilled
		}
		value := float64(got) / float64(n.qty)
		if got == 0 || value < n.threshold {
			return none
		}
		if record {
			start := len(s.recItems)
			s.recItems = append(s.recItems, s.picks[mark:]...)
			s.recs = append(s.recs, almostRec{n, got, value, start, len(s.recItems)})
		}
		return almost
	case allOf:
		st := fulfilled
		for i := range n.kids {
			switch s.almost(&n.kids[i], record) {
			case none:
				return none
			case almost:
				st = almost
			}
		}
		return st
	case anyOf:
		// Every sub-rule is checked against the same units, and every
		// almost fulfilled leaf is listed; the sub-rule an enclosing `all`
		// sees as taking units is the first fulfilled one, else the first
		// almost fulfilled one.
		best, chosen := none, -1
		for i := range n.kids {
			pm, rm := len(s.picks), len(s.recs)
			st := s.almost(&n.kids[i], record)
			s.rollback(pm)
			if st == none {
				s.recs = s.recs[:rm]
			}
			if st > best {
				best, chosen = st, i
			}
		}
		if chosen >= 0 {
			s.almost(&n.kids[chosen], false)
		}
		return best
	}
	return none
}

func (s *scratch) almostResult(c *compiled) AlmostFulfilled {
	af := AlmostFulfilled{PromotionID: c.id, Data: make([]AlmostLeaf, len(s.recs))}
	items := make([]ItemUse, len(s.recItems))
	for i, p := range s.recItems {
		items[i] = ItemUse{ItemID: s.entries[p.entry].ID, QuantityToUse: p.n}
	}
	for i, r := range s.recs {
		af.Data[i] = AlmostLeaf{
			CollectedQuantity: r.collected,
			PromoQuantity:     r.n.qty,
			Threshold:         r.n.threshold,
			Value:             r.value,
			Type:              r.n.def.almostType,
			Code:              r.n.leaf.ID,
			Items:             items[r.start:r.end:r.end],
		}
	}
	return af
}

// itemDiscounts groups the discount records per entry, in cart order, and
// within an entry by promotion and per-unit discount, in the order applied.
func (s *scratch) itemDiscounts(ix *Index) []ItemDiscount {
	if len(s.discs) == 0 {
		return []ItemDiscount{}
	}
	// Records come in firing order; a counting sort by entry keeps that
	// order within each entry.
	s.start = resize(s.start, len(s.entries)+1)
	start := s.start
	clear(start)
	for _, r := range s.discs {
		start[r.entry+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	s.grouped = resize(s.grouped, len(s.discs))
	for _, r := range s.discs {
		s.grouped[start[r.entry]] = r
		start[r.entry]++
	}
	var out []ItemDiscount
	for i, r := range s.grouped {
		if i == 0 || r.entry != s.grouped[i-1].entry {
			out = append(out, ItemDiscount{ID: s.entries[r.entry].ID})
		}
		ds := &out[len(out)-1].Discounts
		c := &ix.promos[r.promo]
		j := slices.IndexFunc(*ds, func(d AppliedDiscount) bool {
			return d.PromotionID == c.id && d.Discount == r.discount
		})
		if j < 0 {
			*ds = append(*ds, AppliedDiscount{
				PromotionID:    c.id,
				PromotionTitle: c.title,
				UnitPrice:      s.entries[r.entry].UnitPrice,
				Discount:       r.discount,
			})
			j = len(*ds) - 1
		}
		(*ds)[j].Quantity += r.n
	}
	return out
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
