package cart

import "github.com/commercekit/commerce/promotion/engine"

// clone returns a deep copy of the cart: nothing of the copy is shared
// with c, so either can change without the other (TestCloneShares checks
// every field, including those added later).
func (c *Cart) clone() *Cart {
	d := *c
	d.Items = make([]*Entry, len(c.Items))
	for i, e := range c.Items {
		x := *e
		x.Discounts = cloneSlice(e.Discounts)
		x.Taxes = e.Taxes.clone()
		x.Reserves = cloneSlice(e.Reserves)
		d.Items[i] = &x
	}
	d.ShippingAddress = c.ShippingAddress.clone()
	d.BillingAddress = c.BillingAddress.clone()
	d.ShippingMethod = clonePtr(c.ShippingMethod)
	d.Coupons = cloneSlice(c.Coupons)
	d.ShippingDiscount = clonePtr(c.ShippingDiscount)
	d.Fired = cloneSlice(c.Fired)
	d.Groups = cloneSlice(c.Groups)
	d.exhausted = cloneSlice(c.exhausted)
	if c.AlmostFulfilled != nil {
		d.AlmostFulfilled = make([]engine.AlmostFulfilled, len(c.AlmostFulfilled))
		for i, a := range c.AlmostFulfilled {
			a.Data = cloneSlice(a.Data)
			for j := range a.Data {
				a.Data[j].Items = cloneSlice(a.Data[j].Items)
			}
			d.AlmostFulfilled[i] = a
		}
	}
	if c.ShippingTaxes != nil {
		t := c.ShippingTaxes.clone()
		d.ShippingTaxes = &t
	}
	if c.Payment != nil {
		p := *c.Payment
		p.Data = cloneSlice(p.Data)
		d.Payment = &p
	}
	return &d
}

func (t EntryTaxes) clone() EntryTaxes {
	t.Lines = cloneSlice(t.Lines)
	return t
}

func (a *Address) clone() *Address {
	if a == nil {
		return nil
	}
	b := *a
	b.Address2 = cloneSlice(a.Address2)
	return &b
}

// cloneSlice copies a slice, keeping nil nil and empty empty (the JSON
// form tells null from []).
func cloneSlice[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	return append(make(S, 0, len(s)), s...)
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
