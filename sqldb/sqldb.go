// Package sqldb is the storage shared by the SQLite and PostgreSQL adapters:
// connection handling, transactions that commit a change together with its
// events (the outbox), versioned migrations and the event log. The area
// stores built on it write portable SQL with ? placeholders, which the
// dialect rebinds.
//
// Why one package for both databases: the areas' SQL is the same on both
// (standard SQL, with what the databases spell differently asked of the
// Dialect), so writing it twice would only give the two copies room to
// drift. What differs (driver, pragmas, placeholders, row locks, upserts,
// RETURNING, casts, regex operator, text search, pipelining, error codes,
// DDL) is the Dialect, provided by the sqlite and postgres packages.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Config opens a DB.
type Config struct {
	Dialect Dialect
	// Write runs transactions that change data; Read runs read-only ones
	// (for SQLite two pools, the writer with a single connection).
	Write, Read *sql.DB
	// Regex runs the reads with regex conditions (RegexView): a pool of a
	// few connections of its own, so that slow matches never hold every
	// read connection. Read when nil.
	Regex *sql.DB
	// RegexTimeout bounds each RegexView: DefaultRegexTimeout when 0, no
	// bound when negative.
	RegexTimeout time.Duration
	// Migrations holds NNNN_name.sql files, applied in order.
	Migrations fs.FS
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	// GroupCommit runs the write transactions on the single connection
	// of Write, in first-come-first-served order, several in one
	// physical transaction and one commit (see writer.go): for a
	// database with one writer (SQLite).
	GroupCommit bool
	// WriteQueue bounds the write transactions waiting their turn
	// (GroupCommit) or a connection (WriteConcurrency): a write that
	// finds the queue full is unavailable at once. DefaultWriteQueue
	// when 0.
	WriteQueue int
	// WriteConcurrency, without GroupCommit, is how many write
	// transactions run at once; the others wait their turn first come,
	// first served (the pool alone hands a freed connection to a random
	// waiter). 0: no limit but the pool's.
	WriteConcurrency int
	// Closers run when the DB closes, after the writer stopped and
	// before the pools close (background work of the adapter).
	Closers []func() error
	// AfterClose run when the DB closes, after the pools closed (a lock
	// the adapter holds while the database is open).
	AfterClose []func() error
	// CacheStatements keeps statements prepared on each connection, by
	// query text, instead of parsing them on every call; for drivers
	// that do not cache them themselves (pgx does).
	CacheStatements bool
}

// DB is an open database.
type DB struct {
	closeOnce sync.Once
	closeErr  error

	dialect            Dialect
	write, read, regex *sql.DB
	reads              querier    // read, through the statement cache when there is one
	readCache          *stmtCache // nil without CacheStatements
	writer             *writer    // GroupCommit's single writer, or nil
	admit              *admission // WriteConcurrency's turns, or nil
	closers            []func() error
	afterClose         []func() error
	transactions       atomic.Int64 // committed write transactions
	commits            atomic.Int64 // physical commits
	migrations         fs.FS
	regexTimeout       atomic.Int64 // time.Duration
	eventWait          atomic.Int64 // time.Duration
	numbered           bool         // placeholders are rewritten
	Now                func() time.Time

	rebound  sync.Map     // query -> rebound query
	reboundN atomic.Int32 // entries in rebound

	mu        sync.Mutex
	listeners []chan struct{}
}

// New returns a DB over the pools of cfg.
func New(cfg Config) *DB {
	db := &DB{dialect: cfg.Dialect, write: cfg.Write, read: cfg.Read, regex: cfg.Regex, migrations: cfg.Migrations, Now: cfg.Now, closers: cfg.Closers,
		afterClose: cfg.AfterClose}
	if db.Now == nil {
		db.Now = time.Now
	}
	if db.read == nil {
		db.read = db.write
	}
	if db.regex == nil {
		db.regex = db.read
	}
	db.numbered = cfg.Dialect.Placeholder(1) != "?"
	db.SetRegexTimeout(cfg.RegexTimeout)
	db.SetEventWait(0)
	db.reads = db.read
	if cfg.CacheStatements {
		db.readCache = newStmtCache(db.read, defaultStmtCache)
		db.reads = cachedQuerier{cache: db.readCache, plain: db.read}
	}
	if cfg.GroupCommit {
		db.writer = newWriter(db, cfg.WriteQueue)
	} else if cfg.WriteConcurrency > 0 {
		db.admit = newAdmission(cfg.WriteConcurrency, cfg.WriteQueue)
	}
	return db
}

