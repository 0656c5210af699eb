package cart

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
)

// voidTimeout bounds the void of a failed checkout's authorisation, which
// runs even when the request's context has ended.
const voidTimeout = 30 * time.Second

// Checkout is cart.checkout (docs/api.md sections 10 and 14). It applies
// the optional shippingAddress (available methods as setShippingAddress),
// shippingMethod and billingAddress, then needs, in this order: entries
// (validation_error), a shipping address (shipping_address_notset), a
// shipping method still available for the address and currency, at its
// current rate (invalid_shipping_method), and every entry's product still
// salable (product_not_found, product_discontinued). Billing defaults to
// same as shipping.
//
// The flow, so that no authorisation is left behind by a checkout that
// fails:
//
//  1. The cart is validated and computed as it will be checked out
//     (promotions, taxes, shipping), outside any transaction.
//  2. The payment provider named by paymentId authorises the total
//     (beforeTax + tax, shipping included) with the client's paymentData,
//     once, outside any transaction, under a new idempotency key: one key
//     per checkout attempt. With Deps.Orders the attempt is recorded first,
//     with the order's number (which the provider gets), so that the
//     orders' recovery job voids it if the process dies before step 3
//     or 4 ends (a local provider, manual, holds nothing anywhere: no
//     attempt, and step 3 allocates the number). A refusal is
//     payment_failed (402, data
//     {provider, code, message}) and changes nothing: the cart stays
//     ACTIVE, the stock untouched.
//  3. One transaction locks the cart, checks that it is still the version
//     computed in step 1, turns the reservations into a decrement of the
//     stock (not_enough_stock when a released one can no longer be taken),
//     stores the payment record and the CHECKED_OUT status and emits
//     CHECKOUT on CARTS with {operation, data (the arguments without
//     paymentData), new, payment (the record without paymentData)}; with
//     Deps.Orders it also places the order (ORDERS CREATE), sets the
//     cart's orderId and deletes the checkout attempt (or allocates the
//     order's number, for a local provider). A
//     retried transaction (a serialization failure) runs this step again,
//     never step 2.
//  4. When that transaction fails, the authorisation is voided (key
//     "<key>:void") before the error is returned; when the cart moved
//     meanwhile, it is voided and the checkout starts again from step 1
//     (a few times at most, then concurrent_modification). A void that
//     fails is logged with the provider's reference, and its attempt is
//     kept for the recovery job.
//
// The entries' reserves then show the reservations committed.
// Errors also: validation_error, cart_not_found (data: the id),
// cart_not_active (a second checkout among others), invalid_country,
// invalid_state, payment_failed, customer_not_found (data: the customer's
// id) when the cart's customer had an account at step 1 that
// customer.remove removed before step 3 (step 3 holds the account's row,
// so that the removal erases an order placed before it and none is placed
// after it).
func (s *Service) Checkout(ctx context.Context, in CheckoutInput) (*Cart, error) {
	c, _, err := s.CheckoutOrder(ctx, in)
	return c, err
}

