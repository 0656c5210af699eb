package cart

import (
	"encoding/json"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
)

// snapshot returns the order of the cart being checked out (its stock
// committed, its payment authorised): the entries, prices, discounts,
// taxes, addresses and shipping method as they are now (docs/api.md
// section 13). products gives the entries' skus; number is the order's
// allocated number.
func snapshot(c *Cart, number string, email *string, products map[string]*catalog.Product) (*order.Order, error) {
	prec, err := money.Precision(c.Currency)
	if err != nil {
		return nil, fmt.Errorf("order of cart %s: %w", c.ID, err)
	}
	m := func(v int64) money.Money { return money.Money{Amount: v, Currency: c.Currency, Precision: prec} }
	o := &order.Order{ID: commerce.NewID(), Number: number, CartID: c.ID, CustomerID: c.CustomerID,
		Currency: c.Currency, Country: c.Country, Channel: c.Channel, Locale: c.Locale, Coupons: append([]string{}, c.Coupons...)}
	if email != nil {
		o.Email = *email
	}
	var items, discount int64
	for _, e := range c.Items {
		it := &order.Item{ID: e.ID, ProductID: e.ProductID, Title: e.Title, Quantity: int64(e.Quantity),
			UnitPrice: m(e.UnitPrice), Discount: m(e.Discount()), Tax: m(e.Taxes.Tax),
			Total: m(e.Taxes.BeforeTax + e.Taxes.Tax)}
		if p := products[e.ProductID]; p != nil {
			it.SKU = p.SKU
		}
		for _, r := range e.Reserves {
			if it.WarehouseID == "" {
				it.WarehouseID = r.WarehouseID
			}
			it.Allocations = append(it.Allocations, order.Allocation{WarehouseID: r.WarehouseID, Quantity: r.Quantity})
		}
		items += e.UnitPrice * int64(e.Quantity)
		discount += e.Discount()
		o.Items = append(o.Items, it)
	}
	var shipping int64
	if sm := c.ShippingMethod; sm != nil {
		shipping = sm.Amount - c.shippingDiscount() // after any shipping discount
		o.ShippingMethod = &order.ShippingMethod{ID: sm.ID, Title: sm.Title, Rate: m(sm.Amount)}
	}
	o.Totals = order.Totals{Items: m(items), Discount: m(discount), Shipping: m(shipping), Tax: m(c.Tax),
		Total: m(c.BeforeTax + c.Tax)}
	if o.ShippingAddress, err = rawAddress(c.ShippingAddress); err != nil {
		return nil, err
	}
	if o.BillingAddress, err = rawAddress(c.Billing()); err != nil {
		return nil, err
	}
	if p := c.Payment; p != nil {
		o.Payments = []*order.Payment{{ID: commerce.NewID(), Provider: p.PaymentID, Status: order.PayAuthorized,
			Amount: m(p.Amount), Captured: m(0), Refunded: m(0), Reference: p.Authorization}}
	}
	return o, nil
}

func rawAddress(a *Address) (json.RawMessage, error) {
	if a == nil {
		return nil, nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("order address: %w", err)
	}
	return b, nil
}