// Dialect returns the database's dialect.
func (db *DB) Dialect() Dialect { return db.dialect }

// ForUpdate is the dialect's row-lock clause (Dialect.ForUpdate), appended
// to a SELECT of rows the transaction is about to change.
func (db *DB) ForUpdate() string { return db.dialect.ForUpdate() }

// Close stops the writer (after the writes already queued) and closes the
// pools. Calling it again does nothing and returns the first call's error.
func (db *DB) Close() error {
	db.closeOnce.Do(func() { db.closeErr = db.close() })
	return db.closeErr
}

func (db *DB) close() error {
	if db.writer != nil {
		db.writer.close()
	}
	if db.readCache != nil {
		db.readCache.close()
	}
	var err error
	for _, c := range db.closers {
		err = errors.Join(err, c())
	}
	err = errors.Join(err, db.write.Close())
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	if db.regex != db.read && db.regex != db.write {
		err = errors.Join(err, db.regex.Close())
	}
	for _, c := range db.afterClose {
		err = errors.Join(err, c())
	}
	return err
}

// Ping checks that the storage answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return db.translate(err)
	}
	return nil
}

// Notify returns a channel that receives a value (without blocking the
// writer) after each commit that wrote events, for the relay.
func (db *DB) Notify() <-chan struct{} {
	ch := make(chan struct{}, 1)
	db.mu.Lock()
	db.listeners = append(db.listeners, ch)
	db.mu.Unlock()
	return ch
}

func (db *DB) notify() {
	db.mu.Lock()
	for _, ch := range db.listeners {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	db.mu.Unlock()
}

// translate turns a driver error into what it means for the interface, as
// the dialect classifies it: a unique violation is duplicate_key with the
// key's name, unreachable storage unavailable, text the database refuses
// validation_error; a foreign key violation, a
// transient conflict, a canceled statement and a refused pattern keep the
// driver's error with ErrForeignKeyViolation, ErrRetry,
// ErrStatementCanceled or ErrPatternRejected in their chain. Errors already
// translated, and others, are returned unchanged.
func (db *DB) translate(err error) error {
	if err == nil {
		return nil
	}
	var ce *commerce.Error
	if errors.As(err, &ce) {
		return err
	}
	var ke *kindError
	if errors.As(err, &ke) {
		return err
	}
	kind, detail := db.dialect.Classify(err)
	switch kind {
	case ErrUnique:
		return &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": detail}, Message: err.Error(), Err: err}
	case ErrUnavailable:
		return &commerce.Error{Code: commerce.EUnavailable, Message: err.Error(), Err: err}
	case ErrForeignKey:
		return &kindError{ErrForeignKeyViolation, err}
	case ErrRetryable:
		return &kindError{ErrRetry, err}
	case ErrCanceled:
		return &kindError{ErrStatementCanceled, err}
	case ErrPatternRefused:
		return &kindError{ErrPatternRejected, err}
	case ErrBadText:
		e := commerce.Invalid("a text argument holds a NUL byte or invalid UTF-8, which the database cannot store")
		e.Err = err
		return e
	}
	return err
}

// maxRebound bounds the cache of rebound queries: queries built with a
// variable number of placeholders (IN lists, multi-row inserts) are many.
const maxRebound = 4096

// Rebind rewrites ? placeholders for the dialect (Dialect.Placeholder).
// Most queries are constants of the stores, so results are cached, up to
// maxRebound of them.
func (db *DB) Rebind(q string) string {
	if !db.numbered {
		return q
	}
	if v, ok := db.rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	inQuote := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '\'' {
			inQuote = !inQuote
		}
		if c == '?' && !inQuote {
			n++
			b.WriteString(db.dialect.Placeholder(n))
			continue
		}
		b.WriteByte(c)
	}
	r := b.String()
	if db.reboundN.Load() < maxRebound {
		if _, loaded := db.rebound.LoadOrStore(q, r); !loaded {
			db.reboundN.Add(1)
		}
	}
	return r
}

