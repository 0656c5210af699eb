package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/promotion/engine/enginetest"
)

// benchSetup builds 1000 promotions of the nine example types over 200
// products and a tree of 200 categories, and a cart of 50 entries.
func benchSetup(tb testing.TB) ([]Promotion, []Entry, Categories) {
	r := rand.New(rand.NewPCG(1, 2))
	const nProducts, nCategories = 200, 200
	parent := func(c int) int { return (c - 1) / 4 } // k0 is the root
	cats := Categories{}
	for p := range nProducts {
		var ids []string
		for range 1 + r.IntN(2) {
			for c := 50 + r.IntN(nCategories-50); ; c = parent(c) {
				ids = append(ids, fmt.Sprintf("k%d", c))
				if c == 0 {
					break
				}
			}
		}
		cats[fmt.Sprintf("p%d", p)] = ids
	}
	cat := func() string { return fmt.Sprintf("k%d", r.IntN(nCategories)) }
	prod := func() string { return fmt.Sprintf("p%d", r.IntN(nProducts)) }
	var ps []promo
	for i := range 1000 {
		ifJ, thenJ := enginetest.Rules(i, prod, cat)
		ps = append(ps, promo{fmt.Sprintf("promo%d", i), r.IntN(100), ifJ, thenJ})
	}
	promos := promotions(tb, ps...)
	var entries []Entry
	for i, p := range r.Perm(nProducts)[:50] {
		entries = append(entries, Entry{
			ID:        fmt.Sprintf("e%d", i),
			ProductID: fmt.Sprintf("p%d", p),
			Quantity:  1 + r.IntN(3),
			UnitPrice: int64(100 + r.IntN(100000)),
		})
	}
	return promos, entries, cats
}

func BenchmarkEvaluate(b *testing.B) {
	promos, entries, cats := benchSetup(b)
	ix := NewIndex(promos)
	b.ReportAllocs()
	var res Result
	for b.Loop() {
		res = ix.Evaluate(entries, 2, cats)
	}
	b.ReportMetric(float64(len(res.ItemDiscounts)), "discounted-entries")
	b.ReportMetric(float64(len(res.AlmostFulfilled)), "almost-promos")
}

func BenchmarkNewIndex(b *testing.B) {
	promos, _, _ := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		NewIndex(promos)
	}
}

// BenchmarkEvaluateFullCart is the largest cart allowed: 50 entries of 100
// units, where the work grows with the number of firings.
func BenchmarkEvaluateFullCart(b *testing.B) {
	promos, entries, cats := benchSetup(b)
	for i := range entries {
		entries[i].Quantity = 100
	}
	ix := NewIndex(promos)
	b.ReportAllocs()
	var res Result
	for b.Loop() {
		res = ix.Evaluate(entries, 2, cats)
	}
	b.ReportMetric(float64(len(res.ItemDiscounts)), "discounted-entries")
	b.ReportMetric(float64(len(res.AlmostFulfilled)), "almost-promos")
}

// BenchmarkEvaluateCoupons is BenchmarkEvaluate with 200 of the 1,000
// promotions carrying a code and dates (docs/api.md section 16): the cart
// holds 5 codes, and half the dated promotions are outside their dates at
// the evaluation's time; the cart has a shipping rate.
func BenchmarkEvaluateCoupons(b *testing.B) {
	promos, entries, cats := benchSetup(b)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for i := range 200 {
		p := &promos[i*5]
		p.Code = fmt.Sprintf("code%d", i)
		p.Start, p.End = now.Add(-time.Hour), now.Add(time.Hour)
		if i%2 == 1 {
			p.Start = now.Add(time.Minute)
		}
	}
	ix := NewIndex(promos)
	rate := int64(495)
	in := Input{Entries: entries, Precision: 2, Categories: cats, Now: now, Shipping: &rate,
		Coupons: []string{"code0", "code2", "code7", "code40", "code100"}}
	b.ReportAllocs()
	var res Result
	for b.Loop() {
		res = ix.EvaluateCart(in)
	}
	b.ReportMetric(float64(len(res.ItemDiscounts)), "discounted-entries")
	b.ReportMetric(float64(len(res.Fired)), "fired")
}

// TestIndexFilterIsConservative checks that skipping the promotions the
// index rules out changes nothing, on the benchmark's promotions and
// varied carts.
func TestIndexFilterIsConservative(t *testing.T) {
	promos, entries, cats := benchSetup(t)
	ix, all := NewIndex(promos), NewIndex(promos)
	all.unfiltered = true
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 50 {
		cart := entries[:r.IntN(len(entries))]
		for j := range cart {
			cart[j].Quantity = 1 + r.IntN(6)
		}
		got, want := ix.Evaluate(cart, 2, cats), all.Evaluate(cart, 2, cats)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cart %d: got %s, want %s", i, show(got), show(want))
		}
	}
}

// TestEvaluateConcurrent shares one index between goroutines (run with
// -race).
func TestEvaluateConcurrent(t *testing.T) {
	promos, entries, cats := benchSetup(t)
	ix := NewIndex(promos)
	want := ix.Evaluate(entries, 2, cats)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := ix.Evaluate(entries, 2, cats); !reflect.DeepEqual(got, want) {
					t.Errorf("got %s, want %s", show(got), show(want))
					return
				}
			}
		})
	}
	wg.Wait()
}
