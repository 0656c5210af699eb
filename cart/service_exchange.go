package cart

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/stock"
)

// The exchange of a return (docs/api.md section 24) is a cart of the
// order's customer, status EXCHANGE: its items are added, priced (the
// price selection of addToCart, for the order's currency, country and
// channel and the customer's type), taxed and reserved as any cart's, in
// the transaction of return.request; return.refund checks it out into
// the replacement order through the checkout's last step (place), with
// no shipping method (an exchange ships free); return.reject and
// return.cancel release it. No cart operation changes it, and only admin
// tokens see it.

var _ order.Exchanges = (*Service)(nil)

// heldFor is how long return.refund holds an exchange's units (Hold):
// until the refund places it, however long its provider calls take or a
// crash leaves them to the recovery job; never by the clock.
const heldFor = 100 * 365 * 24 * time.Hour

// exchangeQuote is an exchange cart computed and not yet stored.
type exchangeQuote struct {
	c     *Cart
	holds []hold
	items []order.ExchangeItem
	skus  map[string]string
}

func (q *exchangeQuote) CartID() string              { return q.c.ID }
func (q *exchangeQuote) Items() []order.ExchangeItem { return q.items }
func (q *exchangeQuote) Value() int64                { return q.c.BeforeTax + q.c.Tax }
func (q *exchangeQuote) SKUs() map[string]string     { return q.skus }
func (q *exchangeQuote) reservations() []stock.Reservation {
	rs := make([]stock.Reservation, len(q.holds))
	for i, h := range q.holds {
		rs[i] = h.res
	}
	return rs
}

// QuoteExchange implements order.Exchanges: the exchange's cart, computed
// as addToCart computes a cart's (the same errors), outside any
// transaction.
func (s *Service) QuoteExchange(ctx context.Context, o *order.Order, items []order.ExchangeItemInput) (order.Quote, error) {
	ids := make([]string, 0, len(items))
	adds := make([]AddItem, len(items))
	for i, it := range items {
		if !slices.Contains(ids, it.ProductID) {
			ids = append(ids, it.ProductID)
		}
		q := it.Quantity
		adds[i] = AddItem{ProductID: it.ProductID, Quantity: &q, WarehouseID: it.WarehouseID}
	}
	products, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("exchange: products: %w", err)
	}
	now := s.clock()
	c := &Cart{ID: commerce.NewID(), CustomerID: o.CustomerID, Status: StatusExchange, Currency: o.Currency,
		Country: o.Country, Channel: o.Channel, ExpirationTime: now.Add(s.ttl), CreatedAt: now, UpdatedAt: now,
		Items: []*Entry{}, AlmostFulfilled: []engine.AlmostFulfilled{}}
	for _, a := range []struct {
		raw json.RawMessage
		to  **Address
	}{{o.ShippingAddress, &c.ShippingAddress}, {o.BillingAddress, &c.BillingAddress}} {
		if commerce.IsNull(a.raw) {
			continue
		}
		*a.to = new(Address)
		if err := json.Unmarshal(a.raw, *a.to); err != nil {
			return nil, fmt.Errorf("exchange: the order's address: %w", err)
		}
	}
	sh := Shopper{Currency: o.Currency, Channel: o.Channel, Country: o.Country, Tags: []string{Anonymous}}
	if s.deps.Customers != nil && o.CustomerID != Anonymous {
		typ, groups, err := s.deps.Customers.Pricing(ctx, o.CustomerID)
		if err != nil {
			return nil, fmt.Errorf("exchange: customer: %w", err)
		}
		if typ != "" {
			sh.Tags = []string{typ}
		}
		sh.Groups, c.Groups = groups, slices.Clone(groups)
	}
	lists, err := s.listPrices(ctx, productIDs(adds), sh.Groups)
	if err != nil {
		return nil, err
	}
	holds, err := add(c, adds, products, lists, sh, now)
	if err != nil {
		return nil, err
	}
	for i := range holds {
		h := &holds[i]
		if h.res, err = s.deps.Stock.Prepare(stock.Reservation{CartID: c.ID, ItemID: h.entry.ID, ProductID: h.entry.ProductID,
			WarehouseID: h.warehouse, Quantity: h.quantity}); err != nil {
			return nil, err
		}
		h.entry.Reserves = append(h.entry.Reserves, h.res)
	}
	if err := s.recalc(ctx, c); err != nil {
		return nil, err
	}
	prec, err := money.Precision(c.Currency)
	if err != nil {
		return nil, fmt.Errorf("exchange: %w", err)
	}
	q := &exchangeQuote{c: c, holds: holds, skus: map[string]string{}}
	for _, it := range items {
		e := c.Items[slices.IndexFunc(c.Items, func(e *Entry) bool { return e.ProductID == it.ProductID })]
		q.items = append(q.items, order.ExchangeItem{ProductID: it.ProductID, Quantity: it.Quantity,
			WarehouseID: commerce.Key(it.WarehouseID), UnitPrice: money.Money{Amount: e.UnitPrice, Currency: c.Currency, Precision: prec}})
		q.skus[it.ProductID] = products[it.ProductID].SKU
	}
	return q, nil
}

