package cart

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/commercekit/commerce/order"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/promotion"
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
	Payments   Payments
	// Orders places the order of a checkout (the orders area); without
	// it a checkout places none.
	Orders Orders
	// Customers tells checkout whether the cart's customer has an account,
	// whose email the order takes when the checkout names none, and whose
	// row the checkout then holds (cart.Tx.LockCustomer) against a
	// concurrent customer.remove (the customers area); optional.
	Customers Customers
	// PriceLists gives the prices of the active price lists (the price
	// lists area, docs/api.md section 26); optional: none without it.
	PriceLists catalog.PriceLists
}

// Customers gives checkout what it needs of customer accounts.
type Customers interface {
	// Email returns the email of the customer's account, "" when there
	// is no such account.
	Email(ctx context.Context, customerID string) (string, error)
	// Pricing returns what the prices of the customer's account are
	// selected for: its customerType and its groups (none, and "", when
	// there is no such account). A draft's and an exchange's prices are
	// the customer's, as their own cart's would be (docs/api.md section
	// 26).
	Pricing(ctx context.Context, customerID string) (customerType string, groups []string, err error)
	// IDByEmail returns the id of the account with the email, "" when
	// there is none (draft.create).
	IDByEmail(ctx context.Context, email string) (string, error)
}

// Orders places the orders of checkouts (the orders area).
type Orders interface {
	// BeginCheckout records a checkout attempt before its authorisation
	// by the provider id: it allocates the order's number and returns r
	// with it (OrderNumber).
	BeginCheckout(ctx context.Context, provider string, r payment.AuthorizeRequest) (payment.AuthorizeRequest, error)
	// EndCheckout forgets the attempt key once its authorisation is voided.
	EndCheckout(ctx context.Context, key string) error
	// Place stores the order in tx (the checkout's transaction) and emits
	// its CREATE event.
	Place(ctx context.Context, tx order.Tx, o *order.Order, now time.Time) error
}

// Catalog gives the cart the products it sells (the catalog area).
type Catalog interface {
	// Products returns, in one batch, the products with the given ids,
	// whatever their status; unknown ids are absent from the map.
	Products(ctx context.Context, ids []string) (map[string]*catalog.Product, error)
}

// Promotions evaluates the active promotions on the cart and checks the
// coupons it is given (the promotion area).
type Promotions interface {
	// EvaluateCart applies the active promotions to the cart's entries
	// (unit prices in minor units), coupons and shipping rate.
	EvaluateCart(ctx context.Context, in promotion.CartEval) (promotion.CartOutcome, error)
	// Coupon returns the code as created of an active coupon the
	// customer ("" for ANON) may use.
	// Errors: coupon_not_found, coupon_usage_limit_reached.
	Coupon(ctx context.Context, code, customerID string) (string, error)
}

// Taxes computes the taxes of the cart's entries and shipping line (the
// tax area).
type Taxes interface {
	// Compute returns the taxes of each entry, in entry order.
	Compute(ctx context.Context, entries []tax.Entry, precision int) ([]tax.Result, error)
}

// Shipping gives the shipping methods available for an address (the
// shipping area).
type Shipping interface {
	// Available returns the methods available for shipping to (country,
	// state) in currency, never nil.
	Available(ctx context.Context, country, state, currency string) ([]shipping.Available, error)
	// Rate returns a method as selected for the address and currency.
	// Errors: invalid_shipping_method (unknown, inactive or not
	// available there).
	Rate(ctx context.Context, methodID, country, state, currency string) (shipping.Selected, error)
}

// Stock reserves and releases units for cart entries inside the cart's
// transaction (the stock area).
type Stock interface {
	// Prepare checks a reservation and gives it its id and expiration
	// time, without storing it. Errors: validation_error.
	Prepare(r stock.Reservation) (stock.Reservation, error)
	// Reserve holds r.Quantity units for the entry (r as Prepare made it,
	// or without an id: prepared then) and returns the reservation with
	// its id and expiration time.
	// Errors: not_enough_stock, validation_error.
	Reserve(ctx context.Context, tx stock.Tx, r stock.Reservation) (stock.Reservation, error)
	// Release gives back quantity units reserved by the entry.
	Release(ctx context.Context, tx stock.Tx, cartID, itemID string, quantity int64) error
}

// Payments gives checkout the payment providers the service is configured
// with (a *payment.Providers).
type Payments interface {
	// Provider returns the provider with the id, its errors translated
	// (payment_failed for a refusal or failure).
	// Errors: validation_error naming paymentId for an unknown id.
	Provider(id string) (payment.Provider, error)
}

