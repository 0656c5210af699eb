package audit

import (
	"context"
	"time"
)

// Filter selects entries (audit.list); empty fields select all.
type Filter struct {
	Actor, Action, TargetKind, TargetID string
	From, To                            *time.Time
	Limit, Skip                         int
}

// Store reads the log (package sqldb). Entries are written by the
// storage's transactions themselves (see the package's doc); there is no
// method that changes or removes one.
type Store interface {
	// Entries returns a page of entries, newest first, and how many
	// match.
	Entries(ctx context.Context, f Filter) ([]Entry, int, error)
}
