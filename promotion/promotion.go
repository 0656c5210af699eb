// Package promotion is the promotion area: promotions defined by the rule
// language of docs/api.md section 7 (create, read, list, update), and the computation of
// the promotions that apply to a list of cart entries
// (promotion.cartPromotions, and Service.Evaluate for the cart in-process).
//
// The rules themselves are parsed, validated and evaluated by the pure
// package engine; this package stores them, keeps the active ones compiled
// in memory (see Service for how that cache stays fresh across processes)
// and looks up the category membership of the cart's products in the
// catalog.
package promotion

import (
	"context"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion/engine"
)

// ClassDefault is the built-in promotion class, evaluated by package
// engine. It is the only class implemented: any other is validation_error.
const ClassDefault = "default"

// Limits of promotion.cartPromotions, the same as the cart's (docs/api.md
// section 10): they bound the work of an evaluation, which grows with the
// number of units.
const (
	// MaxEntries is the most items a request may hold.
	MaxEntries = 50
	// MaxQuantity is the largest quantity of one item.
	MaxQuantity = 100
	// MaxListIDs is the most ids a promotion.list `id` filter may name.
	MaxListIDs = 1000
)

// DefaultCurrency is the currency of a v1 (plain-number) cartPromotions
// request that names none in its optional top-level `currency` argument.
const DefaultCurrency = "USD"

// Promotion is a promotion as the interface shows it: {id, title, class,
// active, priority, if, then}. If and Then are the canonical form of the
// rules that engine.Parse produced and that is stored.
type Promotion struct {
	ID       string      `json:"id"`
	Title    string      `json:"title"`
	Class    string      `json:"class"`
	Active   bool        `json:"active"`
	Priority int         `json:"priority"`
	If       engine.Rule `json:"if"`
	Then     engine.Rule `json:"then"`
	// Coupon fields (docs/api.md section 16), absent when not set. Code is
	// as created; it is unique compared by CodeKey. The promotion applies
	// from StartDate until before EndDate. UsageLimit bounds the orders
	// that use it, UsageLimitPerCustomer those of one customer (ANON
	// orders are not counted per customer); UsageCount is how many orders
	// use it now (a cancelled order gives its use back).
	Code                  *string    `json:"code,omitempty"`
	StartDate             *time.Time `json:"startDate,omitempty"`
	EndDate               *time.Time `json:"endDate,omitempty"`
	UsageLimit            *int       `json:"usageLimit,omitempty"`
	UsageLimitPerCustomer *int       `json:"usageLimitPerCustomer,omitempty"`
	UsageCount            int        `json:"usageCount"`
	// Seq is the creation order, assigned by the store; it breaks
	// priority ties and orders lists. It is not part of the JSON form.
	Seq int64 `json:"-"`
}

// CodeKey returns the comparison key of a coupon code: Unicode NFC
// (commerce.Key), lower-cased. Codes are unique and matched by their key.
func CodeKey(code string) string { return strings.ToLower(commerce.Key(code)) }

// CodeKey returns the key of p's code, "" when it has none.
func (p Promotion) CodeKey() string {
	if p.Code == nil {
		return ""
	}
	return CodeKey(*p.Code)
}

// CodeName returns what names p in a coupon error: its code as created,
// else its id.
func (p Promotion) CodeName() string {
	if p.Code != nil {
		return *p.Code
	}
	return p.ID
}

// ActiveAt reports whether p is active and within its dates at now.
func (p Promotion) ActiveAt(now time.Time) bool {
	return p.Active && (p.StartDate == nil || !now.Before(*p.StartDate)) && (p.EndDate == nil || now.Before(*p.EndDate))
}

// CouponNotFound is coupon_not_found for a code as given (data: the code).
func CouponNotFound(code string) *commerce.Error {
	return &commerce.Error{Code: commerce.ECouponNotFound, Data: code, Message: "no active coupon " + code}
}

// LimitReached is coupon_usage_limit_reached (data: the code, or the
// promotion's id when it has no code).
func LimitReached(name string) *commerce.Error {
	return &commerce.Error{Code: commerce.ECouponUsageLimitReached, Data: name, Message: "coupon " + name + " reached its usage limit"}
}

// DuplicateCode is duplicate_key for a code in use (data {index: "code",
// code}).
func DuplicateCode(code string) *commerce.Error {
	return &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": "code", "code": code},
		Message: "the code " + code + " is in use"}
}

// NotFound returns the promotion_not_found error of an id (data: the id).
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EPromotionNotFound, Data: id, Message: "no promotion with id " + id}
}

// Catalog gives the category membership of products (the catalog area,
// wired in by the app).
type Catalog interface {
	// CategoryAncestors returns, in one batch, for each product of ids
	// that exists the ids of its categories together with all their
	// ancestors. Products not found are absent from the map: they are in
	// no category, and can still match `product` rules.
	CategoryAncestors(ctx context.Context, ids []string) (map[string][]string, error)
}

// CatalogFunc adapts a function to Catalog.
type CatalogFunc func(ctx context.Context, ids []string) (map[string][]string, error)

// CategoryAncestors calls f(ctx, ids).
func (f CatalogFunc) CategoryAncestors(ctx context.Context, ids []string) (map[string][]string, error) {
	return f(ctx, ids)
}
