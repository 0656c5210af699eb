package tax

import (
	"math"
	"math/bits"
)

// defaultAmounts computes the taxes of an entry, one amount per tax of
// applied, when they are all of the built-in class, with integers instead
// of big.Rat (which took a tenth of an add to cart's CPU): the same amounts
// as defaultTax, exactly. It reports false, and computeEntry then
// computes with rationals, when a tax is of another class, or a rate, a
// quantity or a product of them does not fit in 64 bits.
//
// With every rate written as r / 10^s (s the largest scale), a
// percentage tax is r x base / D, with D = 100 x 10^s for a net price and
// 100 x 10^s + the sum of the percentage rates' r for a gross one (the
// net base, base x 100 / (100 + sum), times rate / 100); a fixed tax is
// r x 10^precision x quantity / 10^s. Each is rounded once, half away
// from zero; the products are 128-bit.
func defaultAmounts(e Entry, applied []Tax, base int64, precision int) ([]int64, bool) {
	s := 0
	for _, t := range applied {
		if t.Class != DefaultClass || t.Rate.Units < 0 {
			return nil, false
		}
		s = max(s, t.Rate.Scale)
	}
	// 100 x 10^s, and the sum of the rates, must fit in 64 bits.
	if s > maxRateScale || base < 0 || e.Quantity < 0 || precision < 0 || precision > maxScale {
		return nil, false
	}
	one := pow10[s] // 10^s: a rate of 1
	var sum uint64  // the percentage rates, in units of 1 / 10^s
	rates := make([]uint64, len(applied))
	for i, t := range applied {
		shift := s - t.Rate.Scale // >= 0 but for a scale so negative that it overflows
		if shift < 0 || shift > maxScale || uint64(t.Rate.Units) > math.MaxInt64/pow10[shift] {
			return nil, false
		}
		rates[i] = uint64(t.Rate.Units) * pow10[shift]
		if t.IsPercentage {
			if sum += rates[i]; sum > math.MaxInt64 {
				return nil, false
			}
		}
	}
	d := 100 * one
	if !e.IsNetPrice {
		if d += sum; d > math.MaxInt64 {
			return nil, false
		}
	}
	qty := uint64(e.Quantity)
	if qty > math.MaxInt64/pow10[precision] {
		return nil, false
	}
	units := pow10[precision] * qty // the quantity, in minor units
	amounts := make([]int64, len(applied))
	for i, t := range applied {
		var ok bool
		if t.IsPercentage {
			amounts[i], ok = divRound(rates[i], uint64(base), d)
		} else {
			amounts[i], ok = divRound(rates[i], units, one)
		}
		if !ok {
			return nil, false
		}
	}
	return amounts, true
}

// maxScale bounds the powers of ten defaultAmounts uses (pow10's table):
// the decimals of a currency, a rate's shift to the common scale.
// maxRateScale bounds the common scale of the rates, so that 100 x 10^s
// (a rate of 100 %) fits in 64 bits.
const (
	maxScale     = 18
	maxRateScale = 16
)

var pow10 = func() (p [maxScale + 1]uint64) {
	p[0] = 1
	for i := 1; i <= maxScale; i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// divRound returns a x b / d rounded half up, and false when it does not
// fit in an int64. d > 0.
func divRound(a, b, d uint64) (int64, bool) {
	hi, lo := bits.Mul64(a, b)
	if hi >= d {
		return 0, false
	}
	q, rem := bits.Div64(hi, lo, d)
	if q > math.MaxInt64 {
		return 0, false
	}
	if rem >= d-rem { // 2 x rem >= d
		q++ // at most MaxInt64 + 1: no wrap
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}
