package promotion

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/promotion/engine"
)

// Service holds the promotion use cases: the promotion.* operations and the
// in-process evaluation the cart calls (Evaluate).
//
// The active promotions are held in memory compiled as an engine.Index, so
// an evaluation reads nothing but the category membership of the cart's
// products. The cache follows a version number that the store bumps in the
// same transaction as every change of a promotion:
//   - on this instance a change rebuilds the index right after its commit,
//     before the operation answers, so the next evaluation sees it;
//   - every instance, whoever made the change, reads the version (one
//     primary-key read) before an evaluation when it last did so
//     RefreshInterval or more ago, and rebuilds the index when the version
//     moved. Evaluations that find the check due wait for the one check in
//     flight, so none uses a cache older than RefreshInterval: a change
//     made through any instance sharing the PostgreSQL database is in use
//     everywhere within RefreshInterval (under a second).
//
// The swap is an atomic pointer: evaluations never block on a rebuild
// triggered by a change, and a slower rebuild never replaces a newer one.
type Service struct {
	store   Store
	catalog Catalog
	now     func() time.Time
	cache   cache
}

// NewService returns the service over store. catalog gives the category
// membership of products (nil: products are in no category). now is the
// clock of the events (time.Now when nil).
func NewService(store Store, catalog Catalog, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: store, catalog: catalog, now: now}
	s.cache.init()
	return s
}

// CreateInput is the argument of promotion.create: every field is
// required. Priority, If and Then are kept as given so that the CREATE
// event's `data` is the request data.
type CreateInput struct {
	Title    *string         `json:"title,omitempty"`
	Class    *string         `json:"class,omitempty"`
	Active   *bool           `json:"active,omitempty"`
	Priority json.RawMessage `json:"priority,omitempty"`
	If       json.RawMessage `json:"if,omitempty"`
	Then     json.RawMessage `json:"then,omitempty"`
}

// UpdateInput is the argument of promotion.update: the id, and any of the
// changeable fields (absent or null: unchanged). The class cannot change
// (a `class` field is an unknown field).
type UpdateInput struct {
	ID       string          `json:"id"`
	Title    *string         `json:"title,omitempty"`
	Active   *bool           `json:"active,omitempty"`
	Priority json.RawMessage `json:"priority,omitempty"`
	If       json.RawMessage `json:"if,omitempty"`
	Then     json.RawMessage `json:"then,omitempty"`
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
// evaluated first), if and then rules as CONTRACT.md section 7 item 8 says.
// Every problem is reported in one validation_error.
func New(in CreateInput) (Promotion, error) {
	var problems []string
	p := Promotion{ID: commerce.NewID()}
	switch {
	case in.Title == nil:
		problems = append(problems, "title: required")
	case strings.TrimSpace(*in.Title) == "":
		problems = append(problems, "title: must not be empty")
	default:
		p.Title = *in.Title
	}
	switch {
	case in.Class == nil:
		problems = append(problems, "class: required")
	case *in.Class != ClassDefault:
		problems = append(problems, fmt.Sprintf("class: unknown class %q (implemented: %s)", *in.Class, ClassDefault))
	default:
		p.Class = *in.Class
	}
	if in.Active == nil {
		problems = append(problems, "active: required")
	} else {
		p.Active = *in.Active
	}
	if isNull(in.Priority) {
		problems = append(problems, "priority: required")
	} else if v, ok := priority(in.Priority); !ok {
		problems = append(problems, "priority: must be an integer")
	} else {
		p.Priority = v
	}
	rules, err := engine.Parse(in.If, in.Then)
	if err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	}
	if len(problems) > 0 {
		return Promotion{}, commerce.Invalid(problems...)
	}
	p.If, p.Then = rules.If, rules.Then
	return p, nil
}

