package cart

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/stock"
)

// AddToCart is cart.addToCart: it adds every item or none. Items of a
// product already in the cart (or given twice) add to its entry. For each
// item, in order: the product must exist and be ONLINE (product_not_found,
// data: productId), not DISCONTINUED (product_discontinued, data:
// productId), and have a price for the shopper (no_suitable_price, data:
// productId; see SelectPrice: the cart's currency and channel, the
// token's country and customerType, else the cart's country and ANON);
// the entry's new total must not exceed MaxQuantityPerProduct
// (max_quantity_per_product_exceeded, data {productId, requestedQuantity:
// the new total, maxQuantityAllowed}). Then the cart must not exceed
// MaxEntries (max_number_of_entries_exceeded, data {requestedEntries,
// maxEntriesAllowed}), and the units of products with NORMAL stock are
// reserved in their warehouse (not_enough_stock, data as stock gives it;
// units whose reservation's time has passed count as available).
//
// The entry takes the product's current data on every add: its title,
// tax code, kind of price, and the price selected now, which then applies
// to all its units (the price a shopper sees is the one they pay, never a
// stale one). Promotions and taxes are recalculated; the reservations, the
// cart and the UPDATE event on CARTS ({operation, data, new}) are stored in
// one transaction.
// Errors also: validation_error, cart_not_found (no data), cart_not_active.
func (s *Service) AddToCart(ctx context.Context, in AddInput) (*Cart, error) {
	var p commerce.Problems
	p.CheckArgs("", in) // cartId, items (the openapi tags)
	// An item's problems come in the order productId, warehouseId,
	// quantity, not its fields' (kept as the events' JSON has them), and
	// a blank id is missing: checked here.
	ids := make([]string, 0, len(in.Items))
	for i, it := range in.Items {
		at := commerce.Index("items", i) + "."
		if strings.TrimSpace(it.ProductID) == "" {
			p.Add(at+"productId", "required")
		} else if !slices.Contains(ids, it.ProductID) {
			ids = append(ids, it.ProductID)
		}
		if strings.TrimSpace(it.WarehouseID) == "" {
			p.Add(at+"warehouseId", "required")
		}
		switch {
		case it.Quantity == nil:
			p.Add(at+"quantity", "required")
		case *it.Quantity < 1:
			p.Add(at+"quantity", "must be a positive integer")
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	products, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("add to cart: products: %w", err)
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	var holds []hold
	return s.change(ctx, in.CartID, change{op: "cart.addToCart", data: in, noData: true,
		prepare: func(c *Cart, now time.Time) (err error) {
			sh := shopperOf(cl, c)
			lists, err := s.listPrices(ctx, ids, sh.Groups)
			if err != nil {
				return err
			}
			if holds, err = add(c, in.Items, products, lists, sh, now); err != nil {
				return err
			}
			// The reservations are made up now and shown on their
			// entries; the transaction stores them (change.reservations).
			for i := range holds {
				h := &holds[i]
				h.res, err = s.deps.Stock.Prepare(stock.Reservation{
					CartID: c.ID, ItemID: h.entry.ID, ProductID: h.entry.ProductID, WarehouseID: h.warehouse, Quantity: h.quantity,
				})
				if err != nil {
					return err
				}
				h.entry.Reserves = append(h.entry.Reserves, h.res)
			}
			return nil
		},
		// Reserved in one order (product, warehouse) whatever the
		// request's, so that two carts reserving the same products lock
		// the stock rows in the same order and never deadlock.
		reservations: func() []stock.Reservation {
			rs := make([]stock.Reservation, len(holds))
			for i, h := range holds {
				rs[i] = h.res
			}
			return rs
		},
	})
}

// hold is units to reserve for an entry in a warehouse.
type hold struct {
	entry     *Entry
	warehouse string
	quantity  int64
	res       stock.Reservation // made by Stock.Prepare
}

// add adds the items to the cart in memory and returns the units to
// reserve, sorted by product and warehouse.
func add(c *Cart, items []AddItem, products map[string]*catalog.Product, lists map[string][]catalog.ListPrice, sh Shopper, now time.Time) ([]hold, error) {
	byProduct := make(map[string]*Entry, len(c.Items))
	for _, e := range c.Items {
		byProduct[e.ProductID] = e
	}
	var holds []hold
	for _, it := range items {
		p, err := salable(products, it.ProductID)
		if err != nil {
			return nil, err
		}
		e := byProduct[it.ProductID]
		var had int64
		if e != nil {
			had = int64(e.Quantity)
		}
		q := *it.Quantity
		total := had + min(q, math.MaxInt64-had)
		if total > MaxQuantityPerProduct {
			return nil, &commerce.Error{Code: commerce.EMaxQuantityPerProduct,
				Data:    map[string]any{"productId": it.ProductID, "requestedQuantity": total, "maxQuantityAllowed": MaxQuantityPerProduct},
				Message: fmt.Sprintf("%d units of product %s, at most %d allowed", total, it.ProductID, MaxQuantityPerProduct)}
		}
		// The price of the entry's new total: a tier of a price list
		// may start within it.
		sel, ok := catalog.SelectPrice(p.Prices, lists[it.ProductID], sh, total, now)
		if !ok {
			return nil, &commerce.Error{Code: commerce.ENoSuitablePrice, Data: it.ProductID,
				Message: fmt.Sprintf("product %s has no price in %s for this cart", it.ProductID, sh.Currency)}
		}
		if e == nil {
			e = &Entry{ID: commerce.NewID(), ProductID: it.ProductID}
			c.Items = append(c.Items, e)
			byProduct[it.ProductID] = e
		}
		e.Quantity = int(total)
		e.Title = Title(p.Localized(c.Locale))
		e.setPrice(sel)
		e.TaxCode = cmp.Or(p.TaxCode, catalog.DefaultTaxCode)
		e.IsNetPrice = p.IsNetPrice
		e.StockStatus = p.StockStatus
		if p.StockStatus == catalog.StockNormal {
			w := commerce.Key(it.WarehouseID)
			j := slices.IndexFunc(holds, func(h hold) bool { return h.entry == e && h.warehouse == w })
			if j < 0 {
				holds = append(holds, hold{entry: e, warehouse: w})
				j = len(holds) - 1
			}
			holds[j].quantity += q
		}
	}
	if len(c.Items) > MaxEntries {
		return nil, &commerce.Error{Code: commerce.EMaxNumberOfEntries,
			Data:    map[string]any{"requestedEntries": len(c.Items), "maxEntriesAllowed": MaxEntries},
			Message: fmt.Sprintf("%d entries, at most %d allowed", len(c.Items), MaxEntries)}
	}
	slices.SortStableFunc(holds, func(a, b hold) int {
		return cmp.Or(cmp.Compare(a.entry.ProductID, b.entry.ProductID), cmp.Compare(a.warehouse, b.warehouse))
	})
	return holds, nil
}

// Title returns the title of a product's cart entry: "<sku> - <title>
// (<brand>)" and " - <value>" for each variation, in order. A product
// without a brand has no " (<brand>)" part.
func Title(p *catalog.Product) string {
	var b strings.Builder
	b.WriteString(p.SKU)
	b.WriteString(" - ")
	b.WriteString(p.Title)
	if p.Brand != "" {
		b.WriteString(" (" + p.Brand + ")")
	}
	for _, v := range p.Variations {
		b.WriteString(" - " + v.Value)
	}
	return b.String()
}

// shopperOf returns whom prices are selected for: the cart's currency and
// channel, and the customer's country and tags from the token (country,
// customerType), else the cart's country and ANON.
//
// The groups are the token's when it has no admin scope (the cart's own
// customer, or a guest with an anonymous cart), which the cart then keeps
// (Cart.Groups); an admin token's change prices for the groups the cart
// kept, so that staff touching a customer's cart do not change its prices.
func shopperOf(cl commerce.Claims, c *Cart) Shopper {
	if !cl.IsAdmin() {
		c.Groups = slices.Clone(cl.Groups)
	}
	sh := Shopper{Currency: c.Currency, Channel: c.Channel, Country: c.Country, Tags: []string{Anonymous}, Groups: c.Groups}
	if cl.Country != "" {
		sh.Country = cl.Country
	}
	if cl.CustomerType != "" {
		sh.Tags = []string{cl.CustomerType}
	}
	return sh
}

// salable returns the product of id, or product_not_found when it is
// unknown or not ONLINE, product_discontinued when it is DISCONTINUED.
func salable(products map[string]*catalog.Product, id string) (*catalog.Product, error) {
	p, ok := products[id]
	if !ok || p.Status != catalog.StatusOnline {
		return nil, &commerce.Error{Code: commerce.EProductNotFound, Data: id, Message: "no salable product " + id}
	}
	if p.StockStatus == catalog.StockDiscontinued {
		return nil, &commerce.Error{Code: commerce.EProductDiscontinued, Data: id, Message: "product " + id + " is discontinued"}
	}
	return p, nil
}

// RemoveFromCart is cart.removeFromCart: it removes quantity units of the
// entry itemId, and the entry itself when quantity is at least what it
// holds, releasing their reservations (released ones first, then the
// newest). Promotions and taxes are recalculated and UPDATE is emitted.
// Errors: validation_error, cart_not_found (no data), cart_not_active,
// item_not_found (no data).
func (s *Service) RemoveFromCart(ctx context.Context, in RemoveInput) (*Cart, error) {
	var p commerce.Problems
	p.CheckArgs("", in) // cartId, itemId, quantity (the openapi tags)
	if in.Quantity != nil && *in.Quantity < 1 {
		p.Add("quantity", "must be a positive integer")
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	all := false
	return s.change(ctx, in.CartID, change{op: "cart.removeFromCart", data: in, noData: true,
		prepare: func(c *Cart, _ time.Time) error {
			i := slices.IndexFunc(c.Items, func(e *Entry) bool { return e.ID == in.ItemID })
			if i < 0 {
				return &commerce.Error{Code: commerce.EItemNotFound, Message: "no entry " + in.ItemID + " in the cart"}
			}
			e := c.Items[i]
			all = *in.Quantity >= int64(e.Quantity)
			if all {
				c.Items = slices.Delete(c.Items, i, i+1)
			} else {
				e.Quantity -= int(*in.Quantity)
			}
			return nil
		},
		apply: func(tx Tx, c *Cart, _ time.Time) error {
			if all {
				return tx.Stock().ReleaseItem(ctx, c.ID, in.ItemID)
			}
			return s.deps.Stock.Release(ctx, tx.Stock(), c.ID, in.ItemID, *in.Quantity)
		},
	})
}

// CalculateCart is cart.calculateCart: it recalculates the promotions and
// the taxes of an ACTIVE cart with the promotions and taxes in force now
// (entry prices stay those selected when units were added) and stores the
// result, which also extends the cart's life; UPDATE is emitted only when
// the result differs from the stored one. A cart that is not ACTIVE is
// never changed: it is returned as it stands (a checked-out cart keeps the
// totals it was paid with), without error; one found past its expiration
// is expired first.
// Errors: validation_error, cart_not_found (no data).
func (s *Service) CalculateCart(ctx context.Context, in CartInput) (*Cart, error) {
	if err := commerce.CheckArgs(in); err != nil {
		return nil, err
	}
	return s.change(ctx, in.CartID, change{op: "cart.calculateCart", data: in, noData: true, frozen: true, emitIfChanged: true})
}
