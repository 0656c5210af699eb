package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

// migrationLockKey is the advisory lock held while migrating.
const migrationLockKey = 7262002

// Dialect is PostgreSQL's sqldb.Dialect.
type Dialect struct {
	// CommonSQL is the spelling PostgreSQL shares with SQLite: Upsert
	// (INSERT ... ON CONFLICT), Returning, CastText, Concat (||),
	// Materialized.
	sqldb.CommonSQL
}

var _ sqldb.Dialect = Dialect{}

// Name implements sqldb.Dialect.
func (Dialect) Name() string { return "postgres" }

// Placeholder implements sqldb.Dialect: $1, $2...
func (Dialect) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// ForUpdate implements sqldb.Dialect: a row lock held to the end of the
// transaction.
func (Dialect) ForUpdate() string { return " FOR UPDATE" }

// WritableCTE implements sqldb.Dialect.
func (Dialect) WritableCTE() bool { return true }

// Regex implements sqldb.Dialect: the pattern translated to PostgreSQL's
// own regex syntax (TranslateRegex), matched with ~*.
func (Dialect) Regex(col, pattern string) (string, any, error) {
	are, err := TranslateRegex(pattern)
	if err != nil {
		return "", nil, err
	}
	return col + " ~* ?", are, nil
}

// JSONText implements sqldb.Dialect with #>> on the text parsed as jsonb.
func (Dialect) JSONText(col string, path ...string) string {
	return "(CAST(" + col + " AS jsonb) #>> '{" + strings.Join(path, ",") + "}')"
}

// ByteRange implements sqldb.Dialect with text_pattern_ops' operators
// (~>=~, ~<~): byte order whatever the collation, the operator class of
// the indexes that serve prefix searches.
func (Dialect) ByteRange(col string) string { return col + " ~>=~ ? AND " + col + " ~<~ ?" }

// unmetCode is the SQLSTATE of commerce_expect's failure (migration
// 0025): class ZC, which PostgreSQL does not use.
const unmetCode = "ZC001"

// Classify implements sqldb.Dialect from SQLSTATE codes and connection
// errors.
func (Dialect) Classify(err error) (sqldb.ErrorKind, string) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return sqldb.ErrCanceled, ""
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return sqldb.ErrUnique, uniqueKey(pe)
		case pe.Code == "23503": // foreign_key_violation
			return sqldb.ErrForeignKey, ""
		case pe.Code == "40001", pe.Code == "40P01": // serialization_failure, deadlock_detected
			return sqldb.ErrRetryable, ""
		case pe.Code == "57014": // query_canceled: statement_timeout, cancel request
			return sqldb.ErrCanceled, ""
		case pe.Code == "2201B", pe.Code == "54000": // invalid_regular_expression ("too complex"), program_limit_exceeded
			return sqldb.ErrPatternRefused, ""
		case pe.Code == unmetCode: // commerce_expect (migration 0025)
			return sqldb.ErrUnmet, ""
		case pe.Code == "22021", pe.Code == "22P05": // character_not_in_repertoire (NUL, invalid UTF-8), untranslatable_character (\u0000 in jsonb)
			return sqldb.ErrBadText, ""
		case strings.HasPrefix(pe.Code, "08"), // connection exceptions
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutdown, cannot connect now
			pe.Code == "53300", pe.Code == "53100", pe.Code == "53200": // too many connections, disk full, out of memory
			return sqldb.ErrUnavailable, ""
		}
		return sqldb.ErrOther, ""
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, sql.ErrConnDone) {
		return sqldb.ErrUnavailable, ""
	}
	return sqldb.ErrOther, ""
}

// uniqueKey names a violated unique key as the SQLite dialect does, after
// its columns ("Key (parent, slug)=(...) already exists." -> parent_slug),
// or by its constraint name without its table's prefix when the detail
// does not list plain columns.
func uniqueKey(pe *pgconn.PgError) string {
	if rest, ok := strings.CutPrefix(pe.Detail, "Key ("); ok {
		if cols, _, ok := strings.Cut(rest, ")="); ok && !strings.ContainsAny(cols, "()\"") {
			return strings.Join(strings.Split(cols, ", "), "_")
		}
	}
	return strings.TrimPrefix(pe.ConstraintName, pe.TableName+"_")
}

