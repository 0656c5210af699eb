package customer

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
)

// RegisterInput is the argument of customer.register.
type RegisterInput struct {
	// Email is the account's email address, unique (duplicate_key); kept
	// trimmed, lower-cased and in Unicode NFC.
	Email *string `json:"email,omitempty" openapi:"required,format=idn-email"`
	// Password is 10 to 128 characters, not the email, not a common
	// password.
	Password *string `json:"password,omitempty" openapi:"required"`
	// FirstName is the customer's first name.
	FirstName *string `json:"firstName,omitempty" openapi:"required"`
	// LastName is the customer's last name.
	LastName *string `json:"lastName,omitempty"`
	// Phone is a phone number, a string or a number, kept as a string.
	Phone *cart.Text `json:"phone,omitempty"`
	// Locale is the customer's language, one of --locales (the default
	// when absent); her emails are written in it.
	Locale *string `json:"locale,omitempty"`
}

// InfoInput names a customer (customer.info, customer.remove): absent, the
// caller's own account.
type InfoInput struct {
	// ID is the customer's id (admin tokens); absent, the token's own
	// customer.
	ID string `json:"id"`
}

// RemoveInput is the argument of customer.remove.
type RemoveInput = InfoInput

// ExportInput is the argument of customer.export.
type ExportInput = InfoInput

// UpdateInput is the argument of customer.update: absent fields are kept.
// CustomerType is for admin tokens only; Password needs CurrentPassword.
type UpdateInput struct {
	// ID is the customer's id (admin tokens); absent, the token's own
	// customer.
	ID string `json:"id"`
	// FirstName is the new first name.
	FirstName *string `json:"firstName,omitempty"`
	// LastName is the new last name.
	LastName *string `json:"lastName,omitempty"`
	// Phone is the new phone number, a string or a number.
	Phone *cart.Text `json:"phone,omitempty"`
	// CustomerType is the new customer type (VIP, B2B, B2C, ...): admin
	// tokens only.
	CustomerType *string `json:"customerType,omitempty"`
	// Groups replaces the customer's groups (codes of existing groups;
	// group_not_found otherwise): admin tokens only.
	Groups *commerce.StringList `json:"groups,omitempty"`
	// Password is the new password (the rules of registration); it needs
	// currentPassword.
	Password *string `json:"password,omitempty"`
	// CurrentPassword is the password now, required to change it; a wrong
	// one counts as a failed login.
	CurrentPassword *string `json:"currentPassword,omitempty"`
	// Locale is the customer's new language, one of --locales.
	Locale *string `json:"locale,omitempty"`
}

// AddAddressInput is the argument of customer.addAddress.
type AddAddressInput struct {
	// ID is the customer's id (admin tokens); absent, the token's own
	// customer.
	ID string `json:"id"`
	// Address is the address to add.
	Address *AddressArg `json:"address,omitempty" openapi:"required"`
}

// AddressArg is an address argument: a cart address object plus the
// optional Boolean `default`, decoded by the transport as every argument
// (exact field names, typed values).
type AddressArg struct {
	cart.AddressArg
	// Default makes the address the customer's default one (the others'
	// lose it).
	Default bool `json:"default,omitempty"`
}

// RemoveAddressInput is the argument of customer.removeAddress.
type RemoveAddressInput struct {
	// ID is the customer's id (admin tokens); absent, the token's own
	// customer.
	ID string `json:"id"`
	// AddressID is the id of the address to remove.
	AddressID string `json:"addressId" openapi:"required"`
}

// ListInput is the argument of customer.list.
type ListInput struct {
	// Email matches the customers whose email matches the pattern.
	Email *commerce.Pattern `json:"email,omitempty"`
	// CustomerType matches the customers of any of these types, exactly.
	CustomerType commerce.StringList `json:"customerType,omitempty"`
	commerce.PageArgs
}

// LoginInput is the argument of auth.login.
type LoginInput struct {
	// Email is the account's email.
	Email string `json:"email" openapi:"required"`
	// Password is the account's password.
	Password string `json:"password" openapi:"required"`
	// CartID is a guest cart (an ACTIVE ANON cart) to adopt: it becomes
	// the customer's.
	CartID string `json:"cartId"`
}

// RefreshInput is the argument of auth.refresh and auth.logout.
type RefreshInput struct {
	// RefreshToken is the refresh token auth.login or auth.refresh gave.
	RefreshToken string `json:"refreshToken" openapi:"required"`
}

// RequestResetInput is the argument of auth.requestPasswordReset.
type RequestResetInput struct {
	// Email is the account's email; any email is answered alike.
	Email string `json:"email" openapi:"required,trim"`
}

// ResetInput is the argument of auth.resetPassword.
type ResetInput struct {
	// Token is the reset token of the PASSWORD_RESET event (valid for an
	// hour, once).
	Token string `json:"token" openapi:"required"`
	// Password is the new password (the rules of registration).
	Password string `json:"password" openapi:"required"`
}

// ClientCreateInput is the argument of client.create.
type ClientCreateInput struct {
	// Name names the client (for people).
	Name *string `json:"name,omitempty" openapi:"required"`
	// Scope is the scope of the client's tokens: api or admin.
	Scope *string `json:"scope,omitempty" openapi:"required,enum=api|admin"`
	// Role is the role of an admin client's tokens: owner, admin (when absent), catalog, orders or support.
	Role *string `json:"role,omitempty"`
}

// ClientListInput is the argument of client.list.
type ClientListInput struct {
	commerce.PageArgs
}

// ClientRemoveInput is the argument of client.remove.
type ClientRemoveInput struct {
	// ID is the client's id.
	ID string `json:"id" openapi:"required"`
}

// GroupInput is the argument of group.create and group.update.
type GroupInput struct {
	// Code is the group's code ([A-Z0-9_-]{1,40}), unique
	// (duplicate_key); group.update names the group by it.
	Code string `json:"code" openapi:"required"`
	// Title is the group's name for people (group.create: default the
	// code).
	Title *string `json:"title,omitempty"`
}

// GroupCodeInput names a group (group.remove).
type GroupCodeInput struct {
	// Code is the group's code.
	Code string `json:"code" openapi:"required"`
}

// GroupListInput is the argument of group.list: a page of groups in
// creation order.
type GroupListInput struct {
	commerce.PageArgs
}
