// Package promotion is the promotion area: promotions defined by the rule
// language of SPEC.md (create, read, list, update), and the computation of
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

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion/engine"
)

// ClassDefault is the built-in promotion class, evaluated by package
// engine. It is the only class implemented: any other is validation_error.
const ClassDefault = "default"

// Limits of promotion.cartPromotions, the same as the cart's (CONTRACT.md
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
	// Seq is the creation order, assigned by the store; it breaks
	// priority ties and orders lists. It is not part of the JSON form.
	Seq int64 `json:"-"`
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