// UpdateExchanges implements order.Exchanges: fn runs in one transaction
// of the carts' store, whose orders' transaction it gets.
func (s *Service) UpdateExchanges(ctx context.Context, fn func(tx order.Tx, ex order.ExchangeTx) error) error {
	return s.store.Update(ctx, func(tx Tx) error { return fn(tx.Orders(), exchangeTx{s: s, tx: tx}) })
}

// exchangeTx implements order.ExchangeTx in a transaction of the carts.
type exchangeTx struct {
	s  *Service
	tx Tx
}

// outOfStock turns the stock's not_enough_stock into the exchange's
// out_of_stock, with the same data (docs/api.md section 24).
func outOfStock(err error) error {
	var ce *commerce.Error
	if errors.As(err, &ce) && ce.Code == commerce.ENotEnoughStock {
		return &commerce.Error{Code: commerce.EOutOfStock, Data: ce.Data, Message: ce.Message, Err: err}
	}
	return err
}

// Open stores the quoted cart and reserves its units.
func (x exchangeTx) Open(ctx context.Context, q order.Quote) error {
	eq, ok := q.(*exchangeQuote)
	if !ok {
		return commerce.Errorf(commerce.EInternal, "exchange: a quote of another kind")
	}
	if err := x.tx.Insert(ctx, eq.c); err != nil {
		return err
	}
	for _, r := range eq.reservations() {
		if _, err := x.s.deps.Stock.Reserve(ctx, x.tx.Stock(), r); err != nil {
			return outOfStock(err)
		}
	}
	return nil
}

// lock returns the exchange cart id, which must still be open.
func (x exchangeTx) lock(ctx context.Context, id string) (*Cart, error) {
	c, err := x.tx.Lock(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.Status != StatusExchange {
		return nil, commerce.Errorf(commerce.EInternal, "exchange cart %s is %s", id, c.Status)
	}
	return c, nil
}

// Hold releases the cart's reservations and takes their units again,
// held for heldFor: units whose reservation lapsed are taken again if the
// stock still has them (out_of_stock otherwise, and the transaction rolls
// back), in one order (product, warehouse) as every reservation is.
func (x exchangeTx) Hold(ctx context.Context, id string) error {
	c, err := x.lock(ctx, id)
	if err != nil {
		return err
	}
	if err := x.tx.Stock().ReleaseCart(ctx, id); err != nil {
		return err
	}
	var rs []stock.Reservation
	for _, e := range c.Items {
		for _, r := range e.Reserves {
			rs = append(rs, stock.Reservation{CartID: id, ItemID: e.ID, ProductID: e.ProductID, WarehouseID: r.WarehouseID, Quantity: r.Quantity})
		}
		e.Reserves = []stock.Reservation{}
	}
	slices.SortStableFunc(rs, func(a, b stock.Reservation) int {
		return cmp.Or(cmp.Compare(a.ProductID, b.ProductID), cmp.Compare(a.WarehouseID, b.WarehouseID))
	})
	now := x.s.clock()
	for _, r := range rs {
		r, err := x.s.deps.Stock.Prepare(r)
		if err != nil {
			return err
		}
		r.ExpirationTime = now.Add(heldFor)
		if _, err := x.s.deps.Stock.Reserve(ctx, x.tx.Stock(), r); err != nil {
			return outOfStock(err)
		}
		e := c.Entry(r.ItemID)
		e.Reserves = append(e.Reserves, r)
	}
	c.UpdatedAt = now
	return x.tx.Save(ctx, c, nil)
}

// Close releases the cart's reservations; the cart becomes EXPIRED.
func (x exchangeTx) Close(ctx context.Context, id string) error {
	c, err := x.lock(ctx, id)
	if err != nil {
		return err
	}
	if err := x.tx.Stock().ReleaseCart(ctx, id); err != nil {
		return err
	}
	for _, e := range c.Items {
		e.Reserves = []stock.Reservation{}
	}
	c.Status, c.UpdatedAt = StatusExpired, x.s.clock()
	return x.tx.Save(ctx, c, nil)
}

// Place checks the cart out into the replacement order through the
// checkout's last step (place): PAID without a payment, else with the
// authorised difference.
func (x exchangeTx) Place(ctx context.Context, id string, p order.Placement) (*order.Order, error) {
	c, err := x.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	products := map[string]*catalog.Product{}
	for pid, sku := range p.SKUs {
		products[pid] = &catalog.Product{ID: pid, SKU: sku}
	}
	var email *string
	if p.Email != "" {
		email = &p.Email
	}
	o, err := x.s.place(ctx, x.tx, c, p.Payment, "", "", email, products, p.Now, func(o *order.Order) {
		o.ExchangeOf = p.ExchangeOf
		if p.Payment == nil {
			o.PaymentStatus = order.PaymentPaid
		}
	})
	if err != nil {
		return nil, outOfStock(err)
	}
	if o == nil {
		return nil, commerce.Errorf(commerce.EInternal, "exchange: no orders area")
	}
	c.UpdatedAt = p.Now
	if err := x.tx.Save(ctx, c, nil); err != nil {
		return nil, err
	}
	return o, nil
}

// productIDs returns the products of the items.
func productIDs(items []AddItem) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ProductID
	}
	return ids
}
