package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/commercekit/commerce/search"
)

// Dialect is everything that differs between the databases the service
// runs on, as one contract: sqldb and the area stores write portable SQL
// with ? placeholders and ask the dialect for the rest; the sqlite and
// postgres packages implement it. Adding a database is one package
// implementing Dialect (and opening the pools), plus its migrations
// (docs/architecture.md, "Adding a database").
//
// Every dialect implements every method, and the shared code never
// type-asserts a dialect for an optional part: where a database cannot do
// something, its method says so explicitly (Pipelines and WritableCTE
// report false, SkipLocked, ForUpdate and Materialized return "",
// LimitStatements reports false, TryLead returns a nil Lease), and the
// shared code takes the path that works without it. Code must not branch
// on Name either.
//
// The methods fall into four groups:
//
//   - spelling: the pieces of SQL the databases write differently
//     (Placeholder, ForUpdate, SkipLocked, Upsert, Returning, CastText,
//     Concat, Materialized, Regex, JSONText, ByteRange), each returning
//     text the shared statements are built with, so that they hold no
//     construct of one database outside a method here;
//   - capabilities: what the shared code may rely on (WritableCTE,
//     Pipelines with Pipeline and Expect, LimitStatements);
//   - product search: the full-text match and the rebuild of its index
//     (SearchMatch, SearchRebuild), kept by triggers of the migrations,
//     and the index rows of new products where the service writes them at
//     less cost than the triggers (IndexProducts);
//   - transactions, errors and the event log (Classify, BeginWrite,
//     ReadOnly, EventKey, EventHorizon, AwaitEvents, LockMigrations,
//     TryLead).
//
// What the portable SQL still requires of a database, beyond standard
// SQL: a statement that returns the rows an INSERT (INSERT ... DEFAULT
// VALUES included, and an Upsert), UPDATE or DELETE wrote or removed
// (Returning), LIMIT ? OFFSET ?, and window functions (ROW_NUMBER). The
// dialect conformance suite (testkit/storetest, "dialect") checks
// Returning's three forms. CommonSQL is the spelling SQLite and
// PostgreSQL share, which their dialects embed.
type Dialect interface {
	// Name names the database in logs and metrics. Code must not branch
	// on it: what differs is a method here.
	Name() string

	// Placeholder returns the n-th (from 1) bind parameter marker of a
	// query: "?" for every n, or "$1", "$2"... DB.Rebind uses it.
	Placeholder(n int) string

	// ForUpdate is the clause appended to a SELECT that reads rows the
	// transaction is about to change (" FOR UPDATE"), or "" where write
	// transactions never run at the same time anyway.
	ForUpdate() string

	// SkipLocked is the clause appended to a SELECT that claims rows
	// (mail, webhook deliveries): it locks the rows it reads and skips
	// those another transaction has locked (" FOR UPDATE SKIP LOCKED"),
	// so that concurrent claimers take disjoint batches without waiting
	// for each other; "" where write transactions never run at the same
	// time, so that a claim is atomic anyway.
	SkipLocked() string

	// Upsert returns an INSERT of rows rows of cols into table (each row
	// len(cols) ? placeholders, the arguments row after row) that, for a
	// row whose key columns match an existing row, sets the update
	// columns of the existing row to the new row's values instead, or,
	// with no update columns, leaves the existing row as it is and skips
	// the new one.
	Upsert(table string, rows int, cols, key, update []string) string

	// Returning returns stmt, an INSERT (an Upsert's included), UPDATE or
	// DELETE of one table, made into a query of the columns cols (a
	// comma-separated list) of each row it wrote or removed, in one
	// statement: how the stores read generated keys and removed rows.
	Returning(stmt, cols string) string

	// CastText returns expr (a column, a ? placeholder, NULL) converted
	// to text.
	CastText(expr string) string

	// Concat returns the text expressions exprs concatenated.
	Concat(exprs ...string) string

	// Materialized is the word written after "WITH name AS " that makes
	// the database compute the common table expression once, however
	// often the statement reads it ("MATERIALIZED "), or "" where it
	// always does.
	Materialized() string

	// WritableCTE reports whether a WITH clause may hold a data-modifying
	// statement whose RETURNING rows feed the main statement (WITH s AS
	// (UPDATE ... RETURNING ...) INSERT ... SELECT ... FROM s): two
	// changes in one round trip, where a round trip costs.
	WritableCTE() bool

	// Pipelines reports whether the driver can send several statements
	// in one round trip (Pipeline). Update then starts a write
	// transaction with its first statement, and writes its events with
	// its COMMIT: two round trips fewer for every write transaction,
	// which on a machine the database shares with the service is CPU
	// time of both; the statements of Tx.ExecAtCommit go with the COMMIT
	// too. Where it is false, Pipeline and Expect are never called.
	Pipelines() bool

	// Pipeline runs stmts on conn, in order, in one round trip, and
	// returns the rows each affected, up to the first that failed, and
	// that failure (the statements after it do not run). A COMMIT the
	// database answers with a rollback is a failure. When interrupt (nil:
	// none) ends first, the database is asked to stop the statement it
	// runs, and the answers are still read (under ctx), so that the
	// outcome is known; conn is then closed. A dialect that does not
	// pipeline returns an error wrapping errors.ErrUnsupported.
	Pipeline(ctx, interrupt context.Context, conn *sql.Conn, stmts []Statement) ([]int64, error)

	// Expect returns the SQL of an expression that is true when cond is,
	// and otherwise fails its statement (ErrUnmet), and ok: the check of
	// a statement whose result is not seen before the commit
	// (Tx.ExecAtCommit). A dialect that does not pipeline returns ok
	// false.
	Expect(cond string) (expr string, ok bool)

	// Regex returns the condition that matches the text expression col
	// against the Go RE2 pattern as regexp.Compile("(?i)"+pattern) would
	// (case-insensitively, anywhere), with one ? placeholder, and the
	// argument for it. Its error is a message for the client (a construct
	// the database cannot match as RE2 does); the caller names the field.
	Regex(col, pattern string) (cond string, arg any, err error)

	// JSONText returns the SQL expression of the value at path (object
	// keys, outermost first) in the JSON document held as text in col, as
	// text (SQL NULL when absent): for reads that sum or group by a field
	// of a stored document. Path keys are names the code writes (letters,
	// digits, _), never input.
	JSONText(col string, path ...string) string

	// ByteRange returns the condition "? <= col AND col < ?" comparing
	// text bytewise, whatever the collation, written so that an index on
	// col serves it (for prefix searches).
	ByteRange(col string) string

	// SearchMatch returns how to find the products holding every word of
	// q, the last one also as a prefix, or every product when q has no
	// Words (search.go: the filters, facets, sorts and paging around the
	// match are portable SQL there). q.Words are folded as SQLite's FTS5
	// folds text (search.Words); an index folds them again as it folds
	// the indexed text. Each database keeps its index its own way (an
	// FTS5 table on SQLite, a tsvector table on PostgreSQL), by triggers
	// of its migrations.
	SearchMatch(q search.Query) SearchMatch

	// SearchRebuild returns the statements that rebuild the whole search
	// index from the products, run in one write transaction.
	SearchRebuild() []string

	// IndexProducts writes the search index rows of products just
	// inserted (CreateProducts hands it each batch, after their side
	// tables), where the database would otherwise build them itself at a
	// greater cost (PostgreSQL: a deferred trigger, which leaves a row
	// written so); a product it does not write is left to the database's
	// triggers, and a database whose triggers cost little does nothing.
	IndexProducts(ctx context.Context, tx *Tx, ps []IndexText) error

	// Classify tells what a driver error means. detail is the violated
	// unique key for ErrUnique (its columns joined by "_", "parent_slug"),
	// else "".
	Classify(err error) (kind ErrorKind, detail string)

	// BeginWrite is the statement that starts a write transaction on a
	// connection the DB manages itself (group commit): "BEGIN", or where
	// it matters the form that takes the write lock at once.
	BeginWrite() string

	// ReadOnly returns the options of a read-only transaction (View).
	ReadOnly() *sql.TxOptions

	// LimitStatements makes the following statements of tx fail, with an
	// error classified ErrCanceled, once each has run for d. It reports
	// false when the database has no such limit: the statement then ends
	// with its context's deadline only.
	LimitStatements(ctx context.Context, tx *sql.Tx, d time.Duration) (bool, error)

	// EventKey is the SQL expression of an event's order key k, computed
	// in the transaction that inserts the event (see event.go). Any
	// value works that is at least as large as the key of every event
	// the transaction depends on, and below which EventHorizon never
	// lets readers see an event of a transaction still running: "0"
	// where write transactions are serialised.
	EventKey() string

	// EventHorizon is the condition (on the column k) that keeps readers
	// of the log below the keys that transactions still running may
	// write, or "" where write transactions are serialised.
	EventHorizon() string

	// AwaitEvents waits, at most max, until the write transactions
	// running when it was called have ended, so that a read of the log
	// that follows sees every event committed before the call; it
	// returns at once where write transactions are serialised.
	AwaitEvents(ctx context.Context, read *sql.DB, max time.Duration) error

	// LockMigrations keeps other processes from migrating the database
	// until unlock is called; conn is the connection migrations run on.
	// A database whose write transactions are serialised and whose
	// migrations check their own record within their transaction may do
	// nothing.
	LockMigrations(ctx context.Context, conn *sql.Conn) (unlock func(), err error)

	// TryLead tries to become, among the processes sharing the database,
	// the one that runs the singleton job key. It returns a nil Lease
	// (and no error) when another process leads.
	TryLead(ctx context.Context, write *sql.DB, key int64) (Lease, error)
}

