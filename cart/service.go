package cart

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
)

// Deps are the other areas the cart calls in-process.
type Deps struct {
	Catalog    Catalog
	Promotions Promotions
	Taxes      Taxes
	Shipping   Shipping
	Stock      Stock
}

// Service holds the cart's use cases: the cart.* operations and the
// expiry sweep.
//
// An operation that changes a cart computes the change outside any
// transaction (the other areas are read there), then commits it in one
// transaction that locks the cart's row, checks that the cart is still the
// version the change was computed from (else the change runs again),
// changes the stock, stores the cart and writes its event; see change.
// Any valid token may call the operations; a cart whose customerId is not
// ANON is visible only to a token with the same customerId claim or an
// admin token, and is cart_not_found to any other (CONTRACT.md section 3).
//
// Expiry: a cart expires TTL after its last successful operation other
// than cart.info (calculateCart included: it is a use of the cart). An
// expired cart gets status EXPIRED and its reservations are released,
// by the sweep (Sweep, run in the background by Run) or, whichever comes
// first, by the first operation that touches it: a change then answers
// cart_not_active (data "EXPIRED"), with the expiry itself committed.
type Service struct {
	store Store
	deps  Deps
	now   func() time.Time
	ttl   time.Duration
}

// NewService returns the cart service over store, calling the other areas
// through deps, with the clock now (time.Now when nil) and the cart
// lifetime ttl (DefaultTTL when 0 or less).
func NewService(store Store, deps Deps, now func() time.Time, ttl time.Duration) *Service {
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Service{store: store, deps: deps, now: now, ttl: ttl}
}

// TTL is how long a cart lives after its last change.
func (s *Service) TTL() time.Duration { return s.ttl }

// clock returns the time now in UTC, to the millisecond (as stored).
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// CreateInput is the argument of cart.create; every field is optional.
type CreateInput struct {
	// Currency is an ISO 4217 code (default USD); another value is
	// validation_error.
	Currency *string `json:"currency,omitempty"`
	// Country is an ISO 3166-1 alpha-2 code in upper case (default US);
	// another value is invalid_country (data: the value).
	Country *string `json:"country,omitempty"`
	// Channel is WEB, MOBILE or a physical store id (default WEB); it must
	// not be blank.
	Channel *string `json:"channel,omitempty"`
}

// Create is cart.create: a new ACTIVE cart of the caller (customerId from
// the token's customerId claim, else ANON), with no entries. It emits
// CREATE on CARTS with {new, data}.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Cart, error) {
	currency, country, channel := DefaultCurrency, DefaultCountry, DefaultChannel
	if in.Currency != nil {
		currency = *in.Currency
	}
	if in.Country != nil {
		country = *in.Country
	}
	if in.Channel != nil {
		channel = *in.Channel
	}
	var problems []string
	if !money.ValidCurrency(currency) {
		problems = append(problems, fmt.Sprintf("currency: %q is not an ISO 4217 currency code", currency))
	}
	if strings.TrimSpace(channel) == "" {
		problems = append(problems, "channel: must not be blank")
	}
	if problems != nil {
		return nil, commerce.Invalid(problems...)
	}
	if !geo.ValidCountry(country) {
		return nil, &commerce.Error{Code: commerce.EInvalidCountry, Data: country,
			Message: fmt.Sprintf("country: %q is not an ISO 3166-1 alpha-2 country code", country)}
	}
	customer := Anonymous
	if cl, _ := commerce.ClaimsFrom(ctx); cl.CustomerID != "" {
		customer = cl.CustomerID
	}
	var c *Cart
	err := s.store.Update(ctx, func(tx Tx) error {
		now := s.clock()
		c = &Cart{
			ID: commerce.NewID(), CustomerID: customer, Status: StatusActive,
			Currency: currency, Country: country, Channel: channel,
			ExpirationTime: now.Add(s.ttl), CreatedAt: now, UpdatedAt: now,
			Items: []*Entry{}, AlmostFulfilled: []engine.AlmostFulfilled{},
		}
		if err := tx.Insert(ctx, c); err != nil {
			return err
		}
		return emit(tx, event.Create, now, map[string]any{"new": Render(c, CalculateForm), "data": in})
	})
	if err != nil {
		return nil, fmt.Errorf("create cart: %w", err)
	}
	return c, nil
}

