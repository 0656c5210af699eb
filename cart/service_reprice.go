package cart

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

// setPrice gives the entry the selected unit price.
func (e *Entry) setPrice(sel catalog.Selected) {
	e.UnitPrice, e.PriceID, e.PriceListID = sel.Amount, sel.PriceID, sel.PriceListID
}

// listPrices returns the active price lists' prices of the products (none
// without Deps.PriceLists).
func (s *Service) listPrices(ctx context.Context, ids, groups []string) (map[string][]catalog.ListPrice, error) {
	if s.deps.PriceLists == nil || len(ids) == 0 {
		return nil, nil
	}
	lists, err := s.deps.PriceLists.ListPrices(ctx, ids, groups)
	if err != nil {
		return nil, fmt.Errorf("price lists: %w", err)
	}
	return lists, nil
}

// reprice selects again, with catalog.SelectPrice, the unit price of each
// entry that a price list prices now or priced before (docs/api.md section
// 26: a cart reprices when a quantity crosses a tier or a price list
// changes), and returns the ids of the entries whose price changed. An
// entry no price list ever priced keeps the price selected when its units
// were added (docs/api.md section 10), and so does an entry for which no
// price is left at all (its product lost its price in the currency:
// addToCart refuses it, a cart holding it is not repriced to nothing).
func (s *Service) reprice(ctx context.Context, c *Cart, sh Shopper, now time.Time) ([]string, error) {
	if s.deps.PriceLists == nil || len(c.Items) == 0 {
		return nil, nil
	}
	ids := make([]string, len(c.Items))
	for i, e := range c.Items {
		ids[i] = e.ProductID
	}
	lists, err := s.listPrices(ctx, ids, sh.Groups)
	if err != nil {
		return nil, err
	}
	var need []string
	for _, e := range c.Items {
		if e.PriceListID != "" || len(lists[e.ProductID]) > 0 {
			need = append(need, e.ProductID)
		}
	}
	if len(need) == 0 {
		return nil, nil
	}
	products, err := s.deps.Catalog.Products(ctx, need)
	if err != nil {
		return nil, fmt.Errorf("reprice: products: %w", err)
	}
	var moved []string
	for _, e := range c.Items {
		if !slices.Contains(need, e.ProductID) {
			continue
		}
		var prices []catalog.Price
		if p := products[e.ProductID]; p != nil {
			prices = p.Prices
		}
		sel, ok := catalog.SelectPrice(prices, lists[e.ProductID], sh, int64(e.Quantity), now)
		if !ok || sel.PriceListID == "" && e.PriceListID == "" {
			continue
		}
		if sel.Amount != e.UnitPrice || sel.PriceListID != e.PriceListID {
			if sel.Amount != e.UnitPrice {
				moved = append(moved, e.ID)
			}
			e.setPrice(sel)
		}
	}
	return moved, nil
}

// pricesChanged is prices_changed: a checkout found the price of entries
// changed since the cart was last calculated (a price list changed, began
// or ended); the cart is left as it was, and the next calculation shows
// the new prices (data: the entries' ids).
func pricesChanged(items []string) error {
	return &commerce.Error{Code: commerce.EPricesChanged, Data: items,
		Message: "the price of some entries changed since the cart was last calculated: calculate it again before checking out"}
}
