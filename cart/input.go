package cart

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/commercekit/commerce"
)

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

// InfoInput is the argument of cart.info: the cart's id as cartId (or as
// id, the name the other areas' info operations use).
type InfoInput struct {
	CartID string `json:"cartId"`
	ID     string `json:"id"`
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

// RemoveInput is the argument of cart.removeFromCart.
type RemoveInput struct {
	CartID   string `json:"cartId"`
	ItemID   string `json:"itemId"`
	Quantity *int64 `json:"quantity"`
}

// CartInput is an argument naming a cart (cart.calculateCart).
type CartInput struct {
	CartID string `json:"cartId"`
}

// ShippingAddressInput is the argument of cart.setShippingAddress.
type ShippingAddressInput struct {
	CartID          string      `json:"cartId"`
	ShippingAddress *AddressArg `json:"shippingAddress,omitempty"`
}

// BillingAddressInput is the argument of cart.setBillingAddress.
type BillingAddressInput struct {
	CartID string `json:"cartId"`
	// BillingAddress is an address object, or the string SAMEASSHIPPING;
	// absent (or null) means SAMEASSHIPPING.
	BillingAddress *AddressArg `json:"billingAddress,omitempty"`
}

// ShippingMethodInput is the argument of cart.setShippingMethod.
type ShippingMethodInput struct {
	CartID   string     `json:"cartId"`
	MethodID *MethodRef `json:"methodId,omitempty"`
}

// CheckoutInput is the argument of cart.checkout. ShippingAddress,
// ShippingMethod and BillingAddress are optional and applied first, as
// the operations that set them would; PaymentID names the payment
// provider and PaymentData (a JSON object, opaque to the cart) is passed to
// it.
type CheckoutInput struct {
	CartID          string          `json:"cartId"`
	ShippingAddress *AddressArg     `json:"shippingAddress,omitempty"`
	ShippingMethod  *MethodRef      `json:"shippingMethod,omitempty"`
	BillingAddress  *AddressArg     `json:"billingAddress,omitempty"`
	PaymentID       string          `json:"paymentId"`
	PaymentData     json.RawMessage `json:"paymentData,omitempty"`
	// Email is the order's email (optional).
	Email *string `json:"email,omitempty"`
}

// AddressArg is an argument holding an address: shippingAddress, and
// billingAddress, which may also be the string SAMEASSHIPPING. It reads
// any JSON value: an object is decoded strictly into Address (exact field
// names, typed values), a string is kept in String, and what does not fit
// is kept as problems (paths relative to the argument) that the use case
// reports under the argument's name together with the request's other
// problems, so that one answer lists them all.
type AddressArg struct {
	// Address is the address given as an object, nil when the object did
	// not decode or another value was given.
	Address *Address
	// String is the string given instead of an object, nil otherwise.
	String *string
	// other: neither an object nor a string was given.
	other    bool
	problems []argProblem
}

// UnmarshalJSON reads an address object, a string, or anything else (see
// AddressArg); it fails only on malformed JSON, which the transport
// rejects before.
func (a *AddressArg) UnmarshalJSON(b []byte) error {
	*a = AddressArg{}
	b = bytes.TrimSpace(b)
	switch {
	case commerce.IsNull(b):
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		a.String = &s
	case len(b) > 0 && b[0] == '{':
		a.Address, a.problems = decodeAddress(b)
	default:
		a.other = true
	}
	return nil
}

// MarshalJSON writes the address, or the string, as given (null for
// anything else): the argument as events record it.
func (a AddressArg) MarshalJSON() ([]byte, error) {
	switch {
	case a.Address != nil:
		return json.Marshal(a.Address)
	case a.String != nil:
		return json.Marshal(*a.String)
	}
	return []byte("null"), nil
}

// MethodRef is a shipping method argument (methodId, and checkout's
// shippingMethod): the method's id as a string, or an object with the id
// (such as a method of setShippingAddress's list: id, title, active,
// taxCode and rates are accepted; only id is used). Like AddressArg it
// reads any JSON value and keeps what does not fit as problems.
type MethodRef struct {
	// ID is the method's id ("" when it was not given well).
	ID       string
	problems []argProblem
}

// methodFields are the fields a method object may have.
var methodFields = []string{"active", "id", "rates", "taxCode", "title"}

// UnmarshalJSON reads a method id or an object with it (see MethodRef); it
// fails only on malformed JSON.
func (m *MethodRef) UnmarshalJSON(b []byte) error {
	*m = MethodRef{}
	b = bytes.TrimSpace(b)
	if commerce.IsNull(b) {
		return nil
	}
	if b[0] == '"' {
		if err := json.Unmarshal(b, &m.ID); err != nil {
			return err
		}
		if strings.TrimSpace(m.ID) == "" {
			m.ID, m.problems = "", []argProblem{{"", "must not be blank"}}
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &obj) != nil {
		m.problems = []argProblem{{"", "must be a shipping method id or an object with the id"}}
		return nil
	}
	for k := range obj {
		if !slices.Contains(methodFields, k) {
			m.problems = append(m.problems, argProblem{k, "unknown field"})
		}
	}
	slices.SortFunc(m.problems, func(a, b argProblem) int { return strings.Compare(a.path, b.path) })
	var id string
	if json.Unmarshal(obj["id"], &id) != nil || strings.TrimSpace(id) == "" {
		m.problems = append(m.problems, argProblem{"id", "required, a shipping method id"})
	} else if len(m.problems) == 0 {
		m.ID = id
	}
	return nil
}

// MarshalJSON writes the method's id (null when it was not given well).
func (m MethodRef) MarshalJSON() ([]byte, error) {
	if m.ID == "" {
		return []byte("null"), nil
	}
	return json.Marshal(m.ID)
}

// CouponInput is the argument of cart.applyCoupon and cart.removeCoupon:
// the cart and a coupon code (matched case-insensitively).
type CouponInput struct {
	CartID string `json:"cartId"`
	Code   string `json:"code"`
}
