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
	"bytes"
	"context"
	"encoding/json"
	"regexp"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
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

// Filter selects promotions for Store.Promotions. Empty or nil fields do
// not filter.
type Filter struct {
	// IDs matches any of the ids.
	IDs []string
	// Title matches anywhere in the title. It is applied in Go rather than
	// in SQL so that the syntax is exactly Go RE2 on every database
	// (PostgreSQL's ~* is not RE2).
	Title *regexp.Regexp
	// Active matches the flag.
	Active *bool
	// Limit and Skip page the matches, in creation order.
	Limit, Skip int
}

// Store keeps the promotions (implemented by package sqldb). Every change
// also bumps a version number in the same transaction, which tells every
// process sharing the database that its cache of active promotions is out
// of date (see Service).
type Store interface {
	// CreatePromotion stores p (ID set) and writes the events, in one
	// transaction, and returns p with its Seq. Errors: duplicate_key on an
	// id clash (ids are random, so practically never).
	CreatePromotion(ctx context.Context, p Promotion, events []event.Event) (Promotion, error)
	// Promotion returns the promotion with the id. Errors:
	// promotion_not_found (see NotFound).
	Promotion(ctx context.Context, id string) (Promotion, error)
	// UpdatePromotion reads the promotion with the id, locked against
	// concurrent changes, and stores the promotion change returns, with
	// the events it returns, in one transaction; it returns the stored
	// promotion. change may run more than once (a retried transaction) and
	// must be repeatable. Errors: promotion_not_found (see NotFound), or
	// change's error with nothing stored.
	UpdatePromotion(ctx context.Context, id string, change func(old Promotion) (Promotion, []event.Event, error)) (Promotion, error)
	// Promotions returns the promotions matching f in creation order,
	// f.Skip skipped and at most f.Limit. No error codes of its own.
	Promotions(ctx context.Context, f Filter) ([]Promotion, error)
	// ActivePromotions returns the version number and every active
	// promotion, as of that version or later (the version is read first),
	// in evaluation order: ascending priority, then creation order. No
	// error codes of its own.
	ActivePromotions(ctx context.Context) (version int64, promos []Promotion, err error)
	// PromotionsVersion returns the version number, which every change
	// of a promotion increases. It is one primary-key read. No error codes
	// of its own.
	PromotionsVersion(ctx context.Context) (int64, error)
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

// isNull reports an absent or null JSON value: a null optional field
// means the field is absent (CONTRACT.md section 2).
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// isNumber tells a JSON number from anything else, a string holding one
// included.
func isNumber(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9')
}

// integer reads a JSON number with an integral value (5, 5.0, 5e0) that
// fits in an int64.
func integer(raw json.RawMessage) (int64, bool) {
	if !isNumber(raw) {
		return 0, false
	}
	d, err := money.ParseDecimal(string(bytes.TrimSpace(raw)))
	if err != nil || d.Scale != 0 {
		return 0, false
	}
	return d.Units, true
}