// Placeholders returns "?, ?, ?" with n marks, for IN lists.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// querier is what a Tx runs its statements on: a *sql.Tx, or the
// connection of a transaction the DB manages itself.
type querier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// Tx is a transaction. Events emitted on it are written to the outbox
// right before the commit, so they exist if and only if the change does.
type Tx struct {
	tx     querier
	db     *DB
	events []event.Event
	// limited, when set, is the context of a RegexView, a child of base
	// ending at the time limit: statements run under it.
	base, limited context.Context
	// deadline, when set, is the time limit of a RegexView, which its
	// statements' DeadlineArgs are bound to.
	deadline time.Time
	// detached: statements do not end with their context (group commit:
	// interrupting one would roll back the whole batch).
	detached bool
	// audit is the target of a change without events (Audit).
	audit *auditNote
	// heldCarts are the carts the transaction locked (cartTx.Lock,
	// LockVersion, Expired): cartTx.Save stores them at once.
	heldCarts []string
	// reserveNow: cartTx.Save makes its reservations at once, one after
	// the other (see CartStore.Update).
	reserveNow bool
}

// stmtCtx returns the context a statement given ctx runs under: ctx, or
// in a RegexView ctx ending at the view's time limit too. A context made
// here ends with the view at the latest.
func (tx *Tx) stmtCtx(ctx context.Context) context.Context {
	if tx.detached {
		return context.WithoutCancel(ctx)
	}
	if tx.limited == nil {
		return ctx
	}
	if ctx == tx.base {
		return tx.limited
	}
	c, cancel := context.WithCancelCause(ctx)
	context.AfterFunc(tx.limited, func() { cancel(context.Cause(tx.limited)) })
	return c
}

// DB returns the database the transaction belongs to.
func (tx *Tx) DB() *DB { return tx.db }

// Now returns the database clock's time.
func (tx *Tx) Now() time.Time { return tx.db.Now() }

// ForUpdate is the dialect's row-lock clause (Dialect.ForUpdate).
func (tx *Tx) ForUpdate() string { return tx.db.dialect.ForUpdate() }

// Emit queues an event to be committed with the transaction.
func (tx *Tx) Emit(e event.Event) { tx.events = append(tx.events, e) }

// Exec runs a statement.
func (tx *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	r, err := tx.tx.ExecContext(tx.stmtCtx(ctx), tx.db.Rebind(q), tx.bind(args)...)
	return r, tx.db.translate(err)
}

// Query runs a query.
func (tx *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r, err := tx.tx.QueryContext(tx.stmtCtx(ctx), tx.db.Rebind(q), tx.bind(args)...)
	return r, tx.db.translate(err)
}

// QueryRow runs a query returning at most one row; errors surface at Scan
// (use the Scan helper to translate them).
func (tx *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return tx.tx.QueryRowContext(tx.stmtCtx(ctx), tx.db.Rebind(q), tx.bind(args)...)
}