// InfoInput is the argument of cart.info: the cart's id as cartId (or as
// id, the name the other areas' info operations use).
type InfoInput struct {
	CartID string `json:"cartId"`
	ID     string `json:"id"`
}

// Info is cart.info: the cart as stored, whatever its status. It does not
// count as a use of the cart (the expiration time stays). A cart found
// past its expiration time is expired first (see Service).
// Errors: validation_error, cart_not_found (data: the id).
func (s *Service) Info(ctx context.Context, in InfoInput) (*Cart, error) {
	id := cmp.Or(in.CartID, in.ID)
	if id == "" {
		return nil, commerce.Invalid("cartId: required")
	}
	c, err := s.store.Cart(ctx, id)
	if err != nil {
		return nil, err
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	if !canUse(cl, c) {
		return nil, NotFound(id)
	}
	if c.Status != StatusActive || s.clock().Before(c.ExpirationTime) {
		return c, nil
	}
	return s.expireID(ctx, id)
}

// AddInput is the argument of cart.addToCart.
type AddInput struct {
	CartID string    `json:"cartId"`
	Items  []AddItem `json:"items"`
}

// AddItem is an item of cart.addToCart: Quantity units of a product, to
// be reserved in the warehouse WarehouseID (required, as SPEC.md says,
// even for a product with UNLIMITED stock, which reserves nothing).
type AddItem struct {
	ProductID   string `json:"productId"`
	Quantity    *int64 `json:"quantity"`
	WarehouseID string `json:"warehouseId"`
}

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
// reserved in their warehouse (not_enough_stock, data as stock gives it).
//
// The entry takes the product's current data on every add: its title,
// tax code, kind of price, and the price selected now, which then applies
// to all its units (the price a shopper sees is the one they pay, never a
// stale one). Promotions and taxes are recalculated; the reservations, the
// cart and the UPDATE event on CARTS ({operation, data, new}) commit in one
// transaction.
// Errors also: validation_error, cart_not_found (no data), cart_not_active.
func (s *Service) AddToCart(ctx context.Context, in AddInput) (*Cart, error) {
	var problems []string
	if in.CartID == "" {
		problems = append(problems, "cartId: required")
	}
	if len(in.Items) == 0 {
		problems = append(problems, "items: must list at least one item")
	}
	ids := make([]string, 0, len(in.Items))
	for i, it := range in.Items {
		at := fmt.Sprintf("items[%d].", i)
		if strings.TrimSpace(it.ProductID) == "" {
			problems = append(problems, at+"productId: required")
		} else if !slices.Contains(ids, it.ProductID) {
			ids = append(ids, it.ProductID)
		}
		if strings.TrimSpace(it.WarehouseID) == "" {
			problems = append(problems, at+"warehouseId: required")
		}
		switch {
		case it.Quantity == nil:
			problems = append(problems, at+"quantity: required")
		case *it.Quantity < 1:
			problems = append(problems, at+"quantity: must be a positive integer")
		}
	}
	if problems != nil {
		return nil, commerce.Invalid(problems...)
	}
	products, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("add to cart: products: %w", err)
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	var holds []hold
	return s.change(ctx, in.CartID, change{op: "cart.addToCart", data: in, noData: true,
		prepare: func(c *Cart, now time.Time) (err error) {
			holds, err = add(c, in.Items, products, shopperOf(cl, c), now)
			return err
		},
		commit: func(tx Tx, c *Cart, _ time.Time) error {
			// Reserve in one order (product, warehouse) whatever the
			// request's, so that two carts reserving the same products lock
			// the stock rows in the same order and never deadlock.
			for _, h := range holds {
				_, err := s.deps.Stock.Reserve(ctx, tx.Stock(), stock.Reservation{
					CartID: c.ID, ItemID: h.entry.ID, ProductID: h.entry.ProductID, WarehouseID: h.warehouse, Quantity: h.quantity,
				})
				if err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// hold is units to reserve for an entry in a warehouse.
type hold struct {
	entry     *Entry
	warehouse string
	quantity  int64
}

// add adds the items to the cart in memory and returns the units to
// reserve, sorted by product and warehouse.
func add(c *Cart, items []AddItem, products map[string]*catalog.Product, sh Shopper, now time.Time) ([]hold, error) {
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
		prices := p.Prices
		idx, ok := SelectPrice(prices, sh, now)
		if !ok {
			return nil, &commerce.Error{Code: commerce.ENoSuitablePrice, Data: it.ProductID,
				Message: fmt.Sprintf("product %s has no price in %s for this cart", it.ProductID, sh.Currency)}
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
		if e == nil {
			e = &Entry{ID: commerce.NewID(), ProductID: it.ProductID}
			c.Items = append(c.Items, e)
			byProduct[it.ProductID] = e
		}
		e.Quantity = int(total)
		e.Title = Title(p)
		e.UnitPrice, e.PriceID = prices[idx].Amount, prices[idx].ID
		e.TaxCode = cmp.Or(p.TaxCode, catalog.DefaultTaxCode)
		e.IsNetPrice = p.IsNetPrice
		e.StockStatus = p.StockStatus
		if p.StockStatus == catalog.StockNormal {
			j := slices.IndexFunc(holds, func(h hold) bool { return h.entry == e && h.warehouse == it.WarehouseID })
			if j < 0 {
				holds = append(holds, hold{entry: e, warehouse: it.WarehouseID})
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
func shopperOf(cl commerce.Claims, c *Cart) Shopper {
	sh := Shopper{Currency: c.Currency, Channel: c.Channel, Country: c.Country, Tags: []string{Anonymous}}
	if cl.Country != "" {
		sh.Country = cl.Country
	}
	if cl.CustomerType != "" {
		sh.Tags = []string{cl.CustomerType}
	}
	return sh
}

// RemoveInput is the argument of cart.removeFromCart.
type RemoveInput struct {
	CartID   string `json:"cartId"`
	ItemID   string `json:"itemId"`
	Quantity *int64 `json:"quantity"`
}

// RemoveFromCart is cart.removeFromCart: it removes quantity units of the
// entry itemId, and the entry itself when quantity is at least what it
// holds, releasing their reservations (expired ones first, then the
// newest). Promotions and taxes are recalculated and UPDATE is emitted.
// Errors: validation_error, cart_not_found (no data), cart_not_active,
// item_not_found (no data).
func (s *Service) RemoveFromCart(ctx context.Context, in RemoveInput) (*Cart, error) {
	var problems []string
	if in.CartID == "" {
		problems = append(problems, "cartId: required")
	}
	if in.ItemID == "" {
		problems = append(problems, "itemId: required")
	}
	switch {
	case in.Quantity == nil:
		problems = append(problems, "quantity: required")
	case *in.Quantity < 1:
		problems = append(problems, "quantity: must be a positive integer")
	}
	if problems != nil {
		return nil, commerce.Invalid(problems...)
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
		commit: func(tx Tx, c *Cart, _ time.Time) error {
			if all {
				return tx.Stock().ReleaseItem(ctx, c.ID, in.ItemID)
			}
			return s.deps.Stock.Release(ctx, tx.Stock(), c.ID, in.ItemID, *in.Quantity)
		},
	})
}

// CartInput is an argument naming a cart (cart.calculateCart).
type CartInput struct {
	CartID string `json:"cartId"`
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
	if in.CartID == "" {
		return nil, commerce.Invalid("cartId: required")
	}
	return s.change(ctx, in.CartID, change{op: "cart.calculateCart", data: in, noData: true, frozen: true, emitIfChanged: true})
}

// ShippingAddressInput is the argument of cart.setShippingAddress.
type ShippingAddressInput struct {
	CartID          string          `json:"cartId"`
	ShippingAddress json.RawMessage `json:"shippingAddress,omitempty"`
}

// SetShippingAddress is cart.setShippingAddress: it validates and stores
// the address (see Address.Validate: validation_error, invalid_country,
// invalid_state, checked before the cart is looked up) and returns the
// shipping methods available for it in the cart's currency. When exactly
// one is available it becomes the cart's method; otherwise the cart's
// method is kept, with the rate of the new address, if still available,
// and cleared if not. No method available is not an error.
// Errors also: cart_not_found (data: the id), cart_not_active.
func (s *Service) SetShippingAddress(ctx context.Context, in ShippingAddressInput) (*Cart, []shipping.Available, error) {
	var problems []string
	if in.CartID == "" {
		problems = append(problems, "cartId: required")
	}
	addr, str, err := parseAddressArg("shippingAddress", in.ShippingAddress)
	switch {
	case err != nil:
		if problems == nil || commerce.ErrorCode(err) != commerce.EValidation {
			return nil, nil, err
		}
		problems = append(problems, commerce.ProblemsOf(err)...)
	case str != "":
		problems = append(problems, "shippingAddress: must be an address object")
	case addr == nil:
		problems = append(problems, "shippingAddress: required")
	}
	if problems != nil {
		return nil, nil, commerce.Invalid(problems...)
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

// BillingAddressInput is the argument of cart.setBillingAddress.
type BillingAddressInput struct {
	CartID string `json:"cartId"`
	// BillingAddress is an address object, or the string SAMEASSHIPPING;
	// absent (or null) means SAMEASSHIPPING.
	BillingAddress json.RawMessage `json:"billingAddress,omitempty"`
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
	addr, same, err := s.billingArg(in.CartID, in.BillingAddress)
	if err != nil {
		return nil, err
	}
	return s.change(ctx, in.CartID, change{op: "cart.setBillingAddress", data: in,
		prepare: func(c *Cart, _ time.Time) error { return billTo(c, addr, same, commerce.EShippingAddressNotSet) },
	})
}

// billingArg reads a billingAddress argument: an address, or same as
// shipping (absent, null or SAMEASSHIPPING).
func (s *Service) billingArg(cartID string, raw json.RawMessage) (*Address, bool, error) {
	var problems []string
	if cartID == "" {
		problems = append(problems, "cartId: required")
	}
	addr, str, err := parseAddressArg("billingAddress", raw)
	switch {
	case err != nil:
		if problems == nil || commerce.ErrorCode(err) != commerce.EValidation {
			return nil, false, err
		}
		problems = append(problems, commerce.ProblemsOf(err)...)
	case str != "" && str != SameAsShipping:
		problems = append(problems, fmt.Sprintf("billingAddress: must be an address object or the string %q", SameAsShipping))
	}
	if problems != nil {
		return nil, false, commerce.Invalid(problems...)
	}
	return addr, addr == nil, nil
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

// ShippingMethodInput is the argument of cart.setShippingMethod.
type ShippingMethodInput struct {
	CartID string `json:"cartId"`
	// MethodID is the method's id, or an object with the method's id
	// (such as a method of setShippingAddress's list: id, title, active,
	// taxCode and rates are accepted, only id is used).
	MethodID json.RawMessage `json:"methodId,omitempty"`
}

// SetShippingMethod is cart.setShippingMethod: it makes the method the
// cart's, with its rate for the cart's address and currency.
// Errors: validation_error, cart_not_found (data: the id),
// cart_not_active, shipping_address_notset (no data),
// invalid_shipping_method (unknown, inactive, or not available for the
// address and currency; no data).
func (s *Service) SetShippingMethod(ctx context.Context, in ShippingMethodInput) (*Cart, error) {
	var problems []string
	if in.CartID == "" {
		problems = append(problems, "cartId: required")
	}
	id, err := methodIDArg("methodId", in.MethodID)
	if err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	} else if id == "" {
		problems = append(problems, "methodId: required")
	}
	if problems != nil {
		return nil, commerce.Invalid(problems...)
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

// methodIDArg reads a shipping method argument: an id string, or an
// object with the id. It returns "" when the argument is absent (or null).
func methodIDArg(field string, raw json.RawMessage) (string, error) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || string(b) == "null" {
		return "", nil
	}
	var id string
	if b[0] == '"' {
		if err := json.Unmarshal(b, &id); err != nil {
			return "", commerce.Invalid(field + ": not valid JSON")
		}
		if strings.TrimSpace(id) == "" {
			return "", commerce.Invalid(field + ": must not be blank")
		}
		return id, nil
	}
	var obj map[string]json.RawMessage
	if b[0] != '{' || json.Unmarshal(b, &obj) != nil {
		return "", commerce.Invalid(field + ": must be a shipping method id or an object with the id")
	}
	var problems []string
	for k := range obj {
		switch k {
		case "id", "title", "active", "taxCode", "rates":
		default:
			problems = append(problems, field+"."+k+": unknown field")
		}
	}
	slices.Sort(problems)
	if json.Unmarshal(obj["id"], &id) != nil || strings.TrimSpace(id) == "" {
		problems = append(problems, field+".id: required, a shipping method id")
	}
	if problems != nil {
		return "", commerce.Invalid(problems...)
	}
	return id, nil
}

// CheckoutInput is the argument of cart.checkout. ShippingAddress,
// ShippingMethod and BillingAddress are optional and applied first, as
// the operations that set them would; PaymentID names the payment
// provider and PaymentData (an object) is passed to it.
type CheckoutInput struct {
	CartID          string          `json:"cartId"`
	ShippingAddress json.RawMessage `json:"shippingAddress,omitempty"`
	ShippingMethod  json.RawMessage `json:"shippingMethod,omitempty"`
	BillingAddress  json.RawMessage `json:"billingAddress,omitempty"`
	PaymentID       string          `json:"paymentId"`
	PaymentData     json.RawMessage `json:"paymentData,omitempty"`
}

// Checkout is cart.checkout (CONTRACT.md section 10). It applies the
// optional shippingAddress (available methods as setShippingAddress),
// shippingMethod and billingAddress, then needs, in this order: entries
// (validation_error), a shipping address (shipping_address_notset), a
// shipping method still available for the address and currency, at its
// current rate (invalid_shipping_method). Billing defaults to same as
// shipping. It recalculates the cart, has the payment provider authorise
// the total (beforeTax + tax, shipping included), turns the reservations
// into a decrement of the stock (not_enough_stock when an expired one can
// no longer be taken), and marks the cart CHECKED_OUT, emitting CHECKOUT
// on CARTS with {operation, data (the arguments without paymentData), new,
// payment (the payment record without paymentData)}. The payment record, the stock decrement, the status and the
// event commit in one transaction (the manual provider's authorisation is
// local; see package payment for a remote provider). The entries' reserves
// then show the reservations committed.
// Errors also: cart_not_found (data: the id), cart_not_active (a second
// checkout among others), invalid_country, invalid_state.
func (s *Service) Checkout(ctx context.Context, in CheckoutInput) (*Cart, error) {
	var problems []string
	add := func(err error) error {
		if commerce.ErrorCode(err) != commerce.EValidation {
			return err
		}
		problems = append(problems, commerce.ProblemsOf(err)...)
		return nil
	}
	if in.CartID == "" {
		problems = append(problems, "cartId: required")
	}
	switch _, known := payment.Lookup(in.PaymentID); {
	case in.PaymentID == "":
		problems = append(problems, "paymentId: required")
	case !known:
		problems = append(problems, commerce.ProblemsOf(payment.UnknownProvider(in.PaymentID))...)
	}
	switch b := bytes.TrimSpace(in.PaymentData); {
	case len(b) == 0 || string(b) == "null":
		problems = append(problems, "paymentData: required")
	case b[0] != '{' || !json.Valid(b):
		problems = append(problems, "paymentData: must be an object")
	}
	ship, str, err := parseAddressArg("shippingAddress", in.ShippingAddress)
	if err != nil {
		if err := add(err); err != nil {
			return nil, err
		}
	} else if str != "" {
		problems = append(problems, "shippingAddress: must be an address object")
	}
	methodID, err := methodIDArg("shippingMethod", in.ShippingMethod)
	if err != nil {
		add(err)
	}
	var bill *Address
	sameBill := false
	if b := bytes.TrimSpace(in.BillingAddress); len(b) > 0 && string(b) != "null" {
		addr, str, err := parseAddressArg("billingAddress", in.BillingAddress)
		switch {
		case err != nil:
			if err := add(err); err != nil {
				return nil, err
			}
		case addr != nil:
			bill = addr
		case str == SameAsShipping:
			sameBill = true
		default:
			problems = append(problems, fmt.Sprintf("billingAddress: must be an address object or the string %q", SameAsShipping))
		}
	}
	if problems != nil {
		return nil, commerce.Invalid(problems...)
	}
	data := in
	data.PaymentData = nil
	return s.change(ctx, in.CartID, change{op: "cart.checkout", data: data, event: event.Checkout,
		prepare: func(c *Cart, _ time.Time) error {
			if ship != nil {
				if _, err := s.shipTo(ctx, c, ship); err != nil {
					return err
				}
			}
			if len(c.Items) == 0 {
				return commerce.Invalid("cartId: the cart has no entries to check out")
			}
			if err := s.checkSalable(ctx, c); err != nil {
				return err
			}
			if c.ShippingAddress == nil {
				return &commerce.Error{Code: commerce.EShippingAddressNotset, Message: "the cart has no shipping address"}
			}
			id := methodID
			switch {
			case id != "":
			case c.ShippingMethod != nil:
				id = c.ShippingMethod.ID // checked again: it may have changed or gone
			default:
				return &commerce.Error{Code: commerce.EInvalidShippingMethod, Message: "the cart has no shipping method"}
			}
			if err := s.shipWith(ctx, c, id); err != nil {
				return err
			}
			switch {
			case bill != nil:
				c.BillingAddress, c.BillingSameAsShipping = bill, false
			case sameBill || c.Billing() == nil:
				return billTo(c, nil, true, commerce.EShippingAddressNotset)
			}
			return nil
		},
		commit: func(tx Tx, c *Cart, _ time.Time) error {
			prec, _ := money.Precision(c.Currency)
			rec, err := payment.Authorize(ctx, in.PaymentID, payment.Request{
				CartID: c.ID, CustomerID: c.CustomerID, Amount: c.BeforeTax + c.Tax,
				Currency: c.Currency, Precision: prec, Data: in.PaymentData,
			})
			if err != nil {
				return err
			}
			committed, err := tx.Stock().CommitCart(ctx, c.ID)
			if err != nil {
				return err
			}
			setReserves(c, committed)
			c.Payment = &rec
			c.Status = StatusCheckedOut
			return nil
		},
	})
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

// checkSalable fails checkout when an entry's product was removed, made
// DRAFT or DISCONTINUED since it was added.
func (s *Service) checkSalable(ctx context.Context, c *Cart) error {
	ids := make([]string, len(c.Items))
	for i, e := range c.Items {
		ids[i] = e.ProductID
	}
	products, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return fmt.Errorf("checkout: %w", err)
	}
	for _, id := range ids {
		if _, err := salable(products, id); err != nil {
			return err
		}
	}
	return nil
}

// change describes a change of a cart for Service.change.
type change struct {
	op   string // the operation, e.g. "cart.addToCart"
	data any    // the request's arguments, for the event
	// noData: cart_not_found without data (addToCart, removeFromCart,
	// calculateCart).
	noData bool
	// event is the type of the event emitted (event.Update when empty).
	event string
	// frozen: a cart that is not ACTIVE is returned as it stands rather
	// than refused (calculateCart).
	frozen bool
	// emitIfChanged: emit only when the computed state changed.
	emitIfChanged bool
	// prepare changes the cart in memory; it may call the other areas.
	// It runs outside any transaction and may run more than once.
	prepare func(c *Cart, now time.Time) error
	// commit makes the change's effects on the stock through tx, in the
	// transaction that stores the cart; it calls nothing else that reads
	// the database (see Service.change).
	commit func(tx Tx, c *Cart, now time.Time) error
}

// maxAttempts bounds the rounds of a change that keeps finding its cart
// changed by others (each lost round means another change committed).
const maxAttempts = 64

// errStale tells change that the cart moved since it was read.
var errStale = errors.New("cart changed since read")

// change runs a change of the cart id in two steps.
//
// First, outside any transaction, it reads the cart, checks the caller
// may use it and that it is ACTIVE, and lets o.prepare change it in memory;
// for a cart still ACTIVE the promotions and taxes are then recalculated.
// Every call to another area (catalog, promotions, taxes, shipping) happens
// in this step, on connections of their own.
//
// Then one transaction locks the cart's row and, if its version is still
// the one read, runs o.commit (stock reservations, on the transaction's
// connection), reads the reservations back, moves the expiration to now +
// TTL and stores the cart with its event. When the version moved, another
// change committed in between: the whole change runs again on the new
// cart (at most maxAttempts times; then concurrent_modification).
//
// Why not compute under the lock: the other areas read through their own
// connections. A transaction holding a connection (and the cart's row)
// while waiting for a second one deadlocks once every connection of the
// pool is held by such transactions, which a burst of parallel requests
// on one cart is enough for. Here a transaction needs exactly one
// connection, and no lost update is possible: a cart is stored only over
// the version its change was computed from.
func (s *Service) change(ctx context.Context, id string, o change) (*Cart, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	for attempt := 1; ; attempt++ {
		now := s.clock()
		c, err := s.store.Cart(ctx, id)
		if err == nil && !canUse(cl, c) {
			err = NotFound(id)
		}
		if err != nil {
			if o.noData && commerce.ErrorCode(err) == commerce.ECartNotFound {
				return nil, &commerce.Error{Code: commerce.ECartNotFound, Message: "no cart with id " + id}
			}
			return nil, err
		}
		if c.Status == StatusActive && !now.Before(c.ExpirationTime) {
			if c, err = s.expireID(ctx, id); err != nil {
				return nil, err
			}
		}
		if c.Status != StatusActive {
			if o.frozen {
				return c, nil
			}
			return nil, notActive(c.Status)
		}
		var before []byte
		if o.emitIfChanged {
			before = computed(c)
		}
		if o.prepare != nil {
			if err := o.prepare(c, now); err != nil {
				return nil, err
			}
		}
		if err := s.recalc(ctx, c); err != nil {
			return nil, err
		}
		version := c.Version
		err = s.store.Update(ctx, func(tx Tx) error {
			c.Version, c.Status, c.Payment = version, StatusActive, nil // fn may run again
			locked, err := tx.LockVersion(ctx, id)
			if err != nil {
				return err
			}
			if locked != version {
				return errStale
			}
			if o.commit != nil {
				if err := o.commit(tx, c, now); err != nil {
					return err
				}
			}
			if c.Status == StatusActive {
				rs, err := tx.Stock().Reservations(ctx, c.ID)
				if err != nil {
					return err
				}
				setReserves(c, rs)
			}
			c.ExpirationTime, c.UpdatedAt = now.Add(s.ttl), now
			if err := tx.Save(ctx, c); err != nil {
				return err
			}
			if o.emitIfChanged && bytes.Equal(before, computed(c)) {
				return nil
			}
			payload := map[string]any{"operation": o.op, "data": o.data, "new": Render(c, CalculateForm)}
			if c.Payment != nil {
				// paymentData may hold what a provider needs (card tokens):
				// it stays in the stored cart, never in the event log.
				rec := *c.Payment
				rec.Data = nil
				payload["payment"] = rec
			}
			return emit(tx, cmp.Or(o.event, event.Update), now, payload)
		})
		if !errors.Is(err, errStale) {
			if err != nil {
				return nil, err
			}
			return c, nil
		}
		if attempt == maxAttempts {
			return nil, commerce.Errorf(commerce.EConcurrentMod, "cart %s keeps changing", id)
		}
		// A short random pause spreads the retries of parallel changes.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.IntN(1000*min(attempt, 10))) * time.Microsecond):
		}
	}
}

// expireID expires the cart id if it is ACTIVE and due (see Service.expire)
// and returns it as stored.
func (s *Service) expireID(ctx context.Context, id string) (*Cart, error) {
	var c *Cart
	err := s.store.Update(ctx, func(tx Tx) error {
		now := s.clock()
		var err error
		if c, err = tx.Lock(ctx, id); err != nil {
			return err
		}
		if c.Status == StatusActive && !now.Before(c.ExpirationTime) {
			return s.expire(ctx, tx, c, now)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire cart %s: %w", id, err)
	}
	return c, nil
}

// canUse reports whether the caller may use the cart: an anonymous cart
// anyone holding its id, another only its customer or an admin.
func canUse(cl commerce.Claims, c *Cart) bool {
	return c.CustomerID == Anonymous || cl.IsAdmin() || (cl.CustomerID != "" && cl.CustomerID == c.CustomerID)
}

// expire marks the locked cart EXPIRED, releases its reservations and
// emits UPDATE on CARTS with {operation: "cart.expire", new}.
func (s *Service) expire(ctx context.Context, tx Tx, c *Cart, now time.Time) error {
	if err := tx.Stock().ReleaseCart(ctx, c.ID); err != nil {
		return fmt.Errorf("expire cart %s: %w", c.ID, err)
	}
	c.Status = StatusExpired
	c.UpdatedAt = now
	for _, e := range c.Items {
		e.Reserves = []stock.Reservation{}
	}
	if err := tx.Save(ctx, c); err != nil {
		return fmt.Errorf("expire cart %s: %w", c.ID, err)
	}
	return emit(tx, event.Update, now, map[string]any{"operation": "cart.expire", "new": Render(c, CalculateForm)})
}

// SweepBatch is the most carts one sweep transaction expires.
const SweepBatch = 100

// Sweep expires every ACTIVE cart whose expiration time has passed, in
// transactions of up to SweepBatch carts, and returns how many it expired.
// Several processes may sweep at once: each cart is expired once.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := s.store.Update(ctx, func(tx Tx) error {
			n = 0
			now := s.clock()
			carts, err := tx.Expired(ctx, now, SweepBatch)
			if err != nil {
				return err
			}
			for _, c := range carts {
				if err := s.expire(ctx, tx, c, now); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("cart sweep: %w", err)
		}
		total += n
		if n < SweepBatch {
			return total, nil
		}
	}
}

// DefaultSweep is how often Run sweeps when given no interval.
const DefaultSweep = time.Minute

// Run sweeps expired carts at once and then every interval (DefaultSweep
// when 0 or less) until ctx ends, logging failures (the next round tries
// again).
func (s *Service) Run(ctx context.Context, every time.Duration, logger *slog.Logger) {
	if every <= 0 {
		every = DefaultSweep
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			logger.Error("cart sweep failed", "err", err)
		} else if n > 0 {
			logger.Info("carts expired", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

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
	res := engine.Result{AlmostFulfilled: []engine.AlmostFulfilled{}}
	if len(c.Items) > 0 {
		pe := make([]engine.Entry, len(c.Items))
		for i, e := range c.Items {
			pe[i] = engine.Entry{ID: e.ID, ProductID: e.ProductID, Quantity: e.Quantity, UnitPrice: e.UnitPrice}
		}
		if res, err = s.deps.Promotions.Evaluate(ctx, pe, prec); err != nil {
			return fmt.Errorf("promotions: %w", err)
		}
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
		te = append(te, tax.Entry{ID: "shipping", Quantity: 1, Amount: m.Amount, TaxCode: m.TaxCode})
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

// setReserves gives each entry its reservations, in the order made.
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
		D []Discount
		T EntryTaxes
	}
	st := struct {
		E []entry
		A []engine.AlmostFulfilled
		S *EntryTaxes
		B int64
		T int64
	}{A: c.AlmostFulfilled, S: c.ShippingTaxes, B: c.BeforeTax, T: c.Tax}
	for _, e := range c.Items {
		st.E = append(st.E, entry{e.Discounts, e.Taxes})
	}
	b, _ := json.Marshal(st)
	return b
}

// emit queues an event on CARTS.
func emit(tx Tx, typ string, now time.Time, payload any) error {
	e, err := event.New(event.Carts, typ, now, payload)
	if err != nil {
		return err
	}
	tx.Emit(e)
	return nil
}
