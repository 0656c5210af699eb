package cart

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/commercekit/commerce"
)

// CreateInput is the argument of cart.create; every field is optional.
type CreateInput struct {
	// Currency is an ISO 4217 code (default USD); another value is
	// validation_error.
	Currency *string `json:"currency,omitempty" openapi:"pattern=currency"`
	// Country is an ISO 3166-1 alpha-2 code in upper case (default US);
	// another value is invalid_country (data: the value).
	Country *string `json:"country,omitempty" openapi:"pattern=country"`
	// Channel is WEB, MOBILE or a physical store id (default WEB); it must
	// not be blank.
	Channel *string `json:"channel,omitempty"`
	// Locale is the cart's language, one of --locales (else the
	// Accept-Language header's, else the default): its items' titles and
	// its order's emails are in it.
	Locale *string `json:"locale,omitempty"`
}

// InfoInput is the argument of cart.info: the cart's id as cartId (or as
// id, the name the other areas' info operations use).
type InfoInput struct {
	// CartID is the cart's id (or give it as id).
	CartID string `json:"cartId"`
	// ID is the cart's id (or give it as cartId).
	ID string `json:"id"`
	// Locale is the language of the answer's item titles (one of
	// --locales; else the Accept-Language header's, else the default).
	Locale *string `json:"locale"`
}

// AddInput is the argument of cart.addToCart.
type AddInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// Items are the products to add, all or none (a failing item leaves the
	// cart and the stock untouched).
	Items []AddItem `json:"items" openapi:"required,minItems=1"`
}

// AddItem is an item of cart.addToCart: Quantity units of a product, to
// be reserved in the warehouse WarehouseID (required, as docs/api.md says,
// even for a product with UNLIMITED stock, which reserves nothing).
type AddItem struct {
	// ProductID is the product's id; an entry of the same product gets the
	// quantity added.
	ProductID string `json:"productId" openapi:"required"`
	// Quantity is the number of units to add (at most 100 per product in
	// the cart).
	Quantity *int64 `json:"quantity" openapi:"required,min=1"`
	// WarehouseID is the warehouse the units are reserved in.
	WarehouseID string `json:"warehouseId" openapi:"required"`
}

// RemoveInput is the argument of cart.removeFromCart.
type RemoveInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// ItemID is the id of the cart's entry.
	ItemID string `json:"itemId" openapi:"required"`
	// Quantity is the number of units to remove; the entry's quantity or
	// more removes the entry.
	Quantity *int64 `json:"quantity" openapi:"required,min=1"`
}

// CartInput is an argument naming a cart (cart.calculateCart).
type CartInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// Locale is the language of the answer's item titles (one of
	// --locales; else the Accept-Language header's, else the default).
	Locale *string `json:"locale"`
}

// ShippingAddressInput is the argument of cart.setShippingAddress.
type ShippingAddressInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// ShippingAddress is where the cart is shipped; the shipping methods
	// available there are listed, and assigned when there is one.
	ShippingAddress *AddressArg `json:"shippingAddress,omitempty" openapi:"required"`
}

// BillingAddressInput is the argument of cart.setBillingAddress.
type BillingAddressInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// BillingAddress is an address object, or the string SAMEASSHIPPING;
	// absent (or null) means SAMEASSHIPPING.
	BillingAddress *BillingAddressArg `json:"billingAddress,omitempty"`
}

// ShippingMethodInput is the argument of cart.setShippingMethod.
type ShippingMethodInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// MethodID is the shipping method: its id, or an object with its id;
	// it must be available for the cart's address and currency.
	MethodID *MethodRef `json:"methodId,omitempty" openapi:"required"`
}

// CheckoutInput is the argument of cart.checkout. ShippingAddress,
// ShippingMethod and BillingAddress are optional and applied first, as
// the operations that set them would; PaymentID names the payment
// provider and PaymentData (a JSON object, opaque to the cart) is passed to
// it.
type CheckoutInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// ShippingAddress, when given, is set first, as cart.setShippingAddress
	// would.
	ShippingAddress *AddressArg `json:"shippingAddress,omitempty"`
	// ShippingMethod, when given, is chosen first, as
	// cart.setShippingMethod would: the method's id or an object with it.
	ShippingMethod *MethodRef `json:"shippingMethod,omitempty"`
	// BillingAddress, when given, is set first: an address object, or the
	// string SAMEASSHIPPING (the default).
	BillingAddress *BillingAddressArg `json:"billingAddress,omitempty"`
	// PaymentID names the payment provider: manual (built in), or stripe
	// when the service has a Stripe key.
	PaymentID string `json:"paymentId" openapi:"required"`
	// PaymentData is the provider's data, a JSON object: anything for
	// manual (recorded), {"paymentMethod": "pm_..."} for stripe.
	PaymentData json.RawMessage `json:"paymentData,omitempty" openapi:"required"`
	// Email is the order's email (optional).
	Email *string `json:"email,omitempty"`
}