// bind returns the arguments of a statement: in a RegexView with a time
// limit, each DeadlineArg bound to it (a copy of args); else args.
func (tx *Tx) bind(args []any) []any {
	if tx.deadline.IsZero() {
		return args
	}
	var out []any
	for i, a := range args {
		if d, ok := a.(DeadlineArg); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = d.Bind(tx.deadline)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// Translate turns a driver error into a *commerce.Error where it has one.
func (tx *Tx) Translate(err error) error { return tx.db.translate(err) }

// Expect is, when the transaction is pipelined (ok: on a dialect that
// pipelines, whose ExecAtCommit statements go out with the COMMIT), the
// SQL of an expression that is true when cond is and otherwise fails its
// statement (Dialect.Expect): for a statement of ExecAtCommit that checks
// itself.
func (tx *Tx) Expect(cond string) (expr string, ok bool) {
	if _, piped := tx.tx.(*pipedTx); piped {
		return tx.db.dialect.Expect(cond)
	}
	return "", false
}

// ExecAtCommit runs st (one statement, ? placeholders) with the
// transaction's commit: on a dialect that pipelines (Dialect.Pipelines), in the
// commit's round trip, after the statements run before the commit and
// before the events; elsewhere now. Its result is not seen, so a
// statement that must affect rows checks that itself (on PostgreSQL with
// commerce_expect, migration 0025): when that check fails, the
// transaction fails with st.Unmet. Any other failure of st fails the
// transaction with st's error. On a dialect that pipelines the statements
// fn runs after ExecAtCommit do not see st's writes: fn must not read
// what st writes.
func (tx *Tx) ExecAtCommit(ctx context.Context, st Statement) error {
	if p, ok := tx.tx.(*pipedTx); ok {
		st.SQL = tx.db.Rebind(st.SQL)
		p.atCommit = append(p.atCommit, st)
		return nil
	}
	_, err := tx.Exec(ctx, st.SQL, st.Args...)
	if u := tx.db.unmet(err, st); u != nil {
		return u
	}
	return err
}

// unmet returns st.Unmet when err, st's failure, is st's own check
// failing (ErrUnmet); otherwise nil.
func (db *DB) unmet(err error, st Statement) error {
	if err != nil && st.Unmet != nil {
		if kind, _ := db.dialect.Classify(err); kind == ErrUnmet {
			return st.Unmet
		}
	}
	return nil
}

// maxAttempts is how many times Update runs a transaction that keeps
// meeting transient conflicts.
const maxAttempts = 5

// Update runs fn in a write transaction and commits it with the events fn
// emitted. A transient conflict (a serialization failure or deadlock,
// ErrRetry) runs fn again, up to 5 times, then is concurrent_modification;
// fn must therefore be safe to repeat (no side effects outside the
// transaction); with group commit it may also run again when its group's
// transaction fails as a whole. fn must not call Update itself (with one
// writer it would wait for itself). Writes wait their turn first come,
// first served; when too many wait (Config.WriteQueue) Update is
// unavailable at once.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = db.update(ctx, fn)
		if err == nil || !errors.Is(err, ErrRetry) {
			return err
		}
		if attempt == maxAttempts || ctx.Err() != nil {
			break
		}
		_ = commerce.Sleep(ctx, time.Duration(attempt)*3*time.Millisecond) // ctx's end: see the loop's condition
	}
	return &commerce.Error{Code: commerce.EConcurrentMod, Message: err.Error(), Err: err}
}

func (db *DB) update(ctx context.Context, fn func(tx *Tx) error) error {
	if db.writer != nil {
		return db.writer.submit(ctx, &writeReq{fn: fn})
	}
	if db.admit != nil {
		if err := db.admit.acquire(ctx); err != nil {
			return err
		}
		defer db.admit.release()
	}
	if db.dialect.Pipelines() {
		return db.updatePiped(ctx, fn)
	}
	stx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return db.translate(fmt.Errorf("begin: %w", err))
	}
	tx := &Tx{tx: stx, db: db}
	defer stx.Rollback()
	if err := fn(tx); err != nil {
		return db.translate(err)
	}
	if len(tx.events) > 0 {
		if err := db.insertEvents(ctx, tx, tx.events); err != nil {
			return err
		}
	}
	st, scope, audited := db.auditStatement(ctx, tx)
	if audited {
		if _, err := tx.Exec(ctx, st.SQL, st.Args...); err != nil {
			return fmt.Errorf("insert the audit entry: %w", err)
		}
	}
	if err := stx.Commit(); err != nil {
		return db.translate(fmt.Errorf("commit: %w", err))
	}
	if audited {
		scope.Committed()
	}
	db.transactions.Add(1)
	db.commits.Add(1)
	if len(tx.events) > 0 {
		db.notify()
	}
	return nil
}

