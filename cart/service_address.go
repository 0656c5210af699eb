package cart

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/shipping"
)

// SetShippingAddress is cart.setShippingAddress: it validates and stores
// the address (validation_error naming every missing field, then
// invalid_country and invalid_state, see Address.CheckPlace; all checked
// before the cart is looked up) and returns the shipping methods available
// for it in the cart's currency. When exactly one is available it becomes
// the cart's method; otherwise the cart's method is kept, with the rate of
// the new address, if still available, and cleared if not. No method
// available is not an error.
// Errors also: cart_not_found (data: the id), cart_not_active.
func (s *Service) SetShippingAddress(ctx context.Context, in ShippingAddressInput) (*Cart, []shipping.Available, error) {
	var p commerce.Problems
	p.CheckArgs("", in) // cartId, shippingAddress
	addr := addressArg(&p, "shippingAddress", in.ShippingAddress)
	if err := p.Err(); err != nil {
		return nil, nil, err
	}
	if err := addr.CheckPlace("shippingAddress"); err != nil {
		return nil, nil, err
	}
	var methods []shipping.Available
	c, err := s.change(ctx, in.CartID, change{op: "cart.setShippingAddress", data: in,
		prepare: func(c *Cart, _ time.Time) (err error) {
			methods, err = s.shipTo(ctx, c, addr)
			return err
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return c, methods, nil
}

// addressArg reads the address argument name: its missing fields
// (Address.Check) are recorded in p; the country and state are left to
// Address.CheckPlace, once every problem of the request is known. Absent:
// nil.
func addressArg(p *commerce.Problems, name string, a *AddressArg) *Address {
	if a == nil {
		return nil
	}
	if commerce.IsNull(a.Address2) {
		a.Address2 = nil // null is absent
	}
	a.Check(p, name)
	return &a.Address
}

// billingArg reads the billing address argument name as addressArg does:
// the address given, or same when SAMEASSHIPPING was given. Absent: nil,
// false.
func billingArg(p *commerce.Problems, name string, b *BillingAddressArg) (addr *Address, same bool) {
	if b == nil {
		return nil, false
	}
	if b.SameAsShipping {
		return nil, true
	}
	return addressArg(p, name, b.Address), false
}

// methodArg reads the shipping method argument name: the method's id, ""
// when absent; a blank id is recorded in p.
func methodArg(p *commerce.Problems, name string, m *MethodRef) string {
	if m == nil {
		return ""
	}
	if strings.TrimSpace(m.ID) == "" {
		if m.Object {
			p.Add(name+".id", "required, a shipping method id")
		} else {
			p.Add(name, "must not be blank")
		}
		return ""
	}
	return m.ID
}

// shipTo sets the cart's shipping address and method (see
// SetShippingAddress) and returns the methods available.
func (s *Service) shipTo(ctx context.Context, c *Cart, addr *Address) ([]shipping.Available, error) {
	methods, err := s.deps.Shipping.Available(ctx, addr.Country, addr.State, c.Currency)
	if err != nil {
		return nil, fmt.Errorf("available shipping methods: %w", err)
	}
	if methods == nil {
		methods = []shipping.Available{}
	}
	c.ShippingAddress = addr
	switch {
	case len(methods) == 1:
		sel := methods[0].Selected
		c.ShippingMethod = &sel
	case c.ShippingMethod != nil:
		i := slices.IndexFunc(methods, func(m shipping.Available) bool { return m.ID == c.ShippingMethod.ID })
		if i < 0 {
			c.ShippingMethod = nil
		} else {
			sel := methods[i].Selected
			c.ShippingMethod = &sel
		}
	}
	return methods, nil
}

// SetBillingAddress is cart.setBillingAddress: it stores the billing
// address given (validated as SetShippingAddress's), or makes billing
// same-as-shipping: the billing address is then the shipping address,
// following it if the shipping address changes later (as a checkout
// form's "same as shipping" box does).
// Errors: validation_error, invalid_country, invalid_state, cart_not_found
// (data: the id), cart_not_active, shipping_address_not_set (same as
// shipping without a shipping address; no data).
func (s *Service) SetBillingAddress(ctx context.Context, in BillingAddressInput) (*Cart, error) {
	var p commerce.Problems
	p.CheckArgs("", in) // cartId
	addr, same := billingArg(&p, "billingAddress", in.BillingAddress)
	if in.BillingAddress == nil {
		same = true // absent (or null) means SAMEASSHIPPING
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if addr != nil {
		if err := addr.CheckPlace("billingAddress"); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, in.CartID, change{op: "cart.setBillingAddress", data: in,
		prepare: func(c *Cart, _ time.Time) error { return billTo(c, addr, same, commerce.EShippingAddressNotSet) },
	})
}

// billTo sets the cart's billing address, or same-as-shipping, which needs
// a shipping address (else the error notSet, spelled as the operation
// spells it).
func billTo(c *Cart, addr *Address, same bool, notSet string) error {
	if !same {
		c.BillingAddress, c.BillingSameAsShipping = addr, false
		return nil
	}
	if c.ShippingAddress == nil {
		return &commerce.Error{Code: notSet, Message: "the cart has no shipping address"}
	}
	c.BillingAddress, c.BillingSameAsShipping = nil, true
	return nil
}

// SetShippingMethod is cart.setShippingMethod: it makes the method the
// cart's, with its rate for the cart's address and currency.
// Errors: validation_error, cart_not_found (data: the id),
// cart_not_active, shipping_address_notset (no data),
// invalid_shipping_method (unknown, inactive, or not available for the
// address and currency; no data).
func (s *Service) SetShippingMethod(ctx context.Context, in ShippingMethodInput) (*Cart, error) {
	var p commerce.Problems
	p.CheckArgs("", in) // cartId, methodId
	id := methodArg(&p, "methodId", in.MethodID)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, in.CartID, change{op: "cart.setShippingMethod", data: in,
		prepare: func(c *Cart, _ time.Time) error { return s.shipWith(ctx, c, id) },
	})
}

// shipWith sets the cart's shipping method, which needs a shipping address.
func (s *Service) shipWith(ctx context.Context, c *Cart, methodID string) error {
	a := c.ShippingAddress
	if a == nil {
		return &commerce.Error{Code: commerce.EShippingAddressNotset, Message: "set the shipping address first"}
	}
	sel, err := s.deps.Shipping.Rate(ctx, methodID, a.Country, a.State, c.Currency)
	if err != nil {
		return err
	}
	c.ShippingMethod = &sel
	return nil
}

// ReadAddress reads an address argument that must be an object, as the
// cart's operations do (for other areas' addresses: a customer's address
// book): the missing fields are recorded in p under name; country and
// state are left to Address.CheckPlace. Absent: nil.
func ReadAddress(p *commerce.Problems, name string, a *AddressArg) *Address {
	return addressArg(p, name, a)
}
