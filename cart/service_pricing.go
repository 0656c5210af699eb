package cart

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
)

// recalc recomputes the promotions and the taxes of the cart from its
// entries and shipping method: the entries' discounts, the almost
// fulfilled promotions, the entries' and the shipping line's taxes (on
// unit price x quantity less the discounts; the shipping line is the
// method's rate, quantity 1, a gross amount taxed by the method's tax
// code), and the totals.
func (s *Service) recalc(ctx context.Context, c *Cart) error {
	prec, err := money.Precision(c.Currency)
	if err != nil {
		return fmt.Errorf("cart %s: %w", c.ID, err)
	}
	// The assigned method is priced again: one removed, deactivated or no
	// longer offered for the address is cleared, a changed rate applies.
	if m := c.ShippingMethod; m != nil && c.ShippingAddress != nil {
		err := s.shipWith(ctx, c, m.ID)
		if commerce.ErrorCode(err) == commerce.EInvalidShippingMethod {
			c.ShippingMethod = nil
		} else if err != nil {
			return fmt.Errorf("shipping method: %w", err)
		}
	}
	res := promotion.CartOutcome{Result: engine.Result{AlmostFulfilled: []engine.AlmostFulfilled{}}}
	if len(c.Items) > 0 {
		in := promotion.CartEval{Entries: make([]engine.Entry, len(c.Items)), Precision: prec, Coupons: c.Coupons, CustomerID: c.CustomerID}
		for i, e := range c.Items {
			in.Entries[i] = engine.Entry{ID: e.ID, ProductID: e.ProductID, Quantity: e.Quantity, UnitPrice: e.UnitPrice}
		}
		if in.CustomerID == Anonymous {
			in.CustomerID = ""
		}
		if m := c.ShippingMethod; m != nil {
			rate := m.Amount
			in.Shipping = &rate
		}
		if res, err = s.deps.Promotions.EvaluateCart(ctx, in); err != nil {
			return fmt.Errorf("promotions: %w", err)
		}
	}
	c.Fired, c.exhausted, c.ShippingDiscount = res.Fired, res.Exhausted, nil
	if d := res.Shipping; d != nil {
		c.ShippingDiscount = &ShippingDiscount{PromotionID: d.PromotionID, PromotionTitle: d.PromotionTitle, Discount: d.Discount}
	}
	discounts := make(map[string][]Discount, len(res.ItemDiscounts))
	for _, it := range res.ItemDiscounts {
		ds := make([]Discount, len(it.Discounts))
		for i, d := range it.Discounts {
			ds[i] = Discount{PromotionID: d.PromotionID, PromotionTitle: d.PromotionTitle, Quantity: d.Quantity, Price: d.UnitPrice, Discount: d.Discount}
		}
		discounts[it.ID] = ds
	}
	c.AlmostFulfilled = res.AlmostFulfilled
	if c.AlmostFulfilled == nil {
		c.AlmostFulfilled = []engine.AlmostFulfilled{}
	}

	te := make([]tax.Entry, 0, len(c.Items)+1)
	for _, e := range c.Items {
		e.Discounts = discounts[e.ID]
		if e.Discounts == nil {
			e.Discounts = []Discount{}
		}
		te = append(te, tax.Entry{
			ID: e.ID, ProductID: e.ProductID, Quantity: e.Quantity,
			Amount: e.UnitPrice * int64(e.Quantity), Discount: e.Discount(),
			IsNetPrice: e.IsNetPrice, TaxCode: e.TaxCode,
		})
	}
	if m := c.ShippingMethod; m != nil {
		// Taxed on the rate less its discount (docs/api.md section 16).
		te = append(te, tax.Entry{ID: "shipping", Quantity: 1, Amount: m.Amount - c.shippingDiscount(), TaxCode: m.TaxCode})
	}
	var results []tax.Result
	if len(te) > 0 {
		if results, err = s.deps.Taxes.Compute(ctx, te, prec); err != nil {
			return fmt.Errorf("taxes: %w", err)
		}
		if len(results) != len(te) {
			return fmt.Errorf("taxes: %d results for %d entries", len(results), len(te))
		}
	}
	c.BeforeTax, c.Tax, c.ShippingTaxes = 0, 0, nil
	for i, r := range results {
		t := taxesOf(r)
		c.BeforeTax += t.BeforeTax
		c.Tax += t.Tax
		if i < len(c.Items) {
			c.Items[i].Taxes = t
		} else {
			c.ShippingTaxes = &t
		}
	}
	return nil
}

func taxesOf(r tax.Result) EntryTaxes {
	t := EntryTaxes{Lines: make([]TaxLine, len(r.Lines)), BeforeTax: r.BeforeTax, Tax: r.Tax, TaxDetail: r.TaxDetail}
	for i, l := range r.Lines {
		t.Lines[i] = TaxLine{BeforeTax: l.BeforeTax, Tax: l.Tax, TaxDetail: l.TaxDetail}
	}
	return t
}

// setReserves gives each entry its reservations, in the order made
// (released ones included: see Cart.DropLapsed).
func setReserves(c *Cart, rs []stock.Reservation) {
	by := map[string][]stock.Reservation{}
	for _, r := range rs {
		by[r.ItemID] = append(by[r.ItemID], r)
	}
	for _, e := range c.Items {
		e.Reserves = by[e.ID]
		if e.Reserves == nil {
			e.Reserves = []stock.Reservation{}
		}
	}
}

// computed returns the cart's computed state (discounts, taxes,
// promotions), to tell whether a recalculation changed it.
func computed(c *Cart) []byte {
	type entry struct {
		P int64
		L string
		D []Discount
		T EntryTaxes
	}
	st := struct {
		E []entry
		A []engine.AlmostFulfilled
		S *EntryTaxes
		D *ShippingDiscount
		B int64
		T int64
	}{A: c.AlmostFulfilled, S: c.ShippingTaxes, D: c.ShippingDiscount, B: c.BeforeTax, T: c.Tax}
	for _, e := range c.Items {
		st.E = append(st.E, entry{e.UnitPrice, e.PriceListID, e.Discounts, e.Taxes})
	}
	b, _ := json.Marshal(st)
	return b
}