// CheckoutOrder is Checkout, also returning the order it placed (nil
// without Deps.Orders). The order is placed in the checkout's
// transaction (step 3), with a number allocated before the authorisation
// (step 2) so that the provider can record it, or, with a local provider
// (manual), in that transaction.
func (s *Service) CheckoutOrder(ctx context.Context, in CheckoutInput) (*Cart, *order.Order, error) {
	var p commerce.Problems
	if in.CartID == "" {
		p.Add("cartId", "required")
	}
	var provider payment.Provider
	if in.PaymentID == "" {
		p.Add("paymentId", "required")
	} else if pr, err := s.deps.Payments.Provider(in.PaymentID); err != nil {
		p.AddErr(err)
	} else {
		provider = pr
	}
	switch b := bytes.TrimSpace(in.PaymentData); {
	case commerce.IsNull(b):
		p.Add("paymentData", "required")
	case b[0] != '{' || !json.Valid(b):
		p.Add("paymentData", "must be an object")
	}
	ship := addressArg(&p, "shippingAddress", in.ShippingAddress)
	methodID := methodArg(&p, "shippingMethod", in.ShippingMethod)
	bill, sameBill := billingArg(&p, "billingAddress", in.BillingAddress)
	if err := p.Err(); err != nil {
		return nil, nil, err
	}
	for _, a := range []struct {
		path string
		addr *Address
	}{{"shippingAddress", ship}, {"billingAddress", bill}} {
		if a.addr != nil {
			if err := a.addr.CheckPlace(a.path); err != nil {
				return nil, nil, err
			}
		}
	}
	data := in
	data.PaymentData = nil
	var rec payment.Record
	var number, key string
	var products map[string]*catalog.Product
	var placed *order.Order
	var email *string
	// account: the cart's customer had an account when the checkout
	// started (kept over the rounds of change: a round after the account
	// was removed sees none).
	account := false
	c, err := s.change(ctx, in.CartID, change{op: "cart.checkout", data: data, event: event.Checkout,
		prepare: func(c *Cart, _ time.Time) (err error) {
			products, err = s.prepareCheckout(ctx, c, ship, methodID, bill, sameBill)
			if err != nil {
				return err
			}
			given := in.Email
			if given == nil && c.Email != "" { // a draft's
				given = &c.Email
			}
			var has bool
			email, has, err = s.orderEmail(ctx, given, c.CustomerID)
			account = account || has
			return err
		},
		authorize: func(c *Cart) (undo func(), err error) {
			if err := checkCoupons(c); err != nil {
				return nil, err
			}
			rec, number, key, undo, err = s.authorize(ctx, provider, in.PaymentID, c, in.PaymentData)
			return undo, err
		},
		apply: func(tx Tx, c *Cart, now time.Time) error {
			if account && s.deps.Orders != nil {
				// The account's row is held until the order is placed:
				// customer.remove erases it, or removed the account
				// first and the checkout places no order for it.
				e, err := tx.LockCustomer(ctx, c.CustomerID)
				if err != nil {
					return err
				}
				if e == "" {
					return &commerce.Error{Code: commerce.ECustomerNotFound, Data: c.CustomerID,
						Message: "the customer's account was removed during the checkout"}
				}
			}
			pay := rec
			draft := c.Status == StatusDraft
			var err error
			placed, err = s.place(ctx, tx, c, &pay, number, key, email, products, now, func(o *order.Order) {
				if draft {
					o.Source = order.SourceDraft
				}
			})
			return err
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return c, placed, nil
}

// place makes the cart an order in tx, the checkout's transaction: the
// last step of every checkout (cart.checkout, draft.complete, the
// exchange of a return). The cart's reservations become a decrement of
// the stock (not_enough_stock when a released one can no longer be
// taken), the uses of its promotions are counted, it takes the payment
// pay and the status CHECKED_OUT, and, with Deps.Orders, the order of its
// snapshot, shaped by shape, is placed (ORDERS CREATE) under number (one
// is allocated in tx when number is ""; else the checkout attempt key is
// ended) and returned (nil without Deps.Orders).
func (s *Service) place(ctx context.Context, tx Tx, c *Cart, pay *payment.Record, number, key string, email *string,
	products map[string]*catalog.Product, now time.Time, shape func(*order.Order)) (*order.Order, error) {
	committed, err := tx.Stock().CommitCart(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	setReserves(c, committed)
	if err := redeem(ctx, tx, c); err != nil {
		return nil, err
	}
	c.Payment = pay
	c.Status = StatusCheckedOut
	c.OrderID = ""
	if s.deps.Orders == nil {
		return nil, nil
	}
	if number == "" { // a local provider: no attempt was recorded
		num, err := tx.Orders().NextNumber(ctx)
		if err != nil {
			return nil, err
		}
		number = strconv.FormatInt(num, 10)
	} else if err := tx.Orders().EndCheckout(ctx, key); err != nil {
		return nil, err
	}
	o, err := snapshot(c, number, email, products)
	if err != nil {
		return nil, err
	}
	if shape != nil {
		shape(o)
	}
	if err := s.deps.Orders.Place(ctx, tx.Orders(), o, now); err != nil {
		return nil, err
	}
	c.OrderID = o.ID
	return o, nil
}

// prepareCheckout applies checkout's arguments to the cart in memory and
// checks that it can be checked out (step 1 of Checkout).
func (s *Service) prepareCheckout(ctx context.Context, c *Cart, ship *Address, methodID string, bill *Address, sameBill bool) (map[string]*catalog.Product, error) {
	if ship != nil {
		if _, err := s.shipTo(ctx, c, ship); err != nil {
			return nil, err
		}
	}
	if len(c.Items) == 0 {
		return nil, commerce.Invalid("cartId: the cart has no entries to check out")
	}
	products, err := s.checkSalable(ctx, c)
	if err != nil {
		return nil, err
	}
	if c.ShippingAddress == nil {
		return nil, &commerce.Error{Code: commerce.EShippingAddressNotset, Message: "the cart has no shipping address"}
	}
	id := methodID
	switch {
	case id != "":
	case c.ShippingMethod != nil:
		id = c.ShippingMethod.ID // checked again: it may have changed or gone
	default:
		return nil, &commerce.Error{Code: commerce.EInvalidShippingMethod, Message: "the cart has no shipping method"}
	}
	if err := s.shipWith(ctx, c, id); err != nil {
		return nil, err
	}
	switch {
	case bill != nil:
		c.BillingAddress, c.BillingSameAsShipping = bill, false
	case sameBill || c.Billing() == nil:
		return products, billTo(c, nil, true, commerce.EShippingAddressNotset)
	}
	return products, nil
}

// checkSalable fails checkout when an entry's product was removed, made
// DRAFT or DISCONTINUED since it was added.
func (s *Service) checkSalable(ctx context.Context, c *Cart) (map[string]*catalog.Product, error) {
	ids := make([]string, len(c.Items))
	for i, e := range c.Items {
		ids[i] = e.ProductID
	}
	products, err := s.deps.Catalog.Products(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("checkout: %w", err)
	}
	for _, id := range ids {
		if _, err := salable(products, id); err != nil {
			return nil, err
		}
	}
	return products, nil
}

// authorize has the provider id authorise the computed cart's total once,
// under a new idempotency key (step 2 of Checkout), and returns the
// payment record, the order's number and the key, and the function that
// voids the authorisation. With Deps.Orders and a provider that is not
// local (payment.Local), the attempt is recorded first, with the order's
// number (Orders.BeginCheckout): the checkout's transaction deletes it
// with the order it places, the void once it succeeded; one left behind
// by a process that died in between is voided by the orders' recovery
// job. With a local provider the number is "": the checkout's
// transaction allocates it.
func (s *Service) authorize(ctx context.Context, provider payment.Provider, id string, c *Cart, data json.RawMessage) (payment.Record, string, string, func(), error) {
	prec, err := money.Precision(c.Currency)
	if err != nil {
		return payment.Record{}, "", "", nil, fmt.Errorf("checkout: %w", err)
	}
	key := "checkout-" + commerce.NewID()
	r := payment.AuthorizeRequest{
		IdempotencyKey: key, CartID: c.ID, CustomerID: c.CustomerID,
		Amount: c.BeforeTax + c.Tax, Currency: c.Currency, Precision: prec, Data: data,
	}
	// A local provider's authorisation holds nothing anywhere: no attempt
	// to record, and the number is allocated with the order (apply).
	if s.deps.Orders != nil && !payment.IsLocal(provider) {
		if r, err = s.deps.Orders.BeginCheckout(ctx, id, r); err != nil {
			return payment.Record{}, "", "", nil, err
		}
	}
	a, err := provider.Authorize(ctx, r)
	if err != nil {
		if s.deps.Orders != nil && !payment.Uncertain(err) {
			// A refusal (or paymentData the provider cannot use):
			// nothing was authorised. A provider failure is left to the
			// recovery job, which asks again under the same key.
			_ = s.deps.Orders.EndCheckout(context.WithoutCancel(ctx), key)
		}
		return payment.Record{}, "", "", nil, err
	}
	cartID := c.ID
	undo := func() {
		if s.void(ctx, provider, id, cartID, key, a.Reference) && s.deps.Orders != nil {
			_ = s.deps.Orders.EndCheckout(context.WithoutCancel(ctx), key)
		}
	}
	return payment.NewRecord(id, a), r.OrderNumber, key, undo, nil
}

// void cancels the authorisation of a checkout that failed (step 4 of
// Checkout), even when the request's context has ended; a failure is
// logged, with what is needed to void it by hand.
func (s *Service) void(ctx context.Context, provider payment.Provider, id, cartID, key, reference string) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), voidTimeout)
	defer cancel()
	if _, err := provider.Void(ctx, payment.VoidRequest{IdempotencyKey: key + ":void", Reference: reference}); err != nil {
		s.logger().Error("checkout failed and its payment authorisation could not be voided: void it with the provider",
			"provider", id, "reference", reference, "cart", cartID, "err", err)
		return false
	}
	return true
}

// orderEmail is the email of a checkout's order (docs/api.md section 13):
// the checkout's email argument, else the email of the customer's
// account, else none; and whether the cart's customer has an account.
func (s *Service) orderEmail(ctx context.Context, given *string, customerID string) (*string, bool, error) {
	if s.deps.Customers == nil || customerID == "" || customerID == Anonymous {
		return given, false, nil
	}
	e, err := s.deps.Customers.Email(ctx, customerID)
	switch {
	case err != nil:
		return nil, false, err
	case e == "":
		return given, false, nil
	case given != nil && *given != "":
		return given, true, nil
	}
	return &e, true, nil
}
