package cart

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/stock"
)

// Draft orders (docs/api.md section 24): staff taking an order by phone
// build a cart of status DRAFT for a customer. It is priced, taxed and
// reserved as any cart, changed with the cart operations by admin tokens
// only (canUse: its customer never sees it), never expires, and becomes an
// order (source DRAFT) by draft.complete, which is cart.checkout.

// DraftInput is the argument of draft.create: the customer by id (an
// account) or by email (the account with it, else an anonymous order
// with that email), the cart's currency, country and channel (as
// cart.create), and optionally what the cart operations would set: items
// (as addToCart's), addresses, a shipping method, coupons.
type DraftInput struct {
	// CustomerID is the customer account the order is for.
	CustomerID *string `json:"customerId,omitempty"`
	// Email names the customer by email when no customerId is given (an order without an account when none has it).
	Email *string `json:"email,omitempty"`
	// Currency is the cart's ISO 4217 currency (default USD).
	Currency *string `json:"currency,omitempty"`
	// Country is the cart's ISO 3166 country (default US).
	Country *string `json:"country,omitempty"`
	// Channel is the sales channel (default WEB).
	Channel *string `json:"channel,omitempty"`
	// Items are products added at once, as addToCart's.
	Items []AddItem `json:"items,omitempty"`
	// ShippingAddress is set as by setShippingAddress.
	ShippingAddress *AddressArg `json:"shippingAddress,omitempty"`
	// BillingAddress is set as by setBillingAddress (an address or SAMEASSHIPPING).
	BillingAddress *BillingAddressArg `json:"billingAddress,omitempty"`
	// ShippingMethodID is set as by setShippingMethod.
	ShippingMethodID *MethodRef `json:"shippingMethodId,omitempty"`
	// Coupons are codes applied as by applyCoupon.
	Coupons []string `json:"coupons,omitempty"`
}

// CompleteInput is the argument of draft.complete.
type CompleteInput struct {
	// ID is the draft's id (a DRAFT cart).
	ID string `json:"id" openapi:"required"`
	// PaymentID is the payment provider of the order (manual, stripe).
	PaymentID string `json:"paymentId" openapi:"required"`
	// PaymentData is the provider's data, as cart.checkout's.
	PaymentData json.RawMessage `json:"paymentData,omitempty" openapi:"required"`
}

// CreateDraft is draft.create (admin): a new DRAFT cart, built whole in
// memory (items priced for the customer's type and groups, addresses, shipping
// method, coupons, promotions and taxes) and stored with its
// reservations in one transaction that emits CREATE on CARTS: a failing
// item, address or code leaves nothing behind.
// Errors: validation_error, invalid_country, customer_not_found (data:
// the id), and those of addToCart, setShippingAddress,
// setShippingMethod and applyCoupon.
func (s *Service) CreateDraft(ctx context.Context, in DraftInput) (*Cart, error) {
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
	var p commerce.Problems
	if !money.ValidCurrency(currency) {
		p.Add("currency", "%q is not an ISO 4217 currency code", currency)
	}
	if strings.TrimSpace(channel) == "" {
		p.Add("channel", "must not be blank")
	}
	if in.Email != nil && !strings.Contains(*in.Email, "@") {
		p.Add("email", "must be an email address")
	}
	ids := []string{}
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
		if it.Quantity == nil || *it.Quantity < 1 {
			p.Add(at+"quantity", "must be a positive integer")
		}
	}
	if len(in.Coupons) > promotion.MaxCoupons {
		p.Add("coupons", "at most %d codes", promotion.MaxCoupons)
	}
	ship := addressArg(&p, "shippingAddress", in.ShippingAddress)
	bill, sameBill := billingArg(&p, "billingAddress", in.BillingAddress)
	methodID := methodArg(&p, "shippingMethodId", in.ShippingMethodID)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if !geo.ValidCountry(country) {
		return nil, &commerce.Error{Code: commerce.EInvalidCountry, Data: country,
			Message: fmt.Sprintf("country: %q is not an ISO 3166-1 alpha-2 country code", country)}
	}
	for _, a := range []struct {
		path string
		addr *Address
	}{{"shippingAddress", ship}, {"billingAddress", bill}} {
		if a.addr != nil {
			if err := a.addr.CheckPlace(a.path); err != nil {
				return nil, err
			}
		}
	}
	customer, email, typ, groups, err := s.draftCustomer(ctx, in)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	c := &Cart{ID: commerce.NewID(), CustomerID: customer, Status: StatusDraft, Currency: currency, Country: country,
		Channel: channel, ExpirationTime: now.Add(s.ttl), CreatedAt: now, UpdatedAt: now, Email: email,
		Items: []*Entry{}, AlmostFulfilled: []engine.AlmostFulfilled{}, Groups: groups}
	products, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("draft: products: %w", err)
	}
	sh := Shopper{Currency: currency, Channel: channel, Country: country, Tags: []string{Anonymous}, Groups: groups}
	if typ != "" {
		sh.Tags = []string{typ}
	}
	var rs []stock.Reservation
	if len(in.Items) > 0 {
		lists, err := s.listPrices(ctx, ids, sh.Groups)
		if err != nil {
			return nil, err
		}
		holds, err := add(c, in.Items, products, lists, sh, now)
		if err != nil {
			return nil, err
		}
		for _, h := range holds {
			r, err := s.deps.Stock.Prepare(stock.Reservation{CartID: c.ID, ItemID: h.entry.ID, ProductID: h.entry.ProductID,
				WarehouseID: h.warehouse, Quantity: h.quantity})
			if err != nil {
				return nil, err
			}
			h.entry.Reserves = append(h.entry.Reserves, r)
			rs = append(rs, r)
		}
	}
	if ship != nil {
		if _, err := s.shipTo(ctx, c, ship); err != nil {
			return nil, err
		}
	}
	if bill != nil || sameBill {
		if err := billTo(c, bill, sameBill, commerce.EShippingAddressNotSet); err != nil {
			return nil, err
		}
	}
	if methodID != "" {
		if err := s.shipWith(ctx, c, methodID); err != nil {
			return nil, err
		}
	}
	for _, code := range in.Coupons {
		if c.coupon(promotion.CodeKey(code)) >= 0 {
			continue
		}
		created, err := s.deps.Promotions.Coupon(ctx, code, customerOf(c))
		if err != nil {
			return nil, err
		}
		c.Coupons = append(c.Coupons, created)
	}
	if err := s.recalc(ctx, c); err != nil {
		return nil, err
	}
	data := in
	err = s.store.Update(ctx, func(tx Tx) error {
		if err := tx.Insert(ctx, c); err != nil {
			return err
		}
		for _, r := range rs {
			if _, err := s.deps.Stock.Reserve(ctx, tx.Stock(), r); err != nil {
				return err
			}
		}
		return event.Emit(tx, event.Carts, event.Create, now, map[string]any{"new": Render(c, CalculateForm), "data": data})
	})
	if err != nil {
		return nil, fmt.Errorf("create draft: %w", err)
	}
	return c, nil
}