// Create validates (see New) and stores a promotion, and emits CREATE on
// PROMOTIONS with {new, data}.
func (s *Service) Create(ctx context.Context, in CreateInput) (Promotion, error) {
	p, err := New(in)
	if err != nil {
		return Promotion{}, err
	}
	ev, err := event.New(event.Promotions, event.Create, s.now(), map[string]any{"new": p, "data": in})
	if err != nil {
		return Promotion{}, err
	}
	p, err = s.store.CreatePromotion(ctx, p, []event.Event{ev})
	if err != nil {
		return Promotion{}, fmt.Errorf("create promotion: %w", err)
	}
	s.changed(ctx)
	return p, nil
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
	var problems []string
	if in.ID == "" {
		problems = append(problems, "id: required")
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		problems = append(problems, "title: must not be empty")
	}
	prio, hasPrio := 0, !isNull(in.Priority)
	if hasPrio {
		var ok bool
		if prio, ok = priority(in.Priority); !ok {
			problems = append(problems, "priority: must be an integer")
		}
	}
	hasIf, hasThen := !isNull(in.If), !isNull(in.Then)
	if hasIf || hasThen {
		// Check the given rules before touching the store; the half not
		// given is stored, hence valid, and is stood in for here.
		ifJSON, thenJSON := placeholderIf, placeholderThen
		if hasIf {
			ifJSON = in.If
		}
		if hasThen {
			thenJSON = in.Then
		}
		if _, err := engine.Parse(ifJSON, thenJSON); err != nil {
			problems = append(problems, commerce.ProblemsOf(err)...)
		}
	}
	if in.ID != "" && in.Title == nil && in.Active == nil && !hasPrio && !hasIf && !hasThen {
		problems = append(problems, "body: give at least one of title, active, priority, if, then")
	}
	if len(problems) > 0 {
		return Promotion{}, commerce.Invalid(problems...)
	}
	p, err := s.store.UpdatePromotion(ctx, in.ID, func(old Promotion) (Promotion, []event.Event, error) {
		p := old
		if in.Title != nil {
			p.Title = *in.Title
		}
		if in.Active != nil {
			p.Active = *in.Active
		}
		if hasPrio {
			p.Priority = prio
		}
		if hasIf || hasThen {
			ifJSON, thenJSON := in.If, in.Then
			if !hasIf {
				ifJSON, _ = json.Marshal(old.If)
			}
			if !hasThen {
				thenJSON, _ = json.Marshal(old.Then)
			}
			rules, err := engine.Parse(ifJSON, thenJSON)
			if err != nil {
				return Promotion{}, nil, err
			}
			p.If, p.Then = rules.If, rules.Then
		}
		ev, err := event.New(event.Promotions, event.Update, s.now(), map[string]any{"data": in, "old": old, "new": p})
		if err != nil {
			return Promotion{}, nil, err
		}
		return p, []event.Event{ev}, nil
	})
	if err != nil {
		return Promotion{}, fmt.Errorf("update promotion: %w", err)
	}
	s.changed(ctx)
	return p, nil
}

// ListInput is the argument of promotion.list; every filter is optional.
// id matches any of the ids (at most MaxListIDs); title is a
// case-insensitive Go RE2 pattern matching anywhere in the title; active
// matches the flag. limit (1..1000, default 10) and skip (>= 0) page the
// result, in creation order; fields (CONTRACT.md section 4) reduces each
// record to id plus the named fields.
type ListInput struct {
	ID     commerce.StringList `json:"id"`
	Title  *string             `json:"title"`
	Active *bool               `json:"active"`
	Fields commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// ListResult is the response of promotion.list: Promotions, or maps of
// the requested fields.
type ListResult = commerce.List

// List returns the promotions matching in, in creation order. An invalid
// pattern, paging out of range or too many ids is validation_error.
func (s *Service) List(ctx context.Context, in ListInput) (ListResult, error) {
	page, err := in.PageArgs.Page()
	var problems []string
	if err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	}
	f := Filter{IDs: in.ID, Active: in.Active, Limit: page.Limit, Skip: page.Skip}
	if len(in.ID) > MaxListIDs {
		problems = append(problems, fmt.Sprintf("id: at most %d ids", MaxListIDs))
	}
	if in.Title != nil {
		re, err := regexp.Compile("(?i)" + *in.Title)
		if err != nil {
			problems = append(problems, "title: invalid regular expression: "+err.Error())
		}
		f.Title = re
	}
	if len(problems) > 0 {
		return ListResult{}, commerce.Invalid(problems...)
	}
	promos, err := s.store.Promotions(ctx, f)
	if err != nil {
		return ListResult{}, fmt.Errorf("list promotions: %w", err)
	}
	data, err := commerce.ProjectAll(promos, in.Fields)
	if err != nil {
		return ListResult{}, fmt.Errorf("list promotions: %w", err)
	}
	return ListResult{Page: page, Data: data}, nil
}

// priority reads an integral JSON number that fits in an int.
func priority(raw json.RawMessage) (int, bool) {
	v, ok := integer(raw)
	return int(v), ok && int64(int(v)) == v
}