// Service holds the cart's use cases: the cart.* operations and the
// expiry sweep.
//
// An operation that changes a cart computes the change outside any
// transaction (the other areas are read there), then stores it in one
// transaction that locks the cart's row, checks that the cart is still the
// version the change was computed from (else the change runs again),
// changes the stock, stores the cart and writes its event; see change.
// Any valid token may call the operations; a cart whose customerId is not
// ANON is visible only to a token with the same customerId claim or an
// admin token, and is cart_not_found to any other (docs/api.md section 3).
//
// Expiry: a cart expires TTL after its last successful operation other
// than cart.info (calculateCart included: it is a use of the cart). An
// expired cart gets status EXPIRED and its reservations are released,
// by the sweep (Sweep, run in the background by Run) or, whichever comes
// first, by the first operation that touches it: a change then answers
// cart_not_active (data "EXPIRED"), with the expiry itself stored.
type Service struct {
	store Store
	deps  Deps
	now   func() time.Time
	ttl   time.Duration
	cache *cartCache

	// Logger receives what fails without failing the operation (a payment
	// authorisation that could not be voided); slog.Default() when nil.
	Logger *slog.Logger
	// Locales are the store's languages, the default first (--locales;
	// the zero value is en alone).
	Locales commerce.Locales
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
	return &Service{store: store, deps: deps, now: now, ttl: ttl, cache: newCartCache()}
}

// TTL is how long a cart lives after its last change.
func (s *Service) TTL() time.Duration { return s.ttl }

// clock returns the time now in UTC, to the millisecond (as stored).
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Create is cart.create: a new ACTIVE cart of the caller (customerId from
// the token's customerId claim, else ANON), with no entries. It emits
// CREATE on CARTS with {new, data}.
// Errors: validation_error, invalid_country (data: the country).
func (s *Service) Create(ctx context.Context, in CreateInput) (*Cart, error) {
	currency, country, channel := DefaultCurrency, DefaultCountry, DefaultChannel
	if in.Channel != nil {
		channel = *in.Channel
	}
	if in.Currency != nil {
		currency = *in.Currency
	}
	if in.Country != nil {
		country = *in.Country
	}
	var p commerce.Problems
	locale, lerr := s.Locales.Resolve(ctx, in.Locale)
	if lerr != nil {
		p.Add("locale", "must be one of %s", strings.Join(s.Locales.All(), ", "))
	}
	if !money.ValidCurrency(currency) {
		p.Add("currency", "%q is not an ISO 4217 currency code", currency)
	}
	if strings.TrimSpace(channel) == "" {
		p.Add("channel", "must not be blank")
	}
	if err := p.Err(); err != nil {
		return nil, err
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
			Currency: currency, Country: country, Channel: channel, Locale: locale,
			ExpirationTime: now.Add(s.ttl), CreatedAt: now, UpdatedAt: now,
			Items: []*Entry{}, AlmostFulfilled: []engine.AlmostFulfilled{},
		}
		if err := tx.Insert(ctx, c); err != nil {
			return err
		}
		return event.EmitOwned(tx, event.Carts, event.Create, now, c.ID, map[string]any{"new": Render(c, CalculateForm), "data": in})
	})
	if err != nil {
		return nil, fmt.Errorf("create cart: %w", err)
	}
	// The first change of a new cart (its first add) starts from memory
	// too, not from a read and decoding of what was just written.
	s.cache.put(c)
	return c, nil
}

// Info is cart.info: the cart as stored, whatever its status, with only
// the reservations it still holds (see Cart.DropLapsed). It does not
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
	now := s.clock()
	if c.Status == StatusActive && !now.Before(c.ExpirationTime) {
		return s.expireID(ctx, id)
	}
	c.DropLapsed(now)
	return c, nil
}

// canUse reports whether the caller may use the cart: an anonymous cart
// anyone holding its id, another only its customer or an admin; a draft or
// an exchange's cart only an admin.
func canUse(cl commerce.Claims, c *Cart) bool {
	if c.Status == StatusDraft || c.Status == StatusExchange {
		return cl.IsAdmin() // staff's: never shown to the customer
	}
	return c.CustomerID == Anonymous || cl.IsAdmin() || (cl.CustomerID != "" && cl.CustomerID == c.CustomerID)
}

// ReadLocale returns the locale of a read of a cart (cart.info,
// cart.calculateCart): arg when given (validation_error when it is not one
// of the store's), else the request's Accept-Language, else the default.
func (s *Service) ReadLocale(ctx context.Context, arg *string) (string, error) {
	return s.Locales.Resolve(ctx, arg)
}

// InLocale returns the cart as read in locale: its entries' titles made
// from their products' text in that locale (field by field falling back to
// the default's); c itself when locale is the cart's own (its titles were
// written in it). An entry whose product is gone keeps its title.
func (s *Service) InLocale(ctx context.Context, c *Cart, locale string) (*Cart, error) {
	own := c.Locale
	if own == "" {
		own = s.Locales.Default()
	}
	if locale == own || len(c.Items) == 0 {
		return c, nil
	}
	ids := make([]string, len(c.Items))
	for i, e := range c.Items {
		ids[i] = e.ProductID
	}
	ps, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := *c
	out.Items = make([]*Entry, len(c.Items))
	for i, e := range c.Items {
		ec := *e
		if p := ps[e.ProductID]; p != nil {
			ec.Title = Title(p.Localized(locale))
		}
		out.Items[i] = &ec
	}
	return &out, nil
}
