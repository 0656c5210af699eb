package order

import (
	"context"
	"time"

	"github.com/commercekit/commerce/payment"
)

// Exchanges makes the exchanges of returns (implemented by the cart
// area: an exchange is a cart of the order's customer, priced, taxed and
// reserved as any cart, and checked out into the replacement order
// through the cart's checkout path; docs/api.md section 24). The orders
// area cannot call the cart itself (the cart calls the orders area at
// checkout), so it names what it needs here.
type Exchanges interface {
	// Quote prices the exchange of items for the order's customer
	// (the order's currency, country and channel, the customer's type),
	// outside any transaction, as the cart would the same items now.
	// Errors: those of cart.addToCart (product_not_found,
	// no_suitable_price, product_discontinued, validation_error, ...).
	QuoteExchange(ctx context.Context, o *Order, items []ExchangeItemInput) (Quote, error)
	// Update runs fn in one write transaction of the store, as
	// Store.Update, with ex making changes of exchange carts in it.
	UpdateExchanges(ctx context.Context, fn func(tx Tx, ex ExchangeTx) error) error
}

// Quote is a priced exchange, not yet stored.
type Quote interface {
	// CartID is the id of the exchange's cart once opened.
	CartID() string
	// Items are the exchange's items as given, with their unit prices.
	Items() []ExchangeItem
	// Value is what the exchange costs, tax included (minor units).
	Value() int64
	// SKUs are the items' skus by product id.
	SKUs() map[string]string
}

// ExchangeTx changes exchange carts inside a transaction of
// Exchanges.UpdateExchanges.
type ExchangeTx interface {
	// Open stores the quoted exchange's cart and reserves its units.
	// Errors: out_of_stock (data as not_enough_stock's).
	Open(ctx context.Context, q Quote) error
	// Hold takes the exchange cart's units again, until it is placed or
	// closed (however long that takes): a refund is about to place it.
	// Errors: out_of_stock when they can no longer be had.
	Hold(ctx context.Context, cartID string) error
	// Close releases what the exchange cart reserves; it is never placed.
	Close(ctx context.Context, cartID string) error
	// Place checks the exchange cart out into a new order (ORDERS
	// CREATE) and returns it.
	// Errors: out_of_stock.
	Place(ctx context.Context, cartID string, p Placement) (*Order, error)
}

// Placement is how an exchange is placed: the order it replaces units of,
// the email the new order takes, the items' skus, and the authorised
// payment of the difference (nil when the exchange costs no more than
// what was returned: the new order is then PAID).
type Placement struct {
	ExchangeOf string
	Email      string
	SKUs       map[string]string
	Payment    *payment.Record
	Now        time.Time
}

// ExchangeItemInput is an item of return.request's exchange.
type ExchangeItemInput struct {
	// ProductID is the product sent instead.
	ProductID string `json:"productId" openapi:"required"`
	// Quantity is how many units are sent (more than 0).
	Quantity int64 `json:"quantity" openapi:"required,min=1"`
	// WarehouseID is the warehouse its units are reserved in.
	WarehouseID string `json:"warehouseId" openapi:"required"`
}
