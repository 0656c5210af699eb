package order

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/payment"
)

// Payments gives the payment providers by id (payment.Providers).
type Payments interface {
	Provider(id string) (payment.Provider, error)
}

// Service is the orders area.
type Service struct {
	store    Store
	payments Payments
	now      func() time.Time
	// Logger receives what the recovery job and the payment operations
	// report (nothing when nil).
	Logger *slog.Logger
	// RecoverAfter is how old a pending payment operation must be before
	// the recovery job finishes it (DefaultRecoverAfter when zero): the
	// request that began it is then known to have ended.
	RecoverAfter time.Duration
	// ReturnWindow is how long after an order's last delivery (or last
	// shipment) its customer may ask for a return (DefaultReturnWindow
	// when zero; --return-window).
	ReturnWindow time.Duration
	// Exchanges makes the exchanges of returns (the cart area); a
	// return.request with an exchange is an internal error without it.
	Exchanges Exchanges
}

// DefaultRecoverAfter is how long a payment operation may stay pending
// before the recovery job takes it over: longer than any request.
const DefaultRecoverAfter = 2 * time.Minute

// NewService returns the orders area over store, calling the providers of
// payments.
func NewService(store Store, payments Payments, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, payments: payments, now: now}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

func (s *Service) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// NextNumber allocates the number of an order about to be placed (before
// the payment is authorised, so that the provider can record it). A
// number allocated and not used leaves a gap.
func (s *Service) NextNumber(ctx context.Context) (string, error) {
	n, err := s.store.NextNumber(ctx)
	if err != nil {
		return "", fmt.Errorf("order number: %w", err)
	}
	return strconv.FormatInt(n, 10), nil
}

// Place stores a new order in tx, the checkout's transaction, and emits
// CREATE on ORDERS. The caller fills the snapshot (id, number, cart,
// customer, items, addresses, totals, payments); Place sets the statuses,
// the times and the version.
func (s *Service) Place(ctx context.Context, tx Tx, o *Order, now time.Time) error {
	now = now.UTC().Truncate(time.Millisecond)
	o.Status, o.FulfillmentStatus = StatusPlaced, NotShipped
	if o.PaymentStatus == "" || len(o.Payments) > 0 {
		// An order without a payment may come PAID (an exchange that
		// costs no more than what was returned).
		o.PaymentStatus = PaymentAuthorized
	}
	if o.Source == "" {
		o.Source = SourceStorefront
	}
	o.Returns = []string{}
	o.CreatedAt, o.UpdatedAt, o.Version = now, now, 1
	if o.Coupons == nil {
		o.Coupons = []string{}
	}
	if o.Payments == nil {
		o.Payments = []*Payment{}
	}
	o.Fulfillments, o.Refunds = []*Fulfillment{}, []*Refund{}
	o.refresh()
	if err := tx.Insert(ctx, o); err != nil {
		return fmt.Errorf("place order: %w", err)
	}
	return emit(tx, EventCreate, now, o)
}

// canRead reports whether the caller may see the order: admin tokens see
// every order, a token with customerId that customer's, any other token
// the ANON orders.
func canRead(cl commerce.Claims, o *Order) bool {
	switch {
	case cl.IsAdmin():
		return true
	case cl.CustomerID != "":
		return o.CustomerID == cl.CustomerID
	default:
		return o.CustomerID == Anonymous
	}
}

