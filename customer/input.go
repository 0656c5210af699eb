package customer

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
)

// RegisterInput is the argument of customer.register.
type RegisterInput struct {
	Email     *string    `json:"email,omitempty"`
	Password  *string    `json:"password,omitempty"`
	FirstName *string    `json:"firstName,omitempty"`
	LastName  *string    `json:"lastName,omitempty"`
	Phone     *cart.Text `json:"phone,omitempty"`
}

// InfoInput names a customer (customer.info, customer.remove): absent, the
// caller's own account.
type InfoInput struct {
	ID string `json:"id"`
}

// RemoveInput is the argument of customer.remove.
type RemoveInput = InfoInput

// ExportInput is the argument of customer.export.
type ExportInput = InfoInput

// UpdateInput is the argument of customer.update: absent fields are kept.
// CustomerType is for admin tokens only; Password needs CurrentPassword.
type UpdateInput struct {
	ID              string     `json:"id"`
	FirstName       *string    `json:"firstName,omitempty"`
	LastName        *string    `json:"lastName,omitempty"`
	Phone           *cart.Text `json:"phone,omitempty"`
	CustomerType    *string    `json:"customerType,omitempty"`
	Password        *string    `json:"password,omitempty"`
	CurrentPassword *string    `json:"currentPassword,omitempty"`
}

// AddAddressInput is the argument of customer.addAddress.
type AddAddressInput struct {
	ID      string      `json:"id"`
	Address *AddressArg `json:"address,omitempty"`
}

// AddressArg is an address argument: a cart address object plus the
// optional Boolean `default`, decoded by the transport as every argument
// (exact field names, typed values).
type AddressArg struct {
	cart.AddressArg
	Default bool `json:"default,omitempty"`
}

// RemoveAddressInput is the argument of customer.removeAddress.
type RemoveAddressInput struct {
	ID        string `json:"id"`
	AddressID string `json:"addressId"`
}

// ListInput is the argument of customer.list.
type ListInput struct {
	Email        *commerce.Pattern   `json:"email,omitempty"`
	CustomerType commerce.StringList `json:"customerType,omitempty"`
	commerce.PageArgs
}

// LoginInput is the argument of auth.login.
type LoginInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	CartID   string `json:"cartId"`
}

// RefreshInput is the argument of auth.refresh and auth.logout.
type RefreshInput struct {
	RefreshToken string `json:"refreshToken"`
}

// RequestResetInput is the argument of auth.requestPasswordReset.
type RequestResetInput struct {
	Email string `json:"email"`
}

// ResetInput is the argument of auth.resetPassword.
type ResetInput struct {
	Token    string `json:"token"`
	Password string `json:"password"`
}

// ClientCreateInput is the argument of client.create.
type ClientCreateInput struct {
	Name  *string `json:"name,omitempty"`
	Scope *string `json:"scope,omitempty"`
}

// ClientListInput is the argument of client.list.
type ClientListInput struct {
	commerce.PageArgs
}

// ClientRemoveInput is the argument of client.remove.
type ClientRemoveInput struct {
	ID string `json:"id"`
}
