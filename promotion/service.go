package promotion

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/internal/table"
	"github.com/commercekit/commerce/promotion/engine"
)

// Service holds the promotion use cases: the promotion.* operations and the
// in-process evaluation the cart calls (Evaluate).
//
// The active promotions are held in memory compiled as an engine.Index
// (an internal/snapcache.Cache), so an evaluation reads nothing but the
// category membership of the cart's products. The cache follows the
// store's Version, which the store bumps in the same transaction as every
// change of a promotion:
//   - on this instance a change drops the cache right after its commit,
//     before the operation answers, so the next evaluation sees it;
//   - every instance, whoever made the change, reads the version (one
//     primary-key read) before an evaluation when it last did so
//     snapcache.Interval (500 ms) or more ago, and rebuilds the index when
//     the version moved. Evaluations that find the check due wait for the
//     one check in flight, so none uses a cache older than the interval: a
//     change made through any instance sharing the database is in use
//     everywhere within it.
type Service struct {
	store   Store
	catalog Catalog
	now     func() time.Time
	cache   *snapcache.Cache[*snapshot]
	changes table.Changes[Tx]
}

// NewService returns the service over store. catalog gives the category
// membership of products (nil: products are in no category). now is the
// clock of the events (time.Now when nil).
func NewService(store Store, catalog Catalog, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: store, catalog: catalog, now: now, cache: newCache(store)}
	s.changes = table.Changes[Tx]{Store: store, Channel: event.Promotions, Name: "promotion", Now: now, Changed: s.refresh}
	return s
}

// placeholder rules stand in for the half of a promotion's rules that an
// update does not give, to validate the given half alone.
var (
	placeholderIf   = json.RawMessage(`{"product":{"id":"p","quantity":1}}`)
	placeholderThen = json.RawMessage(`{"product":{"id":"p","quantity":1,"discount":{"rate":0}}}`)
)

// New validates a promotion.create request and returns the promotion it
// describes, with a new id: title must be a non-empty string, class
// `default`, active a boolean, priority an integer (any sign; lower is
// evaluated first), if and then rules as docs/api.md section 7 item 8 says.
// Every problem is reported in one validation_error.
func New(in CreateInput) (Promotion, error) {
	var problems commerce.Problems
	p := Promotion{ID: commerce.NewID()}
	switch {
	case in.Title == nil:
		problems.Add("title", "required")
	case strings.TrimSpace(*in.Title) == "":
		problems.Add("title", "must not be empty")
	default:
		p.Title = *in.Title
		problems.CheckLen("title", p.Title, commerce.MaxTitleLen)
	}
	switch {
	case in.Class == nil:
		problems.Add("class", "required")
	case *in.Class != ClassDefault:
		problems.Add("class", "unknown class %q (implemented: %s)", *in.Class, ClassDefault)
	default:
		p.Class = *in.Class
	}
	if in.Active == nil {
		problems.Add("active", "required")
	} else {
		p.Active = *in.Active
	}
	if in.Priority == nil {
		problems.Add("priority", "required")
	} else {
		p.Priority = *in.Priority
	}
	rules, err := engine.Parse(in.If, in.Then)
	problems.AddErr(err)
	in.Coupon.apply(&problems, &p, false)
	if err := problems.Err(); err != nil {
		return Promotion{}, err
	}
	p.If, p.Then = rules.If, rules.Then
	return p, nil
}

// Create validates (see New) and stores a promotion, and emits CREATE on
// PROMOTIONS with {new, data} in the same transaction.
func (s *Service) Create(ctx context.Context, in CreateInput) (Promotion, error) {
	p, err := New(in)
	if err != nil {
		return Promotion{}, err
	}
	return table.Create(ctx, s.changes, in, p, func(tx Tx, p *Promotion) error {
		return duplicateCode(tx.CreatePromotion(ctx, p), *p)
	})
}

// Info returns the promotion with the id, or promotion_not_found (data:
// the id).
func (s *Service) Info(ctx context.Context, id string) (Promotion, error) {
	if id == "" {
		return Promotion{}, commerce.Invalid("id: required")
	}
	return s.store.Promotion(ctx, id)
}

