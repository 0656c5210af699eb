package promotion

import (
	"encoding/json"

	"github.com/commercekit/commerce"
)

// CreateInput is the argument of promotion.create: every field is
// required (nil, or a JSON null, is absent). If and Then are the rule
// language as given, which engine.Parse reads and validates; the CREATE
// event's `data` is the input as given.
type CreateInput struct {
	// Title names the promotion (shown in carts' discounts).
	Title *string `json:"title,omitempty" openapi:"required"`
	// Class is the promotion's class: default.
	Class *string `json:"class,omitempty" openapi:"required,enum=default"`
	// Active says whether the promotion applies to carts.
	Active *bool `json:"active,omitempty" openapi:"required"`
	// Priority orders the evaluation: ascending, ties in creation order.
	Priority *int `json:"priority,omitempty" openapi:"required"`
	// If is the condition, in the rule language: exactly one of category,
	// product, all, any.
	If json.RawMessage `json:"if,omitempty" openapi:"required"`
	// Then is the discount, in the rule language: exactly one of category,
	// product, all, any, shipping.
	Then json.RawMessage `json:"then,omitempty" openapi:"required"`
	Coupon
}

// Coupon is the optional coupon fields of promotion.create and
// promotion.update (docs/api.md section 16): a code (unique,
// case-insensitive; on update "" removes it), startDate and endDate
// (RFC 3339), usageLimit and usageLimitPerCustomer (positive integers).
// The dates are strings the service parses, not times the transport
// decodes, so that a bad date is listed in one answer with the request's
// other problems (CONVENTIONS.md, "Inputs and validation").
type Coupon struct {
	// Code is the coupon code (unique, case-insensitive): the promotion
	// applies only to carts holding it. On update "" removes it.
	Code *string `json:"code,omitempty"`
	// StartDate is when the promotion starts to apply (RFC 3339).
	StartDate *string `json:"startDate,omitempty" openapi:"format=date-time"`
	// EndDate is when it stops applying (RFC 3339, exclusive).
	EndDate *string `json:"endDate,omitempty" openapi:"format=date-time"`
	// UsageLimit is the most orders the promotion may apply to.
	UsageLimit *int `json:"usageLimit,omitempty" openapi:"min=1"`
	// UsageLimitPerCustomer is the most orders of one customer it may
	// apply to (ANON carts are not limited).
	UsageLimitPerCustomer *int `json:"usageLimitPerCustomer,omitempty" openapi:"min=1"`
}

// UpdateInput is the argument of promotion.update: the id, and any of the
// changeable fields (nil, or a JSON null, is unchanged). The class cannot
// change (a `class` field is an unknown field).
type UpdateInput struct {
	// ID is the promotion's id.
	ID string `json:"id" openapi:"required"`
	// Title is the new title.
	Title *string `json:"title,omitempty"`
	// Active turns the promotion on or off.
	Active *bool `json:"active,omitempty"`
	// Priority is the new priority (ascending order of evaluation).
	Priority *int `json:"priority,omitempty"`
	// If is the new condition, in the rule language.
	If *json.RawMessage `json:"if,omitempty"`
	// Then is the new discount, in the rule language.
	Then *json.RawMessage `json:"then,omitempty"`
	Coupon
}

// ListInput is the argument of promotion.list; every filter is optional.
// id matches any of the ids (at most MaxListIDs); title is a
// case-insensitive Go RE2 pattern matching anywhere in the title; active
// matches the flag. limit (1..1000, default 10) and skip (>= 0) page the
// result, in creation order; fields (docs/api.md section 4) reduces each
// record to id plus the named fields.
type ListInput struct {
	// ID matches the promotions with any of these ids.
	ID commerce.StringList `json:"id"`
	// Title matches the promotions whose title matches the pattern.
	Title *commerce.Pattern `json:"title"`
	// Active matches the active (true) or inactive (false) promotions.
	Active *bool `json:"active"`
	// Code matches the promotion with the code, case-insensitively.
	Code *string `json:"code"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// CartInput is the argument of promotion.cartPromotions.
//
// The form is decided by the shape of items[].price, whatever the path's
// version (docs/api.md section 2): a plain number is the v1 form, a money
// object {amount, currency, precision} the v2 form; every item must use the
// same form, and the response uses it too.
//
// In the v1 form prices are in major units of Currency (an optional
// argument the original interface did not have, default USD; it gives the precision the
// prices are read with and the discounts computed in); more decimals than
// the currency has is validation_error. In the v2 form amounts are integers
// in minor units, precision must equal the currency's ISO 4217 minor unit,
// and every item must have the same currency (Currency, when given too,
// must be it).
type CartInput struct {
	// CartID is a reference the caller chooses (required, not checked
	// against the carts).
	CartID string `json:"cartId" openapi:"required"`
	// Items are the cart's entries, all with prices in one form (v1 plain
	// numbers, v2 money objects).
	Items []CartItem `json:"items" openapi:"required"`
	// Currency is the currency of v1 prices (default DefaultCurrency).
	Currency *string `json:"currency" openapi:"pattern=currency"`
	// Coupons are the coupon codes the cart holds (at most MaxCoupons):
	// promotions with a code apply only when it is among them.
	Coupons commerce.StringList `json:"coupons"`
}

// CartItem is an entry of a cartPromotions request: Quantity (default 1,
// at most MaxQuantity) units of a product at a unit price. IDs must be
// distinct within a request, since the response names entries by id.
type CartItem struct {
	// ID names the entry in the answer (distinct within the request).
	ID string `json:"id"`
	// ProductID is the product's id.
	ProductID string `json:"productId"`
	// Quantity is the number of units (default 1).
	Quantity *int `json:"quantity"`
	// Price is the unit price: a plain number in major units (v1) or a
	// money object (v2).
	Price Price `json:"price"`
}
