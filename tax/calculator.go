package tax

import (
	"fmt"
	"math/big"
	"slices"
	"sync"

	"github.com/commercekit/commerce/money"
)

// Input is what a Calculator is given to compute one tax of an entry.
type Input struct {
	Entry Entry
	// Taxes are all the taxes that apply to the entry, the one computed
	// among them, in order.
	Taxes []Tax
	// Base is the entry's Amount less its Discount, in minor units.
	Base int64
	// Net is the exact net amount: Base for a net price; for a gross price
	// Base / (1 + sum of percentage rates / 100), unrounded, so each line
	// is rounded once (docs/api.md section 8).
	Net *big.Rat
	// Precision is the number of decimals of the cart's currency.
	Precision int
}

// Calculator computes the taxes of one class.
type Calculator interface {
	// Tax returns the amount of tax t on the entry of in, in minor units
	// rounded half away from zero. An error fails the whole computation
	// (internal_error).
	Tax(in Input, t Tax) (int64, error)
}

// CalculatorFunc adapts a function to a Calculator.
type CalculatorFunc func(in Input, t Tax) (int64, error)

// Tax calls f(in, t).
func (f CalculatorFunc) Tax(in Input, t Tax) (int64, error) { return f(in, t) }

var (
	mu          sync.RWMutex
	calculators = map[string]Calculator{DefaultClass: CalculatorFunc(defaultTax)}
)

// Register makes a calculator available under a class name. It is meant to
// be called from an init function, and panics when class is empty, c is nil
// or the class is already registered.
func Register(class string, c Calculator) {
	mu.Lock()
	defer mu.Unlock()
	if class == "" || c == nil {
		panic("tax: Register needs a class and a calculator")
	}
	if _, dup := calculators[class]; dup {
		panic("tax: Register called twice for class " + class)
	}
	calculators[class] = c
}

// Lookup returns the calculator registered for class.
func Lookup(class string) (Calculator, bool) {
	mu.RLock()
	defer mu.RUnlock()
	c, ok := calculators[class]
	return c, ok
}

// Classes returns the registered class names, sorted.
func Classes() []string {
	mu.RLock()
	defer mu.RUnlock()
	classes := make([]string, 0, len(calculators))
	for class := range calculators {
		classes = append(classes, class)
	}
	slices.Sort(classes)
	return classes
}

// defaultTax is the built-in class, whose rules the package documentation
// gives.
func defaultTax(in Input, t Tax) (int64, error) {
	r := rat(t.Rate)
	switch {
	case !t.IsPercentage:
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(in.Precision)), nil)
		r.Mul(r, new(big.Rat).SetInt(scale.Mul(scale, big.NewInt(int64(in.Entry.Quantity)))))
	default:
		// Net: base x rate / 100. Gross: the included tax, net x rate / 100,
		// which for one tax is base - base / (1 + rate / 100).
		r.Mul(r, in.Net).Quo(r, big.NewRat(100, 1))
	}
	v, ok := round(r)
	if !ok {
		return 0, fmt.Errorf("tax %s x %d: %w", t.Rate, in.Entry.Quantity, money.ErrRange)
	}
	return v, nil
}

// rat returns d as an exact rational.
func rat(d money.Decimal) *big.Rat {
	ten := big.NewInt(10)
	if d.Scale >= 0 {
		return new(big.Rat).SetFrac(big.NewInt(d.Units), new(big.Int).Exp(ten, big.NewInt(int64(d.Scale)), nil))
	}
	n := new(big.Int).Exp(ten, big.NewInt(int64(-d.Scale)), nil)
	return new(big.Rat).SetInt(n.Mul(n, big.NewInt(d.Units)))
}

// round returns r rounded half away from zero, and false when that does
// not fit in an int64.
func round(r *big.Rat) (int64, bool) {
	num := new(big.Int).Abs(r.Num())
	q, m := num.QuoRem(num, r.Denom(), new(big.Int))
	if m.Lsh(m, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if r.Sign() < 0 {
		q.Neg(q)
	}
	return q.Int64(), q.IsInt64()
}
