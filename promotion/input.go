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
	Title    *string         `json:"title,omitempty"`
	Class    *string         `json:"class,omitempty"`
	Active   *bool           `json:"active,omitempty"`
	Priority *int            `json:"priority,omitempty"`
	If       json.RawMessage `json:"if,omitempty"`
	Then     json.RawMessage `json:"then,omitempty"`
	Coupon
}

// Coupon is the optional coupon fields of promotion.create and
// promotion.update (CONTRACT.md section 16): a code (unique,
// case-insensitive; on update "" removes it), startDate and endDate
// (RFC 3339), usageLimit and usageLimitPerCustomer (positive integers).
// The dates are strings the service parses, not times the transport
// decodes, so that a bad date is listed in one answer with the request's
// other problems (CONVENTIONS.md, "Inputs and validation").
type Coupon struct {
	Code                  *string `json:"code,omitempty"`
	StartDate             *string `json:"startDate,omitempty"`
	EndDate               *string `json:"endDate,omitempty"`
	UsageLimit            *int    `json:"usageLimit,omitempty"`
	UsageLimitPerCustomer *int    `json:"usageLimitPerCustomer,omitempty"`
}

// UpdateInput is the argument of promotion.update: the id, and any of the
// changeable fields (nil, or a JSON null, is unchanged). The class cannot
// change (a `class` field is an unknown field).
type UpdateInput struct {
	ID       string           `json:"id"`
	Title    *string          `json:"title,omitempty"`
	Active   *bool            `json:"active,omitempty"`
	Priority *int             `json:"priority,omitempty"`
	If       *json.RawMessage `json:"if,omitempty"`
	Then     *json.RawMessage `json:"then,omitempty"`
	Coupon
}

// ListInput is the argument of promotion.list; every filter is optional.
// id matches any of the ids (at most MaxListIDs); title is a
// case-insensitive Go RE2 pattern matching anywhere in the title; active
// matches the flag. limit (1..1000, default 10) and skip (>= 0) page the
// result, in creation order; fields (CONTRACT.md section 4) reduces each
// record to id plus the named fields.
type ListInput struct {
	ID     commerce.StringList `json:"id"`
	Title  *commerce.Pattern   `json:"title"`
	Active *bool               `json:"active"`
	// Code matches the promotion with the code, case-insensitively.
	Code   *string             `json:"code"`
	Fields commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// CartInput is the argument of promotion.cartPromotions.
//
// The form is decided by the shape of items[].price, whatever the path's
// version (CONTRACT.md section 2): a plain number is the v1 form, a money
// object {amount, currency, precision} the v2 form; every item must use the
// same form, and the response uses it too.
//
// In the v1 form prices are in major units of Currency (an optional
// argument SPEC.md does not have, default USD; it gives the precision the
// prices are read with and the discounts computed in); more decimals than
// the currency has is validation_error. In the v2 form amounts are integers
// in minor units, precision must equal the currency's ISO 4217 minor unit,
// and every item must have the same currency (Currency, when given too,
// must be it).
type CartInput struct {
	// CartID is a reference the caller chooses (required, not checked
	// against the carts).
	CartID string     `json:"cartId"`
	Items  []CartItem `json:"items"`
	// Currency is the currency of v1 prices (default DefaultCurrency).
	Currency *string `json:"currency"`
	// Coupons are the coupon codes the cart holds (at most MaxCoupons):
	// promotions with a code apply only when it is among them.
	Coupons commerce.StringList `json:"coupons"`
}

// CartItem is an entry of a cartPromotions request: Quantity (default 1,
// at most MaxQuantity) units of a product at a unit price. IDs must be
// distinct within a request, since the response names entries by id.
type CartItem struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	Quantity  *int   `json:"quantity"`
	Price     Price  `json:"price"`
}