// CommonSQL is the spelling of Dialect that SQLite and PostgreSQL share
// (Returning, CastText, Concat, Materialized, Upsert with ON CONFLICT):
// a Dialect of a database that writes these the same way embeds it; one
// that does not writes its own methods.
type CommonSQL struct{}

// Returning implements Dialect.Returning with a RETURNING clause.
func (CommonSQL) Returning(stmt, cols string) string { return stmt + " RETURNING " + cols }

// CastText implements Dialect.CastText with CAST(expr AS TEXT).
func (CommonSQL) CastText(expr string) string { return "CAST(" + expr + " AS TEXT)" }

// Concat implements Dialect.Concat with the || operator.
func (CommonSQL) Concat(exprs ...string) string { return strings.Join(exprs, " || ") }

// Materialized implements Dialect.Materialized: "MATERIALIZED " (SQLite
// 3.35 and later, PostgreSQL 12 and later).
func (CommonSQL) Materialized() string { return "MATERIALIZED " }

// Upsert implements Dialect.Upsert with OnConflictUpsert.
func (CommonSQL) Upsert(table string, rows int, cols, key, update []string) string {
	return OnConflictUpsert(table, rows, cols, key, update)
}

// Statement is a statement with its arguments, its placeholders the
// dialect's (Rebind).
type Statement struct {
	SQL  string
	Args []any
	// Unmet, for a statement of Tx.ExecAtCommit, is the error its
	// transaction fails with when the statement's own check fails
	// (ErrUnmet).
	Unmet error
}

