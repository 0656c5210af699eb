package promotion

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/table"
)

// Store keeps the promotions and their uses (implemented by package
// sqldb). Reads outside
// a transaction see committed data; changes go through Update.
//
// Every change of a promotion also increases a version number in the same
// transaction (the Tx's writes do it), which tells every process sharing
// the database that its cache of active promotions is out of date (see
// Service). Versions follow commit order: a process that reads version v,
// then the active promotions, sees every change up to v.
type Store interface {
	// Update runs fn in one write transaction (see table.Store).
	table.Store[Tx]

	// Promotion returns the promotion with the id.
	// Errors: promotion_not_found (see NotFound).
	Promotion(ctx context.Context, id string) (Promotion, error)
	// Promotions returns the promotions matching f in creation order,
	// f.Skip skipped and at most f.Limit. Errors: validation_error naming
	// the field ("title: ...") for a pattern the database cannot match as
	// RE2 does, or one that took longer than the store's time limit.
	Promotions(ctx context.Context, f Filter) ([]Promotion, error)
	// ActivePromotions returns the version number and every active
	// promotion, as of that version or later (the version is read first),
	// in evaluation order: ascending priority, then creation order. No
	// error codes of its own.
	ActivePromotions(ctx context.Context) (version int64, promos []Promotion, err error)
	// Version returns the version number, which every change of a
	// promotion increases. It is one primary-key read. No error codes of
	// its own.
	Version(ctx context.Context) (int64, error)
	// PromotionByCode returns the promotion whose code has the key
	// (CodeKey), active or not. Errors: promotion_not_found (data: key).
	PromotionByCode(ctx context.Context, key string) (Promotion, error)
	// Usage returns the current uses of the promotions with the ids (ids
	// unknown are absent), and for each the uses by customerID (none
	// counted when customerID is ""). No error codes of its own.
	Usage(ctx context.Context, ids []string, customerID string) (map[string]Usage, error)
}

// Usage is how many orders use a promotion: Count in all, Customer those
// of one customer.
type Usage struct {
	Count, Customer int
}

// Redemption is the uses of an order: the promotions that fired in the
// checkout of the cart CartID, by the customer CustomerID ("" for an ANON
// order: not counted per customer).
type Redemption struct {
	CartID       string
	CustomerID   string
	PromotionIDs []string
}

// Tx is a write transaction of the promotion area.
type Tx interface {
	// Emit queues an event, committed with the transaction.
	Emit(e event.Event)

	// Promotion returns the promotion with the id, its row locked against
	// concurrent changes until the transaction ends.
	// Errors: promotion_not_found (see NotFound).
	Promotion(ctx context.Context, id string) (Promotion, error)
	// CreatePromotion inserts p (its ID set), sets p.Seq to its creation
	// order and increases the version. Errors: duplicate_key on an id
	// clash (ids are random, so practically never).
	CreatePromotion(ctx context.Context, p *Promotion) error
	// UpdatePromotion stores p over the promotion with p.ID (every field
	// but the id, Seq and UsageCount) and increases the version.
	// Errors: promotion_not_found (see NotFound), duplicate_key (a code in
	// use, see DuplicateCode).
	UpdatePromotion(ctx context.Context, p Promotion) error
	// Redeem counts one use of each promotion of r for the order of
	// r.CartID, atomically against every concurrent redemption, in any
	// process: a promotion's count is increased only while it is below
	// its usageLimit, and a customer's uses only while below its
	// usageLimitPerCustomer (the promotion's row is locked first, so the
	// customer's count is exact). Promotions no longer stored are skipped;
	// a cart redeems a promotion at most once (a second call for the same
	// cart and promotion changes nothing). It changes no version: the
	// cache of active promotions stays valid.
	// Errors: coupon_usage_limit_reached (see LimitReached; data the
	// promotion's code, else its id), and nothing is counted then.
	Redeem(ctx context.Context, r Redemption) error
	// ReleaseRedemptions gives back the uses counted for the order of the
	// cart (order.cancel): each promotion's count goes down by one and
	// the uses are forgotten. It returns how many were released; a second
	// call releases nothing. No error codes of its own.
	ReleaseRedemptions(ctx context.Context, cartID string) (int, error)
}

// Filter selects promotions for Store.Promotions. Empty or nil fields do
// not filter.
type Filter struct {
	// IDs matches any of the ids.
	IDs []string
	// Title matches anywhere in the title, case-insensitively. It is a
	// valid pattern (commerce.Pattern.Check: the caller checks it).
	Title *commerce.Pattern
	// Active matches the flag.
	Active *bool
	// CodeKey matches the promotion whose code has the key (CodeKey).
	CodeKey *string
	// Limit and Skip page the matches, in creation order.
	Limit, Skip int
}
