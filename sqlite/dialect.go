package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/commercekit/commerce/sqldb"
)

// Dialect is SQLite's sqldb.Dialect. Write transactions are serialised
// (one writer connection, BEGIN IMMEDIATE), so rows need no lock and the
// outbox no ordering lock.
type Dialect struct {
	// CommonSQL is the spelling SQLite shares with PostgreSQL: Upsert
	// (INSERT ... ON CONFLICT), Returning, CastText, Concat (||),
	// Materialized.
	sqldb.CommonSQL
	path string // the database file; leader election locks a file next to it
}

var _ sqldb.Dialect = (*Dialect)(nil)

// Name implements sqldb.Dialect.
func (*Dialect) Name() string { return "sqlite" }

// Placeholder implements sqldb.Dialect: ? everywhere.
func (*Dialect) Placeholder(int) string { return "?" }

// ForUpdate implements sqldb.Dialect: nothing, the writer is alone.
func (*Dialect) ForUpdate() string { return "" }

// SkipLocked implements sqldb.Dialect: nothing, the writer is alone, so a
// claim is atomic without row locks.
func (*Dialect) SkipLocked() string { return "" }

// WritableCTE implements sqldb.Dialect: SQLite has no data-modifying
// statements in WITH.
func (*Dialect) WritableCTE() bool { return false }

// errNoPipeline is Pipeline's error: the driver sends one statement at a
// time.
var errNoPipeline = fmt.Errorf("sqlite: no pipelining: %w", errors.ErrUnsupported)

// Pipelines implements sqldb.Dialect: false, the driver runs in the
// process (a round trip costs nothing), so Update runs a plain
// transaction.
func (*Dialect) Pipelines() bool { return false }

// Pipeline implements sqldb.Dialect: never called, as Pipelines is false.
func (*Dialect) Pipeline(context.Context, context.Context, *sql.Conn, []sqldb.Statement) ([]int64, error) {
	return nil, errNoPipeline
}

// Expect implements sqldb.Dialect: ok false, as Pipelines is false (a
// statement of Tx.ExecAtCommit runs at once, its result seen).
func (*Dialect) Expect(string) (string, bool) { return "", false }

// Regex implements sqldb.Dialect: REGEXP runs Go's regexp itself (the
// regexp function this package registers), so the pattern only gets the
// case-insensitive flag; in a RegexView the argument is bound to the
// view's time limit, at which a match stops even within a row.
func (*Dialect) Regex(col, pattern string) (string, any, error) {
	return col + " REGEXP ?", regexArg("(?i)" + pattern), nil
}

// JSONText implements sqldb.Dialect with json_extract (a number comes out
// as a number, which CAST turns into text or an integer alike).
func (*Dialect) JSONText(col string, path ...string) string {
	return "json_extract(" + col + ", '$." + strings.Join(path, ".") + "')"
}

// ByteRange implements sqldb.Dialect: SQLite compares text bytewise
// (BINARY collation) already.
func (*Dialect) ByteRange(col string) string { return col + " >= ? AND " + col + " < ?" }

// Classify implements sqldb.Dialect from SQLite's extended result codes.
func (*Dialect) Classify(err error) (sqldb.ErrorKind, string) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return sqldb.ErrCanceled, ""
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return sqldb.ErrOther, ""
	}
	if se.Code()&0xff == sqlite3.SQLITE_ERROR && isMatchTimeout(se) {
		return sqldb.ErrCanceled, "" // a regexp match stopped at its read's limit
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return sqldb.ErrUnique, uniqueKey(se.Error())
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return sqldb.ErrForeignKey, ""
	case sqlite3.SQLITE_INTERRUPT:
		return sqldb.ErrCanceled, ""
	}
	switch se.Code() & 0xff { // primary result code
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR,
		sqlite3.SQLITE_READONLY, sqlite3.SQLITE_NOMEM:
		return sqldb.ErrUnavailable, ""
	case sqlite3.SQLITE_INTERRUPT:
		return sqldb.ErrCanceled, ""
	}
	return sqldb.ErrOther, ""
}

// uniqueKey names the violated unique key after its columns, as the
// PostgreSQL dialect does ("UNIQUE constraint failed: categories.parent,
// categories.slug" -> "parent_slug").
func uniqueKey(msg string) string {
	i := strings.LastIndex(msg, "failed: ")
	if i < 0 {
		return ""
	}
	cols := msg[i+len("failed: "):]
	if j := strings.Index(cols, " ("); j >= 0 {
		cols = cols[:j]
	}
	var names []string
	for c := range strings.SplitSeq(cols, ",") {
		c = strings.TrimSpace(c)
		if _, col, ok := strings.Cut(c, "."); ok {
			c = col
		}
		names = append(names, c)
	}
	return strings.Join(names, "_")
}

// ReadOnly implements sqldb.Dialect: the read pools are query_only
// already; a deferred BEGIN takes its snapshot at the first read.
func (*Dialect) ReadOnly() *sql.TxOptions { return &sql.TxOptions{ReadOnly: true} }

// LimitStatements implements sqldb.Dialect: SQLite has no statement time
// limit of its own; the driver interrupts a statement (sqlite3_interrupt)
// when its context ends, which the caller's deadline does.
func (*Dialect) LimitStatements(context.Context, *sql.Tx, time.Duration) (bool, error) {
	return false, nil
}

// EventKey implements sqldb.Dialect: 0, the single writer commits events
// in sequence order.
func (*Dialect) EventKey() string { return "0" }

// EventHorizon implements sqldb.Dialect: none, a reader sees only
// committed events and they were committed in sequence order.
func (*Dialect) EventHorizon() string { return "" }

// AwaitEvents implements sqldb.Dialect: every committed event is visible.
func (*Dialect) AwaitEvents(context.Context, *sql.DB, time.Duration) error { return nil }

// LockMigrations implements sqldb.Dialect: nothing; each migration runs in
// a BEGIN IMMEDIATE transaction that checks its own record first, which
// serialises processes migrating one file.
func (*Dialect) LockMigrations(context.Context, *sql.Conn) (func(), error) { return func() {}, nil }

// TryLead implements sqldb.Dialect with an exclusive lock (flock) on the
// file "<database>-lead-<key>": the lead ends with Release or with the
// process.
func (d *Dialect) TryLead(_ context.Context, _ *sql.DB, key int64) (sqldb.Lease, error) {
	return tryLock(d.path + "-lead-" + strconv.FormatInt(key, 10))
}

// BeginWrite implements sqldb.Dialect: BEGIN IMMEDIATE takes the write
// lock at once, so a write transaction never fails with SQLITE_BUSY
// halfway.
func (*Dialect) BeginWrite() string { return "BEGIN IMMEDIATE" }
