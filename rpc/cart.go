package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/shipping"
)

// cartResult is the answer {cart} of the cart operations that show the
// cart in the calculateCart form.
type cartResult struct {
	Cart cart.View `json:"cart"`
}

// cartReadResult is the answer {cart, locale} of cart.info and
// cart.calculateCart.
type cartReadResult struct {
	Cart   cart.View `json:"cart"`
	Locale string    `json:"locale"`
}

// cartAddResult is the answer {cart} of cart.addToCart and
// cart.removeFromCart: the cart in the addToCart form (the document's
// schema differs from cartResult's, openapi_cart.go).
type cartAddResult struct {
	Cart cart.View `json:"cart"`
}

// cartOrderResult is the answer of cart.checkout: {cart, order} (no
// order when the service places none).
type cartOrderResult struct {
	Cart  cart.View    `json:"cart"`
	Order *order.Order `json:"order,omitempty"`
}

// cartShippingResult is the answer of cart.setShippingAddress: the cart
// in the calculateCart form and the methods available for the address.
type cartShippingResult struct {
	Cart            cart.View            `json:"cart"`
	ShippingMethods []shipping.Available `json:"shippingMethods"`
}

// RegisterCart registers the cart operations under /cart/v1/, open to any
// valid token (ownership of a customer's cart is checked by the service):
// cart.create, cart.addToCart, cart.removeFromCart,
// cart.setShippingAddress, cart.setBillingAddress, cart.setShippingMethod,
// cart.checkout, cart.applyCoupon and cart.removeCoupon (POST), cart.info and cart.calculateCart (GET or
// POST). Each answers {ok, cart}; setShippingAddress also lists the
// shippingMethods available. addToCart and removeFromCart show the cart
// in the addToCart form (plain numbers), the others in the calculateCart
// form (money objects).
func RegisterCart(s *Server, svc *cart.Service) {
	Handle(s, Op{Service: "cart", Name: "cart.create", Result: cartResult{},
		Doc:    "Creates an empty cart in a currency (and country, channel), owned by the token's customer when it names one.",
		Errors: []string{commerce.EInvalidCountry}}, cartOp(svc.Create, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.info", Read: true, Result: cartReadResult{},
		Doc: "The cart (cartId or id), priced, its items' titles in the locale asked for.", Errors: []string{commerce.ECartNotFound}},
		cartRead(svc, svc.Info, func(a cart.InfoInput) *string { return a.Locale }))
	Handle(s, Op{Service: "cart", Name: "cart.addToCart", Result: cartAddResult{},
		Doc: "Adds items (productId, quantity, warehouseId) to the cart, reserving their stock.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EProductNotFound, commerce.EProductDiscontinued, commerce.ENoSuitablePrice,
			commerce.EMaxQuantityPerProduct, commerce.EMaxNumberOfEntries, commerce.ENotEnoughStock, commerce.EStockNotFound, commerce.EConcurrentMod}}, cartOp(svc.AddToCart, cart.AddForm))
	Handle(s, Op{Service: "cart", Name: "cart.removeFromCart", Result: cartAddResult{},
		Doc:    "Removes an entry of the cart, or some of its quantity, releasing the stock.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EItemNotFound, commerce.EConcurrentMod}}, cartOp(svc.RemoveFromCart, cart.AddForm))
	Handle(s, Op{Service: "cart", Name: "cart.calculateCart", Read: true, Result: cartReadResult{},
		Doc:    "The cart with its promotions, taxes, shipping and totals computed, its items' titles in the locale asked for.",
		Errors: []string{commerce.ECartNotFound}}, cartRead(svc, svc.CalculateCart, func(a cart.CartInput) *string { return a.Locale }))
	Handle(s, Op{Service: "cart", Name: "cart.setShippingAddress", Result: cartShippingResult{},
		Doc:    "Sets the shipping address and lists the shipping methods available for it.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EInvalidCountry, commerce.EInvalidState, commerce.EConcurrentMod}},
		func(ctx context.Context, a *cart.ShippingAddressInput) (any, error) {
			c, methods, err := svc.SetShippingAddress(ctx, *a)
			if err != nil {
				return nil, err
			}
			return cartShippingResult{Cart: cart.Render(c, cart.CalculateForm), ShippingMethods: methods}, nil
		})
	Handle(s, Op{Service: "cart", Name: "cart.setBillingAddress", Result: cartResult{},
		Doc:    "Sets the billing address (the shipping address must be set first).",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EInvalidCountry, commerce.EInvalidState, commerce.EShippingAddressNotSet, commerce.EConcurrentMod}}, cartOp(svc.SetBillingAddress, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.setShippingMethod", Result: cartResult{},
		Doc:    "Chooses one of the shipping methods available for the cart's address.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EShippingAddressNotset, commerce.EInvalidShippingMethod, commerce.EShippingNotFound, commerce.EConcurrentMod}}, cartOp(svc.SetShippingMethod, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.checkout", Result: cartOrderResult{},
		Doc: "Checks the cart out: authorises the payment, commits the reserved stock, closes the cart and creates the order.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.EShippingAddressNotset, commerce.EInvalidShippingMethod, commerce.EShippingNotFound,
			commerce.EInvalidCountry, commerce.EInvalidState, commerce.ENotEnoughStock, commerce.EProductNotFound, commerce.EProductDiscontinued,
			commerce.ENoSuitablePrice, commerce.EPaymentFailed, commerce.ECouponUsageLimitReached, commerce.EConcurrentMod, commerce.ECustomerNotFound, commerce.EPricesChanged}},
		func(ctx context.Context, a *cart.CheckoutInput) (any, error) {
			c, o, err := svc.CheckoutOrder(ctx, *a)
			if err != nil {
				return nil, err
			}
			return cartOrderResult{Cart: cart.Render(c, cart.CalculateForm), Order: o}, nil
		})
	Handle(s, Op{Service: "cart", Name: "cart.applyCoupon", Result: cartResult{},
		Doc:    "Adds a coupon code (matched case-insensitively) to the cart, at most 5; a code already held changes nothing.",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.ECouponNotFound, commerce.ECouponUsageLimitReached, commerce.EConcurrentMod}}, cartOp(svc.ApplyCoupon, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.removeCoupon", Result: cartResult{},
		Doc:    "Removes a coupon code the cart holds (compared case-insensitively).",
		Errors: []string{commerce.ECartNotFound, commerce.ECartNotActive, commerce.ECouponNotFound, commerce.EConcurrentMod}}, cartOp(svc.RemoveCoupon, cart.CalculateForm))
}

