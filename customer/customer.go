// Package customer is the customer area (docs/api.md section 15): shopper
// accounts with an address book, sign-in with access and refresh tokens,
// password resets, the login lock-out, and the OAuth 2.0 clients servers
// get their own tokens with.
//
// Secrets are never kept in the clear: passwords as argon2id PHC strings,
// refresh tokens, reset tokens and client secrets (all at least 256 random
// bits) as their SHA-256. No record of this package marshals a hash.
package customer

import (
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
)

// PasswordReset is the area's own event type on event.Customers (CREATE,
// UPDATE and REMOVE are event's).
const PasswordReset = "PASSWORD_RESET"

// DefaultType is the customerType of a new customer.
const DefaultType = "B2C"

// Customer is an account. PasswordHash is never marshaled.
type Customer struct {
	ID           string `json:"id"`
	Email        string `json:"email" openapi:"format=idn-email"`
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName"`
	Phone        string `json:"phone"`
	CustomerType string `json:"customerType"`
	// Groups are the codes of the customer's groups (docs/api.md section
	// 26), carried in its tokens as the claim groups.
	Groups    []string  `json:"groups"`
	Addresses []Address `json:"addresses"`
	CreatedAt time.Time `json:"createdAt"`
	// Locale is the customer's language, one of the store's (docs/api.md
	// section 27): her emails are written in it. "" for an account made
	// before the store had languages (emails in the default).
	Locale       string `json:"locale,omitempty"`
	PasswordHash string `json:"-"`
}

// Address is an entry of a customer's address book: a cart address
// (docs/api.md section 10) with an id and the default flag.
type Address struct {
	ID string `json:"id"`
	cart.Address
	Default bool `json:"default"`
}

// DefaultAddress returns the customer's default address, or nil.
func (c *Customer) DefaultAddress() *Address {
	for i := range c.Addresses {
		if c.Addresses[i].Default {
			return &c.Addresses[i]
		}
	}
	return nil
}

// Client is an OAuth 2.0 client (client credentials grant). SecretHash is
// the SHA-256 of its secret and is never marshaled.
type Client struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Scope string `json:"scope" openapi:"enum=api|admin"`
	// Role is the role of an admin client's tokens (claim role; "" is
	// admin, docs/api.md section 28).
	Role       string    `json:"role,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	SecretHash string    `json:"-"`
}

// RefreshToken is a stored refresh token: the hash of the opaque token,
// the sign-in (Family) it belongs to, and whether it was spent.
type RefreshToken struct {
	Hash       string
	Family     string
	CustomerID string
	ExpiresAt  time.Time
	Spent      bool
}

// ResetToken is a stored password-reset token (its hash).
type ResetToken struct {
	Hash       string
	CustomerID string
	ExpiresAt  time.Time
}

// Filter selects customers for customer.list.
type Filter struct {
	Email         *commerce.Pattern
	CustomerTypes []string
	Limit, Skip   int
}

// NotFound is customer_not_found (data: the id).
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.ECustomerNotFound, Data: id, Message: "no customer " + id}
}

// ClientNotFound is client_not_found (data: the id).
func ClientNotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EClientNotFound, Data: id, Message: "no client " + id}
}

// AddressNotFound is address_not_found (data: the address id).
func AddressNotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EAddressNotFound, Data: id, Message: "no address " + id}
}

// invalidCredentials is the one answer to a wrong email or password.
func invalidCredentials() *commerce.Error {
	return &commerce.Error{Code: commerce.EInvalidCredentials, Message: "wrong email or password"}
}

// invalidToken is the answer to a refresh token that is unknown, spent,
// expired or revoked (the reason is not told).
func invalidToken() *commerce.Error {
	return &commerce.Error{Code: commerce.EInvalidToken, Message: "refresh token not valid"}
}

// invalidResetToken is the answer to a reset token that is unknown, used
// or expired.
func invalidResetToken() *commerce.Error {
	return &commerce.Error{Code: commerce.EInvalidResetToken, Message: "reset token not valid"}
}