// View runs fn in a read-only transaction (a consistent snapshot).
func (db *DB) View(ctx context.Context, fn func(tx *Tx) error) error {
	return db.view(ctx, db.read, fn)
}

func (db *DB) view(ctx context.Context, pool *sql.DB, fn func(tx *Tx) error) error {
	stx, err := pool.BeginTx(ctx, db.dialect.ReadOnly())
	if err != nil {
		return db.translate(fmt.Errorf("begin: %w", err))
	}
	defer stx.Rollback()
	var q querier = stx
	if pool == db.read && db.readCache != nil {
		q = cachedQuerier{cache: db.readCache, tx: stx, plain: stx}
	}
	if err := fn(&Tx{tx: q, db: db}); err != nil {
		return db.translate(err)
	}
	return db.translate(stx.Commit())
}

// Query runs a read query outside a transaction, on the read pool.
func (db *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r, err := db.reads.QueryContext(ctx, db.Rebind(q), args...)
	return r, db.translate(err)
}

// QueryRow runs a single-row read query outside a transaction.
func (db *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return db.reads.QueryRowContext(ctx, db.Rebind(q), args...)
}

// Translate turns a driver error into a *commerce.Error where it has one.
func (db *DB) Translate(err error) error { return db.translate(err) }

// NotFound returns err translated, or the not-found error when err is
// sql.ErrNoRows: the stores' way of never returning (nil, nil).
func (db *DB) NotFound(err error, notFound *commerce.Error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return notFound
	}
	return db.translate(err)
}

// IsForeignKey reports a foreign key violation in err's chain.
func IsForeignKey(err error) bool { return errors.Is(err, ErrForeignKeyViolation) }

// Migrate applies the migrations not yet applied, each in its own
// transaction, in file-name order. Each migration checks, inside its
// transaction, that it was not applied meanwhile, and the dialect keeps
// other processes out (LockMigrations), so processes starting together
// apply each migration once.
func (db *DB) Migrate(ctx context.Context) error {
	if db.writer != nil {
		return db.writer.submit(ctx, &writeReq{raw: db.migrateOn})
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return db.translate(fmt.Errorf("migrate: %w", err))
	}
	defer conn.Close()
	return db.migrateOn(ctx, conn)
}

// migrateOn migrates on conn.
func (db *DB) migrateOn(ctx context.Context, conn *sql.Conn) error {
	unlock, err := db.dialect.LockMigrations(ctx, conn)
	if err != nil {
		return db.translate(fmt.Errorf("migration lock: %w", err))
	}
	defer unlock()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return db.translate(fmt.Errorf("migrate: %w", err))
	}
	names, err := fs.Glob(db.migrations, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.migrate(ctx, conn, name); err != nil {
			return db.translate(fmt.Errorf("migrate %s: %w", name, err))
		}
	}
	return nil
}

// migrate applies one migration unless it is recorded as applied.
func (db *DB) migrate(ctx context.Context, conn *sql.Conn, name string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, db.Rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(db.migrations, name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), name, db.Now().UTC().Format(time.RFC3339)); err != nil {
		return err
	}
	return tx.Commit()
}

// TryLead tries to become the one process (of those sharing the database)
// that runs a singleton job such as the event relay (Dialect.TryLead). It
// returns ok=false when another process leads. The lead lasts until
// Release is called or what holds it is lost, which Check reports.
func (db *DB) TryLead(ctx context.Context, key int64) (lead *Lead, ok bool, err error) {
	lease, err := db.dialect.TryLead(ctx, db.write, key)
	if err != nil {
		return nil, false, db.translate(fmt.Errorf("try lead: %w", err))
	}
	if lease == nil {
		return nil, false, nil
	}
	return &Lead{lease: lease}, true, nil
}

// Lead is a held leadership.
type Lead struct{ lease Lease }

// Check reports whether the lead is still held: an error once it may
// have been lost.
func (l *Lead) Check(ctx context.Context) error { return l.lease.Check(ctx) }

// Release gives the lead up.
func (l *Lead) Release() { l.lease.Release() }
