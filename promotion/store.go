package promotion

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Store keeps the promotions (implemented by package sqldb). Reads outside
// a transaction see committed data; changes go through Update.
//
// Every change of a promotion also increases a version number in the same
// transaction (the Tx's writes do it), which tells every process sharing
// the database that its cache of active promotions is out of date (see
// Service). Versions follow commit order: a process that reads version v,
// then the active promotions, sees every change up to v.
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may run more than once (a transient conflict of the database), so
	// it must have no effect outside the transaction.
	Update(ctx context.Context, fn func(tx Tx) error) error

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
	// PromotionsVersion returns the version number, which every change of
	// a promotion increases. It is one primary-key read. No error codes of
	// its own.
	PromotionsVersion(ctx context.Context) (int64, error)
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
	// but the id and Seq) and increases the version.
	// Errors: promotion_not_found (see NotFound).
	UpdatePromotion(ctx context.Context, p Promotion) error
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
	// Limit and Skip page the matches, in creation order.
	Limit, Skip int
}