// ReadOnly implements sqldb.Dialect: REPEATABLE READ, so that every
// statement of a View sees the one snapshot DB.View promises (READ
// COMMITTED, the default, takes a new one per statement: a search's count
// and facets could disagree). A read-only transaction never fails with a
// serialization error at this level.
func (Dialect) ReadOnly() *sql.TxOptions {
	return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
}

// LimitStatements implements sqldb.Dialect with statement_timeout, set
// for the transaction only: the server cancels the statement (SQLSTATE
// 57014), keeping the connection.
func (Dialect) LimitStatements(ctx context.Context, tx *sql.Tx, d time.Duration) (bool, error) {
	_, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", max(1, d.Milliseconds())))
	return true, err
}

// EventKey implements sqldb.Dialect: the id of the writing transaction,
// raised to the largest key already committed. The transaction's id makes
// the horizon work (a transaction still running has an id, hence writes
// keys, at least as large as the oldest running one); raising it orders
// the events of a transaction after those of every transaction whose
// change it saw: one that held a row lock it waited for, or whose data it
// read, committed before this statement began, so its key is among those
// read here, and its sequence numbers are smaller. (The max is one step
// down the events_order index.)
func (Dialect) EventKey() string {
	return "GREATEST(pg_current_xact_id()::text::bigint, COALESCE((SELECT max(k) FROM events), 0))"
}

// EventHorizon implements sqldb.Dialect: only keys below the oldest
// transaction still running in the statement's snapshot (pg_snapshot_xmin).
// Every transaction that commits after the read has an id, hence a key, at
// least that large. The horizon covers the whole server: a long write
// transaction in any database delays the events (never reorders them).
func (Dialect) EventHorizon() string {
	return "k < pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
}

// AwaitEvents implements sqldb.Dialect: it polls the server's snapshot
// until its oldest running transaction is newer than every transaction
// that had an id when it was called (pg_snapshot_xmax then), at once when
// no write transaction runs.
func (Dialect) AwaitEvents(ctx context.Context, read *sql.DB, max time.Duration) error {
	const q = `SELECT pg_snapshot_xmin(s)::text::bigint, pg_snapshot_xmax(s)::text::bigint FROM pg_current_snapshot() s`
	if max <= 0 {
		return nil
	}
	var xmin, target int64
	if err := read.QueryRowContext(ctx, q).Scan(&xmin, &target); err != nil {
		return err
	}
	wait := 500 * time.Microsecond
	for deadline := time.Now().Add(max); xmin < target && time.Now().Before(deadline); {
		if err := commerce.Sleep(ctx, wait); err != nil {
			return err
		}
		wait = min(2*wait, 20*time.Millisecond)
		var xmax int64
		if err := read.QueryRowContext(ctx, q).Scan(&xmin, &xmax); err != nil {
			return err
		}
	}
	return nil
}

// LockMigrations implements sqldb.Dialect with a session advisory lock on
// the migrating connection.
func (Dialect) LockMigrations(ctx context.Context, conn *sql.Conn) (func(), error) {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SELECT pg_advisory_lock(%d)", migrationLockKey)); err != nil {
		return nil, err
	}
	return func() {
		conn.ExecContext(context.Background(), fmt.Sprintf("SELECT pg_advisory_unlock(%d)", migrationLockKey))
	}, nil
}

// TryLead implements sqldb.Dialect with a session advisory lock
// (pg_try_advisory_lock) on a connection kept for the lease: the lead ends
// with Release or with the connection.
func (Dialect) TryLead(ctx context.Context, write *sql.DB, key int64) (sqldb.Lease, error) {
	conn, err := write.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var ok bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil || !ok {
		conn.Close()
		return nil, err
	}
	return &lease{conn: conn, key: key}, nil
}

// lease is a held advisory lock.
type lease struct {
	conn *sql.Conn
	key  int64
}

// Check pings the connection holding the lock.
func (l *lease) Check(ctx context.Context) error { return l.conn.PingContext(ctx) }

// Release unlocks and gives the connection back.
func (l *lease) Release() {
	l.conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, l.key)
	l.conn.Close()
}

// BeginWrite implements sqldb.Dialect.
func (Dialect) BeginWrite() string { return "BEGIN" }

// SkipLocked implements sqldb.Dialect: rows locked by another
// transaction are skipped, not waited for (claiming mail and webhook
// deliveries).
func (Dialect) SkipLocked() string { return " FOR UPDATE SKIP LOCKED" }