// Info is order.info.
// Errors: order_not_found (also for an order the caller may not see).
func (s *Service) Info(ctx context.Context, in InfoInput) (*Order, error) {
	if in.ID == "" {
		return nil, commerce.Invalid("id: required")
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	o, err := s.store.Order(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if !canRead(cl, o) {
		return nil, NotFound(in.ID)
	}
	return o, nil
}

// List is order.list: the orders matching the filters, newest first. A
// token with customerId sees only that customer's orders whatever the
// filter says; a token with neither admin nor customerId is forbidden.
func (s *Service) List(ctx context.Context, in ListInput) (commerce.List, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	if !cl.IsAdmin() && cl.CustomerID == "" {
		return commerce.List{}, commerce.Errorf(commerce.EForbidden, "order.list needs an admin token or a customer's")
	}
	var p commerce.Problems
	page, err := in.Page()
	p.AddErr(err)
	for _, l := range []struct {
		path        string
		given, okay []string
	}{{"status", in.Status, Statuses}, {"paymentStatus", in.PaymentStatus, PaymentStatuses},
		{"fulfillmentStatus", in.FulfillmentStatus, FulfillmentStatuses}} {
		for _, v := range l.given {
			if !slices.Contains(l.okay, v) {
				p.Add(l.path, "%q is not one of %s", v, strings.Join(l.okay, ", "))
			}
		}
	}
	for _, v := range in.Number {
		if !ValidNumber(v) {
			p.Add("number", "%q is not an order number (digits without a leading zero)", v)
		}
	}
	f := Filter{CustomerIDs: in.CustomerID, Statuses: in.Status, PaymentStatuses: in.PaymentStatus,
		FulfillmentStatuses: in.FulfillmentStatus, Numbers: in.Number, Limit: page.Limit, Skip: page.Skip}
	for _, t := range []struct {
		path string
		in   *string
		out  **time.Time
	}{{"createdFrom", in.CreatedFrom, &f.CreatedFrom}, {"createdTo", in.CreatedTo, &f.CreatedTo}} {
		if t.in == nil {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, *t.in)
		if err != nil {
			p.Add(t.path, "must be an RFC 3339 time")
			continue
		}
		*t.out = &v
	}
	if err := p.Err(); err != nil {
		return commerce.List{}, err
	}
	if !cl.IsAdmin() {
		if len(f.CustomerIDs) > 0 && !slices.Contains(f.CustomerIDs, cl.CustomerID) {
			return commerce.List{Page: page, Data: []any{}}, nil
		}
		f.CustomerIDs = []string{cl.CustomerID}
	}
	orders, err := s.store.Orders(ctx, f)
	if err != nil {
		return commerce.List{}, fmt.Errorf("list orders: %w", err)
	}
	data := make([]any, len(orders))
	for i, o := range orders {
		data[i] = o
	}
	return commerce.List{Page: page, Data: data}, nil
}

// ValidNumber reports whether s has the form of an order number: a
// string of at most 18 digits without a leading zero (strconv.ParseInt
// reads it exactly).
func ValidNumber(s string) bool {
	if len(s) == 0 || len(s) > 18 || s[0] == '0' {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// emit queues an event on ORDERS with the payload {order}, owned by the
// order's cart (customer.remove erases the events of its customer's
// carts).
func emit(tx Tx, typ string, now time.Time, o *Order) error {
	return event.EmitOwned(tx, event.Orders, typ, now, o.CartID, map[string]any{"order": o})
}

// internalChange is what a change's function returns to store a change
// clients do not see (a pending operation): no version, no event.
const internalChange = "-"

// change runs fn on the locked order id in one transaction, and, when fn
// returns an event type, stores the order (version + 1, updatedAt now)
// and emits that event. It returns the order as stored (or as read when
// fn changed nothing).
func (s *Service) change(ctx context.Context, id string, fn func(tx Tx, o *Order, now time.Time) (string, error)) (*Order, error) {
	var out *Order
	err := s.store.Update(ctx, func(tx Tx) error {
		now := s.clock()
		o, err := tx.Lock(ctx, id)
		if err != nil {
			return err
		}
		typ, err := fn(tx, o, now)
		if err != nil {
			return err
		}
		out = o
		if typ == "" {
			return nil
		}
		if typ == internalChange { // a pending operation recorded: no version, no event
			return tx.Save(ctx, o)
		}
		o.refresh()
		o.Version++
		o.UpdatedAt = now
		if err := tx.Save(ctx, o); err != nil {
			return err
		}
		return emit(tx, typ, now, o)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readable checks, for the operations any reader may call (cancel), that
// the caller may see the order.
func (s *Service) readable(ctx context.Context, id string) error {
	if id == "" {
		return commerce.Invalid("id: required")
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	o, err := s.store.Order(ctx, id)
	if err != nil {
		return err
	}
	if !canRead(cl, o) {
		return NotFound(id)
	}
	return nil
}
