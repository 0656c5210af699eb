package tax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/commercekit/commerce/money"
)

// rationalAmounts is what computeEntry computed before defaultAmounts:
// each tax through its calculator, over the exact net base.
func rationalAmounts(e Entry, applied []Tax, base int64, precision int) ([]int64, error) {
	in := Input{Entry: e, Taxes: applied, Base: base, Net: netBase(base, e.IsNetPrice, applied), Precision: precision}
	out := make([]int64, len(applied))
	for i, t := range applied {
		v, err := defaultTax(in, t)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// TestDefaultAmounts: the integer computation gives, for every entry it
// takes, exactly the amounts of the rational one: random rates of 0 to 6
// decimals (and negative scales), percentage and fixed taxes mixed, net
// and gross prices, bases and quantities up to the limits, halves to
// round; and it declines (for the rational path) what does not fit.
func TestDefaultAmounts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bases := []int64{0, 1, 5, 99, 100, 12345, 96900, 1 << 31, 999_999_999_999, math.MaxInt64 / 1000, math.MaxInt64}
	taken, declined := 0, 0
	for i := range 200_000 {
		n := 1 + r.IntN(3)
		applied := make([]Tax, n)
		for j := range applied {
			scale := r.IntN(7)
			switch r.IntN(20) {
			case 0:
				scale = -r.IntN(3)
			case 1:
				scale = 15 + r.IntN(5) // up to 19: past what the integers take
			}
			units := r.Int64N(100 * int64(pow10[min(max(scale, 0), 16)]))
			if r.IntN(50) == 0 {
				units = r.Int64N(math.MaxInt64)
			}
			applied[j] = Tax{ID: "t", Code: DefaultCode, Class: DefaultClass, Title: "T", IsPercentage: r.IntN(4) != 0,
				Rate: money.Decimal{Units: units, Scale: scale}}
		}
		base := bases[r.IntN(len(bases))]
		if r.IntN(2) == 0 {
			base = r.Int64N(10_000_000)
		}
		e := Entry{ID: "e", Quantity: 1 + r.IntN(5), IsNetPrice: r.IntN(2) == 0}
		if r.IntN(100) == 0 {
			e.Quantity = math.MaxInt32
		}
		precision := []int{0, 2, 3}[r.IntN(3)]
		got, ok := defaultAmounts(e, applied, base, precision)
		want, err := rationalAmounts(e, applied, base, precision)
		if !ok {
			declined++
			continue
		}
		taken++
		if err != nil {
			t.Fatalf("case %d: integers gave %v where rationals fail: %v (%+v, base %d)", i, got, err, applied, base)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d, tax %d: %d, want %d (%+v, base %d, %+v, precision %d)", i, j, got[j], want[j], applied, base, e, precision)
			}
		}
	}
	if taken < 150_000 || declined == 0 {
		t.Errorf("took %d cases and declined %d: want most taken, some declined", taken, declined)
	}

	// Halves round away from zero: 5 at 10 % of 5 (net) is 0.5 -> 1.
	got, ok := defaultAmounts(Entry{Quantity: 1, IsNetPrice: true},
		[]Tax{{Class: DefaultClass, IsPercentage: true, Rate: money.Decimal{Units: 10}}}, 5, 2)
	if !ok || got[0] != 1 {
		t.Errorf("10 %% of 5: %v %v, want 1", got, ok)
	}
	// Rates of 18 decimals (a float's digits, "0.035000000000000003"):
	// 100 x 10^18 does not fit, so the rational path.
	for _, net := range []bool{true, false} {
		e := Entry{Quantity: 1, IsNetPrice: net}
		applied := []Tax{{Class: DefaultClass, IsPercentage: true, Rate: money.Decimal{Units: 999999999999999999, Scale: 18}}}
		got, ok := defaultAmounts(e, applied, 1_000_000, 2)
		want, _ := rationalAmounts(e, applied, 1_000_000, 2)
		if ok && got[0] != want[0] {
			t.Errorf("a rate of 18 decimals, net %v: %d, want %d", net, got[0], want[0])
		}
	}
	// A tax past an int64 is declined (the rational path says out of
	// range), not wrapped to 0: a net base of 145295143558111 at
	// 12696050 %, and a fixed 126960.5 x 145295143558111 units.
	if got, ok := defaultAmounts(Entry{Quantity: 1, IsNetPrice: true},
		[]Tax{{Class: DefaultClass, IsPercentage: true, Rate: money.Decimal{Units: 12696050}}}, 145295143558111, 0); ok {
		t.Errorf("a tax past an int64: %v, want declined", got)
	}
	if got, ok := defaultAmounts(Entry{Quantity: 145295143558111},
		[]Tax{{Class: DefaultClass, Rate: money.Decimal{Units: 1269605, Scale: 1}}}, 0, 0); ok {
		t.Errorf("a fixed tax past an int64: %v, want declined", got)
	}
	// A scale so negative that the shift overflows: declined, no panic.
	if _, ok := defaultAmounts(Entry{Quantity: 1}, []Tax{{Class: DefaultClass, IsPercentage: true, Rate: money.Decimal{Units: 1, Scale: math.MinInt}}}, 5, 2); ok {
		t.Error("a scale of MinInt was computed with integers")
	}
	// Another class: the rational path.
	if _, ok := defaultAmounts(Entry{Quantity: 1}, []Tax{{Class: "ecotax", Rate: money.Decimal{Units: 1}}}, 5, 2); ok {
		t.Error("a tax of another class was computed with integers")
	}
}
