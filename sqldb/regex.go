package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
)

// DefaultRegexTimeout is how long a read with regex conditions
// (RegexView) may run when the configuration does not say.
const DefaultRegexTimeout = 2 * time.Second

// maxStorePattern is the longest pattern Regex takes: the transport's
// limit (commerce.MaxPatternLen) with room for the anchors a store adds
// around a filter ("^(?:" + path + ")").
const maxStorePattern = commerce.MaxPatternLen + 32

// ErrPatternTimeout is in the chain of the error of a RegexView that ran
// out of its time limit. That error is a validation_error whose data is
// the one problem "pattern took too long to match": the store does not
// know the request's field names, so a store that does (the catalog's)
// replaces it with "<field>: pattern took too long to match" for the
// regex fields of the request.
var ErrPatternTimeout = errors.New("pattern took too long to match")

// A DeadlineArg is a statement argument whose value depends on the time
// limit of the RegexView it runs in: the argument of a regex condition of
// a database that matches in the process (SQLite's regexp function runs
// Go's regexp, and SQLite sees an interrupt only between rows), which
// must stop a match of one long row at the limit itself. A statement of a
// RegexView with a limit passes Bind(deadline) in its place; any other
// passes the argument as it is, whose Value has no limit.
type DeadlineArg interface {
	driver.Valuer
	// Bind returns the argument's value for a read that must end by
	// deadline.
	Bind(deadline time.Time) any
}

// errRegexLimit is the cause of the cancellation of a RegexView at its
// time limit.
var errRegexLimit = errors.New("regex read time limit")

// regexGrace is how much longer than the database's own statement limit
// the context of a RegexView lasts, as a backstop that does not pre-empt
// the database's cleaner cancellation.
const regexGrace = time.Second

// SetRegexTimeout sets the time limit of each RegexView:
// DefaultRegexTimeout when d is 0, no limit when d is negative.
func (db *DB) SetRegexTimeout(d time.Duration) {
	if d == 0 {
		d = DefaultRegexTimeout
	}
	db.regexTimeout.Store(int64(d))
}

// RegexTimeout returns the time limit of each RegexView (negative: none).
func (db *DB) RegexTimeout() time.Duration { return time.Duration(db.regexTimeout.Load()) }

// Regex returns the condition matching the text expression col against
// an RE2 pattern, case-insensitively and anywhere (Dialect.Regex), and its
// argument. A pattern longer than the transport allows (with room for a
// store's anchors) is refused, as is one the database cannot match as RE2
// does: the error is a message for the client, the caller names the field.
// Queries using it run in RegexView.
func (db *DB) Regex(col, pattern string) (cond string, arg any, err error) {
	if len(pattern) > maxStorePattern {
		return "", nil, fmt.Errorf("must be a regular expression of at most %d bytes", commerce.MaxPatternLen)
	}
	return db.dialect.Regex(col, pattern)
}

// RegexView runs fn, whose queries have regex conditions (Regex), in a
// read-only transaction on a pool of a few connections of its own (so
// that slow matches leave the other reads their connections), under the
// time limit RegexTimeout: the database's own statement limit where it
// has one (Dialect.LimitStatements), the context's deadline otherwise
// (SQLite interrupts a statement whose context ends, but only between
// rows: the argument of its regex condition, a DeadlineArg, is bound to
// the limit, so that a match of one long row stops there too). A read
// stopped at the limit returns a validation_error with ErrPatternTimeout
// in its chain (see ErrPatternTimeout); the time spent waiting for a
// connection counts.
func (db *DB) RegexView(ctx context.Context, fn func(tx *Tx) error) error {
	limit := db.RegexTimeout()
	if limit < 0 {
		return db.view(ctx, db.regex, fn)
	}
	deadline := time.Now().Add(limit)
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := time.AfterFunc(limit, func() { cancel(errRegexLimit) })
	defer func() { stop.Stop() }()
	stx, err := db.regex.BeginTx(lctx, db.dialect.ReadOnly())
	if err != nil {
		return db.regexError(ctx, lctx, db.translate(fmt.Errorf("begin: %w", err)))
	}
	defer stx.Rollback()
	enforced, err := db.dialect.LimitStatements(lctx, stx, limit)
	if err != nil {
		return db.regexError(ctx, lctx, db.translate(fmt.Errorf("statement limit: %w", err)))
	}
	if enforced && stop.Stop() {
		// The database stops the statements; the context is a backstop.
		stop = time.AfterFunc(limit+regexGrace, func() { cancel(errRegexLimit) })
	}
	if err := fn(&Tx{tx: stx, db: db, base: ctx, limited: lctx, deadline: deadline}); err != nil {
		return db.regexError(ctx, lctx, db.translate(err))
	}
	return db.regexError(ctx, lctx, db.translate(stx.Commit()))
}

// regexError turns the error of a RegexView stopped by its time limit
// into the pattern timeout; the request's own end (ctx) is left as is.
func (db *DB) regexError(ctx, lctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if errors.Is(context.Cause(lctx), errRegexLimit) || errors.Is(err, ErrStatementCanceled) {
		return &commerce.Error{Code: commerce.EValidation, Data: []string{ErrPatternTimeout.Error()},
			Message: fmt.Sprintf("%v after %v: %v", ErrPatternTimeout, db.RegexTimeout(), err),
			Err:     fmt.Errorf("%w: %w", ErrPatternTimeout, err)}
	}
	return err
}

// Stats are the statistics of the connection pools and of the write path.
type Stats struct {
	Write, Read, Regex sql.DBStats
	// Queued is how many write transactions wait for their turn.
	Queued int64
	// Transactions is how many write transactions committed; Commits how
	// many physical commits they took (fewer with group commit).
	Transactions, Commits int64
}

// Stats returns the statistics of the connection pools and of the write
// path (for metrics and tests).
func (db *DB) Stats() Stats {
	s := Stats{Write: db.write.Stats(), Read: db.read.Stats(), Regex: db.regex.Stats(),
		Transactions: db.transactions.Load(), Commits: db.commits.Load()}
	switch {
	case db.writer != nil:
		s.Queued = int64(len(db.writer.queue))
	case db.admit != nil:
		s.Queued = db.admit.waiting.Load()
	}
	return s
}
