// Package sqldb is the storage shared by the SQLite and PostgreSQL adapters:
// connection handling, transactions that commit a change together with its
// events (the outbox), versioned migrations and the event log. The area
// stores built on it write portable SQL with ? placeholders, which the
// dialect rebinds.
//
// Why one package for both databases: the areas' SQL is the same on both
// (standard SQL plus ON CONFLICT and RETURNING, which both support), so
// writing it twice would only give the two copies room to drift. What
// differs (driver, pragmas, placeholders, row locks, regex operator, error
// codes, DDL) is the Dialect, provided by the sqlite and postgres packages.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Dialect is what differs between the databases.
type Dialect struct {
	// Name is "sqlite" or "postgres".
	Name string
	// Numbered placeholders ($1) instead of ?.
	Numbered bool
	// ForUpdate is appended to a SELECT that reads rows it will change
	// (" FOR UPDATE" on PostgreSQL; SQLite serialises writers instead).
	ForUpdate string
	// RegexOp is the case-insensitive regex match operator: "col <op> ?".
	RegexOp string
	// Regex turns a Go RE2 pattern into the argument of "col <RegexOp> ?"
	// that matches what regexp.Compile("(?i)" + pattern) matches. Its
	// error is a message for the client (a construct the database cannot
	// match as RE2 does); the caller names the field. Nil: the pattern is
	// passed as is.
	Regex func(pattern string) (string, error)
	// EventLock, when set, runs before the outbox insert so that event
	// sequence numbers are allocated in commit order.
	EventLock string
	// MigrationLock and MigrationUnlock guard migrations against other
	// processes starting at the same time.
	MigrationLock, MigrationUnlock string
	// Translate turns a driver error into a *commerce.Error where it has a
	// meaning (unique violation, unreachable storage); other errors are
	// returned wrapped unchanged.
	Translate func(error) error
	// Retryable reports a transient conflict (serialization failure,
	// deadlock) after which the whole transaction may be run again.
	Retryable func(error) bool
}

// Config opens a DB.
type Config struct {
	Dialect Dialect
	// Write runs transactions that change data; Read runs read-only ones
	// (for SQLite two pools, the writer with a single connection).
	Write, Read *sql.DB
	// Migrations holds NNNN_name.sql files, applied in order.
	Migrations fs.FS
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// DB is an open database.
type DB struct {
	dialect     Dialect
	write, read *sql.DB
	migrations  fs.FS
	Now         func() time.Time

	rebound sync.Map // query -> rebound query

	mu        sync.Mutex
	listeners []chan struct{}
}

// New returns a DB over the pools of cfg.
func New(cfg Config) *DB {
	db := &DB{dialect: cfg.Dialect, write: cfg.Write, read: cfg.Read, migrations: cfg.Migrations, Now: cfg.Now}
	if db.Now == nil {
		db.Now = time.Now
	}
	if db.read == nil {
		db.read = db.write
	}
	return db
}

// Dialect returns the database's dialect.
func (db *DB) Dialect() Dialect { return db.dialect }

// Close closes both pools.
func (db *DB) Close() error {
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
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

func (db *DB) translate(err error) error {
	if err == nil {
		return nil
	}
	var ce *commerce.Error
	if errors.As(err, &ce) {
		return err
	}
	if db.dialect.Translate != nil {
		return db.dialect.Translate(err)
	}
	return err
}

// Rebind rewrites ? placeholders for the dialect. Queries are constants
// of the stores, so the result is cached.
func (db *DB) Rebind(q string) string {
	if !db.dialect.Numbered {
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
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	r := b.String()
	db.rebound.Store(q, r)
	return r
}

// Placeholders returns "?, ?, ?" with n marks, for IN lists.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// Tx is a transaction. Events emitted on it are written to the outbox
// right before the commit, so they exist if and only if the change does.
type Tx struct {
	tx     *sql.Tx
	db     *DB
	events []event.Event
}

// DB returns the database the transaction belongs to.
func (tx *Tx) DB() *DB { return tx.db }

// Now returns the database clock's time.
func (tx *Tx) Now() time.Time { return tx.db.Now() }

// Emit queues an event to be committed with the transaction.
func (tx *Tx) Emit(e event.Event) { tx.events = append(tx.events, e) }

// Exec runs a statement.
func (tx *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	r, err := tx.tx.ExecContext(ctx, tx.db.Rebind(q), args...)
	return r, tx.db.translate(err)
}

// Query runs a query.
func (tx *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r, err := tx.tx.QueryContext(ctx, tx.db.Rebind(q), args...)
	return r, tx.db.translate(err)
}

// QueryRow runs a query returning at most one row; errors surface at Scan
// (use the Scan helper to translate them).
func (tx *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return tx.tx.QueryRowContext(ctx, tx.db.Rebind(q), args...)
}

// Translate turns a driver error into a *commerce.Error where it has one.
func (tx *Tx) Translate(err error) error { return tx.db.translate(err) }

// Update runs fn in a write transaction and commits it with the events fn
// emitted. A transient conflict (PostgreSQL serialization failure or
// deadlock) runs fn again, up to 5 times; fn must therefore be safe to
// repeat (no side effects outside the transaction).
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		err = db.update(ctx, fn)
		if err == nil || db.dialect.Retryable == nil || !db.dialect.Retryable(err) {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 3 * time.Millisecond)
	}
	if err != nil && db.dialect.Retryable != nil && db.dialect.Retryable(err) {
		return &commerce.Error{Code: commerce.EConcurrentMod, Message: err.Error()}
	}
	return err
}

func (db *DB) update(ctx context.Context, fn func(tx *Tx) error) error {
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
		if err := db.insertEvents(ctx, stx, tx.events); err != nil {
			return err
		}
	}
	if err := stx.Commit(); err != nil {
		return db.translate(fmt.Errorf("commit: %w", err))
	}
	if len(tx.events) > 0 {
		db.notify()
	}
	return nil
}