// AddressArg is an address argument given as an object: shippingAddress,
// checkout's addresses, and a customer's address (which embeds it). The
// transport decodes it as every argument, strictly (exact field names,
// typed values, problems with their paths); the use case checks the
// required fields (Address.Check) and the place (Address.CheckPlace).
// Another JSON value than an object is "must be an address object".
type AddressArg struct {
	Address
}

// BillingAddressArg is billingAddress: an address object, or the string
// SAMEASSHIPPING (anything else is "must be an address object or the
// string \"SAMEASSHIPPING\"").
type BillingAddressArg struct {
	// Address is the address given as an object, nil for SAMEASSHIPPING.
	Address *AddressArg
	// SameAsShipping is set when the string SAMEASSHIPPING was given.
	SameAsShipping bool
}

// UnmarshalJSON takes the form given: an object is decoded into Address
// by encoding/json, after the transport has checked its field names
// against AddressArg (its wire forms, rpc/args.go); SAMEASSHIPPING sets
// SameAsShipping; another value is a *json.UnmarshalTypeError naming
// BillingAddressArg.
func (b *BillingAddressArg) UnmarshalJSON(data []byte) error {
	*b = BillingAddressArg{}
	data = bytes.TrimSpace(data)
	switch {
	case commerce.IsNull(data):
		return nil
	case data[0] == '{':
		b.Address = new(AddressArg)
		return commerce.Unplaced(json.Unmarshal(data, b.Address))
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err == nil && s == SameAsShipping {
			b.SameAsShipping = true
			return nil
		}
	}
	return wrongForm[BillingAddressArg]()
}

// MarshalJSON writes the address, or the string SAMEASSHIPPING: the
// argument as events record it.
func (b BillingAddressArg) MarshalJSON() ([]byte, error) {
	if b.SameAsShipping || b.Address == nil {
		return json.Marshal(SameAsShipping)
	}
	return json.Marshal(b.Address)
}

// MethodRef is a shipping method argument (methodId, and checkout's
// shippingMethod): the method's id as a string, or a method object with
// the id (a MethodObject, such as a method of setShippingAddress's list).
// Another JSON value is "must be a shipping method id or an object with
// the id"; a blank id is left to the use case.
type MethodRef struct {
	// ID is the method's id as given.
	ID string
	// Object reports that the id came in a method object.
	Object bool
}

// MethodObject is a shipping method given as an object for a MethodRef:
// id, title, active, taxCode and rates are accepted (the transport checks
// the names); only id is used.
type MethodObject struct {
	ID      string          `json:"id"`
	Title   json.RawMessage `json:"title,omitempty"`
	Active  json.RawMessage `json:"active,omitempty"`
	TaxCode json.RawMessage `json:"taxCode,omitempty"`
	Rates   json.RawMessage `json:"rates,omitempty"`
}

// UnmarshalJSON takes the form given: a string is the id, an object is
// decoded into a MethodObject by encoding/json (its field names checked by
// the transport before); another value is a *json.UnmarshalTypeError
// naming MethodRef.
func (m *MethodRef) UnmarshalJSON(data []byte) error {
	*m = MethodRef{}
	data = bytes.TrimSpace(data)
	switch {
	case commerce.IsNull(data):
		return nil
	case data[0] == '"':
		return json.Unmarshal(data, &m.ID)
	case data[0] == '{':
		var o MethodObject
		if err := json.Unmarshal(data, &o); err != nil {
			return commerce.Unplaced(err)
		}
		m.ID, m.Object = o.ID, true
		return nil
	}
	return wrongForm[MethodRef]()
}

// MarshalJSON writes the method's id (null without one).
func (m MethodRef) MarshalJSON() ([]byte, error) {
	if m.ID == "" {
		return []byte("null"), nil
	}
	return json.Marshal(m.ID)
}

// wrongForm is the error of a JSON value of another form than T takes:
// the transport names the field and T's forms ("must be ...").
func wrongForm[T any]() error {
	return commerce.Unplaced(&json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[T]()})
}

// CouponInput is the argument of cart.applyCoupon and cart.removeCoupon:
// the cart and a coupon code (matched case-insensitively).
type CouponInput struct {
	// CartID is the cart's id.
	CartID string `json:"cartId" openapi:"required"`
	// Code is the coupon code, compared case-insensitively.
	Code string `json:"code" openapi:"required"`
}
