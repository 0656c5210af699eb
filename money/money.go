// Package money handles amounts as integers in the minor units of their
// ISO 4217 currency, parsing and printing major-unit decimals exactly and
// rounding computed amounts half away from zero. It never uses floats.
package money

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// Money is an amount in minor units with its currency and the currency's
// precision: the money-object form of the interface.
type Money struct {
	// Amount is in minor units of the currency (cents for USD: 57765 is
	// 577.65).
	Amount int64 `json:"amount"`
	// Currency is the ISO 4217 currency code.
	Currency string `json:"currency"`
	// Precision is the currency's ISO 4217 minor unit, the number of
	// decimals (USD 2, JPY 0, JOD 3).
	Precision int `json:"precision"`
}

// Amount is an amount that marshals in one of the interface's two forms:
// a plain number in major units (Plain: 311.47, the v1 and addToCart
// forms) or a money object ({"amount":31147,"currency":"USD","precision":2}).
type Amount struct {
	Money
	Plain bool
}

// MarshalJSON writes the amount in its form.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a.Plain {
		return []byte(FormatMinor(a.Amount, a.Precision)), nil
	}
	return json.Marshal(a.Money)
}

// ValidCurrency reports whether code is an upper-case ISO 4217 code.
func ValidCurrency(code string) bool {
	_, err := Precision(code)
	return err == nil
}

// Precision returns the ISO 4217 minor-unit digits of an upper-case
// currency code (USD 2, JPY 0, JOD 3), from golang.org/x/text's CLDR data.
func Precision(code string) (int, error) {
	if len(code) != 3 || strings.ToUpper(code) != code {
		return 0, fmt.Errorf("currency %q: not an ISO 4217 code", code)
	}
	u, err := currency.ParseISO(code)
	if err != nil {
		return 0, fmt.Errorf("currency %q: not an ISO 4217 code", code)
	}
	scale, _ := currency.Standard.Rounding(u)
	return scale, nil
}

// MaxAmount is the largest price or rate accepted, in minor units (10^13:
// 100 billion dollars). It keeps every computed total exact in an int64:
// a full cart (50 entries of 100 units) stays below 10^17.
const MaxAmount int64 = 10_000_000_000_000

// Decimal is an exact decimal number Units x 10^-Scale, used for rates and
// for amounts read in major units.
type Decimal struct {
	Units int64
	Scale int
}

// ErrRange is returned for a number too large to hold exactly.
var ErrRange = errors.New("number out of range")

// ParseDecimal reads a JSON-style decimal ("577.65", "-3", "1e2") exactly.
func ParseDecimal(s string) (Decimal, error) {
	if s == "" {
		return Decimal{}, errors.New("empty number")
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 30 || e < -30 {
			return Decimal{}, fmt.Errorf("number %q: bad exponent", s)
		}
		exp, s = e, s[:i]
	}
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if intPart == "" && frac == "" {
		return Decimal{}, fmt.Errorf("number %q: no digits", s)
	}
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return Decimal{}, fmt.Errorf("number %q: not a number", s)
		}
	}
	scale := len(frac) - exp
	// Drop trailing zeros of the fraction so 10.50 has scale 1.
	for scale > 0 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		scale--
	}
	if digits == "" {
		return Decimal{}, nil
	}
	for scale < 0 {
		digits += "0"
		scale++
	}
	if len(digits) > 18 {
		return Decimal{}, ErrRange
	}
	u, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return Decimal{}, ErrRange
	}
	if neg {
		u = -u
	}
	return Decimal{Units: u, Scale: scale}, nil
}

// String prints the decimal in plain notation.
func (d Decimal) String() string { return FormatMinor(d.Units, d.Scale) }

// MarshalJSON writes the decimal as a plain JSON number.
func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON reads a JSON number exactly.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	v, err := ParseDecimal(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Minor returns the decimal in minor units of precision, and an error when
// it has more decimals than the precision allows or is too large.
func (d Decimal) Minor(precision int) (int64, error) {
	if d.Scale > precision {
		return 0, fmt.Errorf("%s has more than %d decimals", d, precision)
	}
	u := d.Units
	for s := d.Scale; s < precision; s++ {
		if u > math.MaxInt64/10 || u < math.MinInt64/10 {
			return 0, ErrRange
		}
		u *= 10
	}
	return u, nil
}

// ParseMajor reads a major-unit decimal ("577.65") into minor units of the
// precision; more decimals than the precision allows is an error.
func ParseMajor(s string, precision int) (int64, error) {
	d, err := ParseDecimal(s)
	if err != nil {
		return 0, err
	}
	return d.Minor(precision)
}

// FormatMinor prints minor units as a major-unit decimal with no trailing
// zeros (57765, 2 -> "577.65"; 2500, 2 -> "25"), as a JSON number literal.
func FormatMinor(amount int64, precision int) string {
	neg := amount < 0
	s := strconv.FormatUint(absU(amount), 10)
	if precision > 0 {
		for len(s) <= precision {
			s = "0" + s
		}
		s = s[:len(s)-precision] + "." + s[len(s)-precision:]
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Major returns minor units as a JSON number in major units (577.65).
func Major(amount int64, precision int) json.Number {
	return json.Number(FormatMinor(amount, precision))
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// MulDiv returns a*b/c rounded half away from zero. c must not be 0.
// It is exact for any int64 inputs whose result fits in an int64 (it
// saturates otherwise).
func MulDiv(a, b, c int64) int64 {
	if c == 0 {
		panic("money: MulDiv by zero")
	}
	const lim = 1 << 31
	if a > -lim && a < lim && b > -lim && b < lim {
		p := a * b
		q, r := p/c, p%c
		if r != 0 && 2*absU(r) >= absU(c) {
			if (p < 0) != (c < 0) {
				q--
			} else {
				q++
			}
		}
		return q
	}
	p := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	bc := big.NewInt(c)
	q, r := new(big.Int).QuoRem(p, bc, new(big.Int))
	if r.Sign() != 0 {
		r2 := new(big.Int).Abs(r)
		r2.Lsh(r2, 1)
		if r2.Cmp(new(big.Int).Abs(bc)) >= 0 {
			if p.Sign()*bc.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if !q.IsInt64() {
		if q.Sign() < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return q.Int64()
}

// Pow10 returns 10^n for 0 <= n <= 18.
func Pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// Percent returns amount x rate / 100 rounded half away from zero, for a
// decimal rate (21, 10.5).
func Percent(amount int64, rate Decimal) int64 {
	return MulDiv(amount, rate.Units, 100*Pow10(rate.Scale))
}