// Update changes the fields given (a partial update) and emits UPDATE on
// PROMOTIONS with {data, old, new}, atomically: concurrent updates of one
// promotion are serialised, none lost. A new `if` is validated with the
// stored `then` and the reverse. An update that gives no field is
// validation_error (it would change nothing). Unknown id:
// promotion_not_found (data: the id).
func (s *Service) Update(ctx context.Context, in UpdateInput) (Promotion, error) {
	var problems commerce.Problems
	if in.ID == "" {
		problems.Add("id", "required")
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		problems.Add("title", "must not be empty")
	} else if in.Title != nil {
		problems.CheckLen("title", *in.Title, commerce.MaxTitleLen)
	}
	if in.If != nil || in.Then != nil {
		// Check the given rules before touching the store; the half not
		// given is stored, hence valid, and is stood in for here.
		ifJSON, thenJSON := placeholderIf, placeholderThen
		if in.If != nil {
			ifJSON = *in.If
		}
		if in.Then != nil {
			thenJSON = *in.Then
		}
		_, err := engine.Parse(ifJSON, thenJSON)
		problems.AddErr(err)
	}
	if in.ID != "" && in.Title == nil && in.Active == nil && in.Priority == nil && in.If == nil && in.Then == nil && !in.Coupon.given() {
		problems.Add("body", "give at least one of title, active, priority, if, then, code, startDate, endDate, usageLimit, usageLimitPerCustomer")
	}
	// The coupon fields alone (the dates are checked again with the stored
	// ones).
	in.Coupon.apply(&problems, &Promotion{}, true)
	if err := problems.Err(); err != nil {
		return Promotion{}, err
	}
	return table.Update(ctx, s.changes, in, in.ID, func(tx Tx, id string) (Promotion, error) { return tx.Promotion(ctx, id) },
		in.apply, func(tx Tx, p Promotion) error { return duplicateCode(tx.UpdatePromotion(ctx, p), p) })
}

// apply returns old with the fields of in; the rules given are parsed with
// the stored half they go with.
func (in UpdateInput) apply(old Promotion) (Promotion, error) {
	p := old
	if in.Title != nil {
		p.Title = *in.Title
	}
	if in.Active != nil {
		p.Active = *in.Active
	}
	if in.Priority != nil {
		p.Priority = *in.Priority
	}
	var problems commerce.Problems
	in.Coupon.apply(&problems, &p, true)
	if err := problems.Err(); err != nil {
		return Promotion{}, err
	}
	if in.If == nil && in.Then == nil {
		return p, nil
	}
	var ifJSON, thenJSON json.RawMessage
	var err error
	if in.If != nil {
		ifJSON = *in.If
	} else if ifJSON, err = json.Marshal(old.If); err != nil {
		return Promotion{}, fmt.Errorf("stored if rule: %w", err)
	}
	if in.Then != nil {
		thenJSON = *in.Then
	} else if thenJSON, err = json.Marshal(old.Then); err != nil {
		return Promotion{}, fmt.Errorf("stored then rule: %w", err)
	}
	rules, err := engine.Parse(ifJSON, thenJSON)
	if err != nil {
		return Promotion{}, err
	}
	p.If, p.Then = rules.If, rules.Then
	return p, nil
}

// duplicateCode names the code of p in a duplicate_key error (the id is
// random: a clash is the code's).
func duplicateCode(err error, p Promotion) error {
	if commerce.ErrorCode(err) == commerce.EDuplicateKey && p.Code != nil {
		return DuplicateCode(*p.Code)
	}
	return err
}

// ListResult is the response of promotion.list: Promotions, or maps of
// the requested fields.
type ListResult = commerce.List

// List returns the promotions matching in, in creation order. Paging out
// of range, too many ids or an invalid title pattern is validation_error;
// so is a pattern the store cannot match (see Store.Promotions).
func (s *Service) List(ctx context.Context, in ListInput) (ListResult, error) {
	var problems commerce.Problems
	page, err := in.Page()
	problems.AddErr(err)
	if len(in.ID) > MaxListIDs {
		problems.Add("id", "at most %d ids", MaxListIDs)
	}
	problems.CheckPattern("title", in.Title)
	if err := problems.Err(); err != nil {
		return ListResult{}, err
	}
	f := Filter{IDs: in.ID, Title: in.Title, Active: in.Active, Limit: page.Limit, Skip: page.Skip}
	if in.Code != nil {
		key := CodeKey(*in.Code)
		f.CodeKey = &key
	}
	promos, err := s.store.Promotions(ctx, f)
	return table.List("promotions", page, in.Fields, promos, err)
}
