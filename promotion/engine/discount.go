package engine

import (
	"math"
	"math/big"

	"github.com/commercekit/commerce/money"
)

// unitDiscount is the discount d gives one unit of price, in minor units of
// a currency with the given precision: never negative, never above price.
func unitDiscount(price int64, d *Discount, precision int) int64 {
	if price <= 0 || d == nil {
		return 0
	}
	var v int64
	switch {
	case d.IsPercentage:
		// Rounded per unit, half away from zero (docs/api.md section 5).
		v = mulDivPow10(price, d.Rate.Units, -d.Rate.Scale, 100)
	case d.IsFixedPrice:
		v = price - max(minor(d.Rate, precision), 0)
	default:
		v = minor(d.Rate, precision)
	}
	return min(max(v, 0), price)
}

// minor converts a major-unit rate to minor units of precision. A rate with
// more decimals than the currency has (0.005 USD) is rounded half away from
// zero: rules are created without knowing the currency of the carts they
// will meet, so rejecting it is not an option.
func minor(rate money.Decimal, precision int) int64 {
	return mulDivPow10(rate.Units, 1, precision-rate.Scale, 1)
}

// mulDivPow10 returns a × b × 10^shift / c rounded half away from zero,
// saturating at the int64 range; c must be positive. Rates carry up to 48
// decimals (money.ParseDecimal accepts exponents), beyond money.Pow10's
// range, hence the big.Int fallback for rare inputs.
func mulDivPow10(a, b int64, shift int, c int64) int64 {
	switch {
	case a == 0 || b == 0:
		return 0
	case shift >= 0 && shift <= 18:
		if p := money.Pow10(shift); b <= math.MaxInt64/p && b >= math.MinInt64/p {
			return money.MulDiv(a, b*p, c)
		}
	case shift < 0 && shift >= -16 && c <= 100:
		return money.MulDiv(a, b, c*money.Pow10(-shift))
	case shift < -40:
		// |a × b| < 10^38, so the quotient rounds to zero.
		return 0
	case shift > 40:
		if (a < 0) != (b < 0) {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	num := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	den := big.NewInt(c)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(shift))), nil)
	if shift > 0 {
		num.Mul(num, p)
	} else {
		den.Mul(den, p)
	}
	neg := num.Sign() < 0
	num.Abs(num)
	q, r := num.QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	switch {
	case q.IsInt64():
		return q.Int64()
	case neg:
		return math.MinInt64
	default:
		return math.MaxInt64
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