// Lease is a held leadership (Dialect.TryLead).
type Lease interface {
	// Check reports an error once the leadership may have been lost (the
	// connection or file holding it is gone).
	Check(ctx context.Context) error
	// Release gives the leadership up.
	Release()
}

// ErrorKind is what a driver error means (Dialect.Classify).
type ErrorKind int

// The kinds of driver errors the storage core acts on.
const (
	// ErrOther is any other error: returned as it is.
	ErrOther ErrorKind = iota
	// ErrUnique is a unique or primary key violation: duplicate_key.
	ErrUnique
	// ErrForeignKey is a foreign key violation: the stores turn it into
	// their own codes (errors.Is(err, ErrForeignKeyViolation)).
	ErrForeignKey
	// ErrUnavailable is storage that cannot be reached or used now
	// (connection refused or lost, shutdown, disk full, locked): unavailable.
	ErrUnavailable
	// ErrRetryable is a transient conflict (serialization failure,
	// deadlock) after which the whole transaction may run again.
	ErrRetryable
	// ErrCanceled is a statement stopped before its end: by its time
	// limit (LimitStatements), its context or an interruption.
	ErrCanceled
	// ErrPatternRefused is the database refusing a regular expression it
	// was given (too complex, too large once compiled).
	ErrPatternRefused
	// ErrBadText is the database refusing text it was given (PostgreSQL:
	// a NUL byte, invalid UTF-8): validation_error. The transport and the
	// form endpoints refuse such text first (commerce.TextProblem); this
	// is the second line, for a path that does not.
	ErrBadText
	// ErrUnmet is a statement's own check failing (PostgreSQL: the
	// commerce_expect function): the error the statement was given
	// (Tx.ExecAtCommit) is returned instead.
	ErrUnmet
)

// Errors in the chain of translated driver errors (errors.Is), for the
// kinds that have no code of the interface of their own.
var (
	ErrForeignKeyViolation = errors.New("foreign key violation")
	ErrRetry               = errors.New("transient conflict, the transaction may be retried")
	ErrStatementCanceled   = errors.New("statement canceled")
	ErrPatternRejected     = errors.New("regular expression refused by the database")
)

// kindError is a driver error with the sentinel of its kind: errors.Is
// sees the sentinel, errors.As the driver's own error.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// OnConflictUpsert is the Upsert of the databases that take the SQL
// "INSERT ... ON CONFLICT (key) DO UPDATE SET c = excluded.c" (SQLite,
// PostgreSQL): with no update columns, DO NOTHING. Its placeholders are ?
// (rebound by the DB). A Dialect of such a database returns it from
// Upsert; another writes its own form (MySQL: ON DUPLICATE KEY UPDATE).
func OnConflictUpsert(table string, rows int, cols, key, update []string) string {
	row := "(" + Placeholders(len(cols)) + ")"
	q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
		strings.Repeat(row+", ", max(rows-1, 0)) + row + " ON CONFLICT (" + strings.Join(key, ", ") + ")"
	if len(update) == 0 {
		return q + " DO NOTHING"
	}
	sets := make([]string, len(update))
	for i, c := range update {
		sets[i] = c + " = excluded." + c
	}
	return q + " DO UPDATE SET " + strings.Join(sets, ", ")
}
