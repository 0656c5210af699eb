package customer

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Group is a customer group (docs/api.md section 26): price lists name
// the groups they are for, customers belong to groups.
type Group struct {
	Code      string    `json:"code"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
}

// GroupCode is the shape of a group's code.
var GroupCode = regexp.MustCompile(`^[A-Z0-9_-]{1,40}$`)

// The area's own event types on event.Customers for groups (the
// customers' CREATE, UPDATE and REMOVE carry a customer).
const (
	GroupCreate = "GROUP_CREATE"
	GroupUpdate = "GROUP_UPDATE"
	GroupRemove = "GROUP_REMOVE"
)

// GroupNotFound is group_not_found, data the code.
func GroupNotFound(code string) *commerce.Error {
	return &commerce.Error{Code: commerce.EGroupNotFound, Data: code, Message: "no customer group " + code}
}

// CreateGroup is group.create (admin): GROUP_CREATE on CUSTOMERS {group}.
// Errors: validation_error, duplicate_key (data {index: "code", code}).
func (s *Service) CreateGroup(ctx context.Context, in GroupInput) (*Group, error) {
	var p commerce.Problems
	code := strings.TrimSpace(in.Code)
	if !GroupCode.MatchString(code) {
		p.Add("code", "must be 1 to 40 characters of A-Z, 0-9, _ and -")
	}
	title := code
	if in.Title != nil {
		title = strings.TrimSpace(*in.Title)
		checkText(&p, "title", title, true)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	now := s.clock().UTC().Truncate(time.Millisecond)
	g := &Group{Code: code, Title: title, CreatedAt: now}
	err := s.store.Update(ctx, func(tx Tx) error {
		if _, err := tx.LockGroup(ctx, code); err == nil {
			return duplicateGroup(code)
		} else if commerce.ErrorCode(err) != commerce.EGroupNotFound {
			return err
		}
		if err := tx.InsertGroup(ctx, g); err != nil {
			if commerce.ErrorCode(err) == commerce.EDuplicateKey {
				return duplicateGroup(code)
			}
			return err
		}
		return event.Emit(tx, event.Customers, GroupCreate, now, map[string]any{"group": g})
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func duplicateGroup(code string) error {
	return &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": "code", "code": code},
		Message: "a customer group with code " + code + " exists"}
}

// UpdateGroup is group.update (admin): the title of the group named by
// code; GROUP_UPDATE on CUSTOMERS {group}. Errors: validation_error,
// group_not_found (data: the code).
func (s *Service) UpdateGroup(ctx context.Context, in GroupInput) (*Group, error) {
	var p commerce.Problems
	p.CheckArgs("", in) // code
	if in.Title != nil {
		checkText(&p, "title", strings.TrimSpace(*in.Title), true)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	var out *Group
	err := s.store.Update(ctx, func(tx Tx) error {
		g, err := tx.LockGroup(ctx, in.Code)
		if err != nil {
			return err
		}
		if in.Title != nil {
			g.Title = strings.TrimSpace(*in.Title)
		}
		if err := tx.SaveGroup(ctx, g); err != nil {
			return err
		}
		out = g
		return event.Emit(tx, event.Customers, GroupUpdate, s.clock().UTC(), map[string]any{"group": g})
	})
	return out, err
}

// RemoveGroup is group.remove (admin): GROUP_REMOVE on CUSTOMERS {code,
// old}. Customers and price lists naming the group keep its code (and
// still match each other); customer.update refuses it until a group of
// that code is created again.
// Errors: validation_error, group_not_found (data: the code).
func (s *Service) RemoveGroup(ctx context.Context, code string) error {
	if err := commerce.CheckArgs(GroupCodeInput{Code: code}); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx Tx) error {
		g, err := tx.LockGroup(ctx, code)
		if err != nil {
			return err
		}
		if err := tx.DeleteGroup(ctx, code); err != nil {
			return err
		}
		return event.Emit(tx, event.Customers, GroupRemove, s.clock().UTC(), map[string]any{"code": code, "old": g})
	})
}

// ListGroups is group.list (admin): a page of groups in creation order.
// Errors: validation_error (the page).
func (s *Service) ListGroups(ctx context.Context, in GroupListInput) (commerce.List, error) {
	page, err := in.Page()
	if err != nil {
		return commerce.List{}, err
	}
	gs, err := s.store.Groups(ctx, page.Limit, page.Skip)
	if err != nil {
		return commerce.List{}, err
	}
	data := make([]any, len(gs))
	for i := range gs {
		data[i] = gs[i]
	}
	return commerce.List{Page: page, Data: data}, nil
}
