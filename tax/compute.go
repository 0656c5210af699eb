package tax

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/commercekit/commerce"
)

// Entry is a cart entry (or the shipping line) to tax. Amounts are in
// minor units of the cart's currency.
type Entry struct {
	ID        string
	ProductID string
	Quantity  int
	// Amount is the entry's price before discounts: unit price x quantity
	// (tax.cartTaxes gives it as the item's price).
	Amount int64
	// Discount is the entry's total discount: per-unit discount x
	// discounted quantity.
	Discount   int64
	IsNetPrice bool
	// TaxCode selects the taxes (compared as commerce.Key); empty means
	// DefaultCode.
	TaxCode string
}

// Line is one tax applied to an entry, in minor units.
type Line struct {
	BeforeTax int64
	Tax       int64
	TaxDetail string
}

// Result is the taxes of one entry: its lines, and the entry's totals:
// BeforeTax is its net base counted once, Tax the sum of the lines and
// TaxDetail their details joined with ", ".
type Result struct {
	EntryID   string
	Lines     []Line
	BeforeTax int64
	Tax       int64
	TaxDetail string
}

// Compute returns the taxes of each entry, in entry order, for a currency
// of the given precision. taxes may hold taxes of any code: those whose
// Code equals an entry's TaxCode apply to it, one line each in the order
// given; an entry no tax applies to gets one line with tax 0 and detail
// "no tax for code <code>". It fails only when a tax's class is not
// registered or its calculator fails.
//
// The base of an entry is Amount - Discount (never below 0). For a gross
// price (IsNetPrice false) the percentage taxes are included in the base:
// the entry's BeforeTax is the base less those included taxes (so it and
// the taxes add up to the base exactly); for a net price it is the base.
// Every line's BeforeTax is the entry's.
func Compute(entries []Entry, taxes []Tax, precision int) ([]Result, error) {
	results := make([]Result, 0, len(entries))
	for _, e := range entries {
		r, err := computeEntry(e, taxes, precision)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

func computeEntry(e Entry, taxes []Tax, precision int) (Result, error) {
	code := commerce.Key(e.TaxCode)
	if code == "" {
		code = DefaultCode
	}
	var applied []Tax
	for _, t := range taxes {
		if t.Code == code {
			applied = append(applied, t)
		}
	}
	base := max(e.Amount-e.Discount, 0)
	if len(applied) == 0 {
		line := Line{BeforeTax: base, TaxDetail: "no tax for code " + code}
		return Result{EntryID: e.ID, Lines: []Line{line}, BeforeTax: base, TaxDetail: line.TaxDetail}, nil
	}
	amounts, fast := defaultAmounts(e, applied, base, precision)
	var in Input
	if !fast {
		in = Input{Entry: e, Taxes: applied, Base: base, Net: netBase(base, e.IsNetPrice, applied), Precision: precision}
	}
	r := Result{EntryID: e.ID, BeforeTax: base, Lines: make([]Line, 0, len(applied))}
	details := make([]string, 0, len(applied))
	for i, t := range applied {
		var amount int64
		if fast {
			amount = amounts[i]
		} else {
			c, ok := Lookup(t.Class)
			if !ok {
				return Result{}, fmt.Errorf("tax %s (%s): class %q is not registered", t.ID, t.Code, t.Class)
			}
			var err error
			if amount, err = c.Tax(in, t); err != nil {
				return Result{}, fmt.Errorf("tax %s (%s): %w", t.ID, t.Code, err)
			}
		}
		r.Lines = append(r.Lines, Line{Tax: amount, TaxDetail: t.Title})
		r.Tax += amount
		if !e.IsNetPrice && t.IsPercentage {
			r.BeforeTax -= amount // a gross price includes its percentage taxes
		}
		details = append(details, t.Title)
	}
	// Every line's beforeTax is the entry's net base: what is left of the
	// base once its included taxes are taken out, so beforeTax plus the
	// included taxes is the gross base to the minor unit.
	for i := range r.Lines {
		r.Lines[i].BeforeTax = r.BeforeTax
	}
	r.TaxDetail = strings.Join(details, ", ")
	return r, nil
}

// netBase returns base less the percentage taxes a gross price includes,
// exactly.
func netBase(base int64, isNet bool, taxes []Tax) *big.Rat {
	sum := new(big.Rat)
	for _, t := range taxes {
		if t.IsPercentage {
			sum.Add(sum, rat(t.Rate))
		}
	}
	net := new(big.Rat).SetInt64(base)
	if isNet || sum.Sign() == 0 {
		return net
	}
	// base / (1 + sum/100) = base * 100 / (100 + sum), never above base.
	return net.Mul(net, big.NewRat(100, 1)).Quo(net, sum.Add(sum, big.NewRat(100, 1)))
}