// cartRead adapts a read of a cart (cart.info, cart.calculateCart) to an
// operation answering {ok, cart, locale}: the cart in the calculateCart
// form, its items' titles in the locale of the read (docs/api.md section
// 27).
func cartRead[A any](svc *cart.Service, fn func(context.Context, A) (*cart.Cart, error), locale func(A) *string) func(context.Context, *A) (any, error) {
	return func(ctx context.Context, a *A) (any, error) {
		l, err := svc.ReadLocale(ctx, locale(*a))
		if err != nil {
			return nil, err
		}
		c, err := fn(ctx, *a)
		if err != nil {
			return nil, err
		}
		if c, err = svc.InLocale(ctx, c, l); err != nil {
			return nil, err
		}
		b, err := cart.Render(c, cart.CalculateForm).MarshalJSON()
		if err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "cart %s: %w", c.ID, err)
		}
		return RawField{Name: "cart", JSON: b, Locale: l}, nil
	}
}

// cartOp adapts a use case returning a cart to an operation answering
// {ok, cart} in the form f (cartResult), the cart encoded by
// View.MarshalJSON and written as it is.
func cartOp[A any](fn func(context.Context, A) (*cart.Cart, error), f cart.Form) func(context.Context, *A) (any, error) {
	return func(ctx context.Context, a *A) (any, error) {
		c, err := fn(ctx, *a)
		if err != nil {
			return nil, err
		}
		b, err := cart.Render(c, f).MarshalJSON()
		if err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "cart %s: %w", c.ID, err)
		}
		return RawField{Name: "cart", JSON: b}, nil
	}
}