// View runs fn in a read-only transaction (a consistent snapshot).
func (db *DB) View(ctx context.Context, fn func(tx *Tx) error) error {
	stx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: db.dialect.Name == "postgres"})
	if err != nil {
		return db.translate(fmt.Errorf("begin: %w", err))
	}
	defer stx.Rollback()
	if err := fn(&Tx{tx: stx, db: db}); err != nil {
		return db.translate(err)
	}
	return db.translate(stx.Commit())
}

// Query runs a read query outside a transaction, on the read pool.
func (db *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r, err := db.read.QueryContext(ctx, db.Rebind(q), args...)
	return r, db.translate(err)
}

// QueryRow runs a single-row read query outside a transaction.
func (db *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return db.read.QueryRowContext(ctx, db.Rebind(q), args...)
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

// Migrate applies the migrations not yet applied, each in its own
// transaction, in file-name order.
func (db *DB) Migrate(ctx context.Context) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return db.translate(fmt.Errorf("migrate: %w", err))
	}
	defer conn.Close()
	if db.dialect.MigrationLock != "" {
		if _, err := conn.ExecContext(ctx, db.dialect.MigrationLock); err != nil {
			return db.translate(fmt.Errorf("migration lock: %w", err))
		}
		defer conn.ExecContext(context.Background(), db.dialect.MigrationUnlock)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return db.translate(fmt.Errorf("migrate: %w", err))
	}
	names, err := fs.Glob(db.migrations, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		var n int
		if err := conn.QueryRowContext(ctx, db.Rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), name).Scan(&n); err != nil {
			return db.translate(fmt.Errorf("migrate %s: %w", name, err))
		}
		if n > 0 {
			continue
		}
		body, err := fs.ReadFile(db.migrations, name)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return db.translate(fmt.Errorf("migrate %s: %w", name, err))
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return db.translate(fmt.Errorf("migrate %s: %w", name, err))
		}
		if _, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), name, db.Now().UTC().Format(time.RFC3339)); err != nil {
			tx.Rollback()
			return db.translate(fmt.Errorf("migrate %s: %w", name, err))
		}
		if err := tx.Commit(); err != nil {
			return db.translate(fmt.Errorf("migrate %s: %w", name, err))
		}
	}
	return nil
}

// TryLead tries to become the one process (of those sharing the database)
// that runs a singleton job such as the event relay. It returns ok=false
// when another process leads. The lead lasts until release is called or
// the connection holding it is lost, which Check reports.
func (db *DB) TryLead(ctx context.Context, key int64) (lead *Lead, ok bool, err error) {
	if db.dialect.Name != "postgres" {
		return &Lead{}, true, nil // one process owns an SQLite file
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return nil, false, db.translate(err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil || !ok {
		conn.Close()
		return nil, false, db.translate(err)
	}
	return &Lead{conn: conn, key: key}, true, nil
}

// Lead is a held leadership.
type Lead struct {
	conn *sql.Conn
	key  int64
}

// Check reports whether the lead is still held.
func (l *Lead) Check(ctx context.Context) error {
	if l.conn == nil {
		return nil
	}
	return l.conn.PingContext(ctx)
}

// Release gives the lead up.
func (l *Lead) Release() {
	if l.conn == nil {
		return
	}
	l.conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, l.key)
	l.conn.Close()
}
