package pricelist

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// CreateInput is the argument of priceList.create.
type CreateInput struct {
	// Code is the list's code, unique (duplicate_key), 1 to 100
	// characters.
	Code *string `json:"code,omitempty" openapi:"required"`
	// Title is the list's name for people (default: the code).
	Title *string `json:"title,omitempty"`
	// Status is ACTIVE (the default) or DRAFT; only ACTIVE lists price.
	Status *string `json:"status,omitempty" openapi:"enum=ACTIVE|DRAFT"`
	// Groups are the customer group codes the list is for (any of them);
	// empty or absent: everyone.
	Groups commerce.StringList `json:"groups,omitempty"`
	// Channel is the only cart channel the list applies to (absent: any).
	Channel *string `json:"channel,omitempty"`
	// Country is the only country (ISO 3166-1 alpha-2) the list applies
	// to (absent: any).
	Country *string `json:"country,omitempty" openapi:"pattern=country-or-empty"`
	// Currency is the currency of the list's prices (ISO 4217), required.
	Currency *string `json:"currency,omitempty" openapi:"required,pattern=currency"`
	// ValidFrom is when the list starts to apply: an RFC 3339 date-time,
	// or a date (its start, UTC); absent: no start.
	ValidFrom *string `json:"validFrom,omitempty"`
	// ValidUntil is the last moment the list applies: an RFC 3339
	// date-time, or a date (its last millisecond, UTC); absent: no end.
	ValidUntil *string `json:"validUntil,omitempty"`
	// Priority decides between lists that match (higher wins; ties: the
	// earlier list); default 0.
	Priority *int64 `json:"priority,omitempty"`
	// Prices are the list's prices, at most one per product and
	// minQuantity.
	Prices []PriceInput `json:"prices,omitempty"`
}

// PriceInput is a price of a list.
type PriceInput struct {
	// ProductID is the product priced (product_not_found when unknown).
	ProductID string `json:"productId" openapi:"required"`
	// Amount is the unit price in major units of the list's currency.
	Amount *money.Number `json:"amount" openapi:"required"`
	// MinQuantity is the line quantity from which the price applies
	// (default 1): the tier.
	MinQuantity *int64 `json:"minQuantity,omitempty" openapi:"min=1"`
}

// PriceKey names a price of a list to remove.
type PriceKey struct {
	// ProductID is the product whose price is removed.
	ProductID string `json:"productId" openapi:"required,trim"`
	// MinQuantity is the tier removed; absent, every tier of the product.
	MinQuantity *int64 `json:"minQuantity,omitempty" openapi:"min=1"`
}

// UpdateInput is the argument of priceList.update: absent fields are
// kept. Prices replaces every price; setPrices adds or changes prices (by
// product and minQuantity) and removePrices removes some, after prices.
type UpdateInput struct {
	// ID is the list's id.
	ID string `json:"id" openapi:"required"`
	// Code is the list's new code, unique (duplicate_key).
	Code *string `json:"code,omitempty"`
	// Title is the list's new title.
	Title *string `json:"title,omitempty"`
	// Status is ACTIVE or DRAFT.
	Status *string `json:"status,omitempty" openapi:"enum=ACTIVE|DRAFT"`
	// Groups replaces the list's groups (an empty list: everyone).
	Groups *commerce.StringList `json:"groups,omitempty"`
	// Channel is the new channel ("" : any).
	Channel *string `json:"channel,omitempty"`
	// Country is the new country ("" : any).
	Country *string `json:"country,omitempty" openapi:"pattern=country-or-empty"`
	// Currency is the new currency of the list's prices, which are
	// checked against it.
	Currency *string `json:"currency,omitempty" openapi:"pattern=currency"`
	// ValidFrom is the new start ("" : none).
	ValidFrom *string `json:"validFrom,omitempty"`
	// ValidUntil is the new end ("" : none).
	ValidUntil *string `json:"validUntil,omitempty"`
	// Priority is the new priority.
	Priority *int64 `json:"priority,omitempty"`
	// Prices replaces all the list's prices.
	Prices *[]PriceInput `json:"prices,omitempty"`
	// SetPrices adds prices, or changes those of the same product and
	// minQuantity.
	SetPrices []PriceInput `json:"setPrices,omitempty"`
	// RemovePrices removes prices (a product's tier, or all its tiers).
	RemovePrices []PriceKey `json:"removePrices,omitempty"`
}

// IDInput names a price list (priceList.info, priceList.remove).
type IDInput struct {
	// ID is the list's id.
	ID string `json:"id" openapi:"required"`
}

// ListInput is the argument of priceList.list.
type ListInput struct {
	// Code matches the lists with any of these codes.
	Code commerce.StringList `json:"code,omitempty"`
	// Status matches the lists with any of these statuses.
	Status commerce.StringList `json:"status,omitempty"`
	// Group matches the lists for any of these groups (codes): those
	// that name one of them in their groups; a list for everyone (no
	// groups) is for no group in particular and does not match.
	Group commerce.StringList `json:"group,omitempty"`
	// ProductID matches the lists that price any of these products.
	ProductID commerce.StringList `json:"productId,omitempty"`
	commerce.PageArgs
}
