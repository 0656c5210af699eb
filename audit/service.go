package audit

import (
	"context"
	"strings"
	"time"

	"github.com/commercekit/commerce"
)

// Service reads the audit log.
type Service struct{ store Store }

// NewService returns the service over store.
func NewService(store Store) *Service { return &Service{store: store} }

// List is the answer of audit.list.
type List struct {
	Page  commerce.Page `json:"page"`
	Total int           `json:"total"`
	Data  []Entry       `json:"data"`
}

// List returns a page of entries, newest first (audit.list). Errors:
// validation_error (a bad from, to, limit or skip).
func (s *Service) List(ctx context.Context, in ListInput) (List, error) {
	var p commerce.Problems
	page, err := in.PageArgs.Page()
	if err != nil {
		return List{}, err
	}
	f := Filter{Actor: strings.TrimSpace(in.Actor), Action: strings.TrimSpace(in.Action), Limit: page.Limit, Skip: page.Skip}
	if t := strings.TrimSpace(in.Target); t != "" {
		if kind, id, ok := strings.Cut(t, ":"); ok {
			f.TargetKind, f.TargetID = kind, id
		} else {
			f.TargetID = t
		}
	}
	f.From = parseTime(&p, "from", in.From)
	f.To = parseTime(&p, "to", in.To)
	if err := p.Err(); err != nil {
		return List{}, err
	}
	entries, total, err := s.store.Entries(ctx, f)
	if err != nil {
		return List{}, err
	}
	if entries == nil {
		entries = []Entry{}
	}
	return List{Page: page, Total: total, Data: entries}, nil
}

func parseTime(p *commerce.Problems, path string, s *string) *time.Time {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*s))
	if err != nil {
		if d, derr := time.Parse("2006-01-02", strings.TrimSpace(*s)); derr == nil {
			return &d
		}
		p.Add(path, "must be a time in RFC 3339 (2026-01-31T12:00:00Z) or a date (2026-01-31)")
		return nil
	}
	return &t
}
