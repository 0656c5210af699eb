package rpc

import (
	"context"

	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/shipping"
)

type cartResult struct {
	Cart cart.View `json:"cart"`
}

type cartShippingResult struct {
	Cart            cart.View            `json:"cart"`
	ShippingMethods []shipping.Available `json:"shippingMethods"`
}

// RegisterCart registers the cart operations under /cart/v1/, open to any
// valid token (ownership of a customer's cart is checked by the service):
// cart.create, cart.addToCart, cart.removeFromCart,
// cart.setShippingAddress, cart.setBillingAddress, cart.setShippingMethod
// and cart.checkout (POST), cart.info and cart.calculateCart (GET or
// POST). Each answers {ok, cart}; setShippingAddress also lists the
// shippingMethods available. addToCart and removeFromCart show the cart
// in the addToCart form (plain numbers), the others in the calculateCart
// form (money objects).
func RegisterCart(s *Server, svc *cart.Service) {
	Handle(s, Op{Service: "cart", Name: "cart.create"}, cartOp(svc.Create, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.info", Read: true}, cartOp(svc.Info, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.addToCart"}, cartOp(svc.AddToCart, cart.AddForm))
	Handle(s, Op{Service: "cart", Name: "cart.removeFromCart"}, cartOp(svc.RemoveFromCart, cart.AddForm))
	Handle(s, Op{Service: "cart", Name: "cart.calculateCart", Read: true}, cartOp(svc.CalculateCart, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.setShippingAddress"},
		func(ctx context.Context, a *cart.ShippingAddressInput) (any, error) {
			c, methods, err := svc.SetShippingAddress(ctx, *a)
			if err != nil {
				return nil, err
			}
			return cartShippingResult{Cart: cart.Render(c, cart.CalculateForm), ShippingMethods: methods}, nil
		})
	Handle(s, Op{Service: "cart", Name: "cart.setBillingAddress"}, cartOp(svc.SetBillingAddress, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.setShippingMethod"}, cartOp(svc.SetShippingMethod, cart.CalculateForm))
	Handle(s, Op{Service: "cart", Name: "cart.checkout"}, cartOp(svc.Checkout, cart.CalculateForm))
}

// cartOp adapts a use case returning a cart to an operation answering
// {ok, cart} in the form f.
func cartOp[A any](fn func(context.Context, A) (*cart.Cart, error), f cart.Form) func(context.Context, *A) (any, error) {
	return func(ctx context.Context, a *A) (any, error) {
		c, err := fn(ctx, *a)
		if err != nil {
			return nil, err
		}
		return cartResult{cart.Render(c, f)}, nil
	}
}