// draftCustomer resolves draft.create's customer: customerId names an
// account (customer_not_found otherwise), whose email the order takes
// unless email is given; email alone names the account with it, or an
// anonymous order with that email. It returns the customer's id (ANON
// without an account), the draft's email and the account's type and
// groups (the draft is priced as the customer's own cart, and keeps the
// groups as Cart.Groups for the admin's later changes).
func (s *Service) draftCustomer(ctx context.Context, in DraftInput) (id, email, typ string, groups []string, err error) {
	id = Anonymous
	if in.Email != nil {
		email = commerce.EmailKey(*in.Email)
	}
	if s.deps.Customers == nil {
		if in.CustomerID != nil {
			id = *in.CustomerID
		}
		return id, email, "", nil, nil
	}
	switch {
	case in.CustomerID != nil:
		e, err := s.deps.Customers.Email(ctx, *in.CustomerID)
		if err != nil {
			return "", "", "", nil, err
		}
		if e == "" {
			return "", "", "", nil, &commerce.Error{Code: commerce.ECustomerNotFound, Data: *in.CustomerID, Message: "no customer " + *in.CustomerID}
		}
		id = *in.CustomerID
	case email != "":
		found, err := s.deps.Customers.IDByEmail(ctx, email)
		if err != nil {
			return "", "", "", nil, err
		}
		if found != "" {
			id = found
		}
	}
	if id != Anonymous {
		if typ, groups, err = s.deps.Customers.Pricing(ctx, id); err != nil {
			return "", "", "", nil, err
		}
	}
	return id, email, typ, groups, nil
}

// CompleteDraft is draft.complete (admin): the draft is checked out as
// cart.checkout checks out a cart (the same steps and errors), and its
// order takes the draft's customer and source DRAFT. A cart checked out
// already is cart_not_active; another cart that is not a draft is
// cart_not_found (data: the id).
func (s *Service) CompleteDraft(ctx context.Context, in CompleteInput) (*Cart, *order.Order, error) {
	if in.ID == "" {
		return nil, nil, commerce.Invalid("id: required")
	}
	c, err := s.store.Cart(ctx, in.ID)
	if err != nil {
		return nil, nil, err
	}
	switch c.Status {
	case StatusDraft:
	case StatusCheckedOut: // completed already (or another cart's checkout)
		return nil, nil, notActive(c.Status)
	default:
		return nil, nil, NotFound(in.ID)
	}
	return s.CheckoutOrder(ctx, CheckoutInput{CartID: in.ID, PaymentID: in.PaymentID, PaymentData: in.PaymentData})
}
