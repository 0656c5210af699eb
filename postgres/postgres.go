// Package postgres opens PostgreSQL storage through pgx (its database/sql
// driver), for production and for several service processes sharing one
// database. Correctness across processes comes from the database: row locks
// (SELECT ... FOR UPDATE), conditional updates, an advisory lock that orders
// the outbox, and retried serialization failures.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

//go:embed migration/*.sql
var migrations embed.FS

// Lock keys of the advisory locks the service takes.
const (
	eventLockKey     = 7262001
	migrationLockKey = 7262002
)

// Dialect is PostgreSQL's.
var Dialect = sqldb.Dialect{
	Name:            "postgres",
	Numbered:        true,
	ForUpdate:       " FOR UPDATE",
	RegexOp:         "~*",
	Regex:           sqldb.PostgresRegex,
	EventLock:       fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", eventLockKey),
	MigrationLock:   fmt.Sprintf("SELECT pg_advisory_lock(%d)", migrationLockKey),
	MigrationUnlock: fmt.Sprintf("SELECT pg_advisory_unlock(%d)", migrationLockKey),
	Translate:       translate,
	Retryable:       retryable,
}

// Open connects to the PostgreSQL database at url (postgres://...). It does
// not migrate; call Migrate.
func Open(ctx context.Context, url string, now func() time.Time) (*sqldb.DB, error) {
	// Two pools: a write transaction that also reads through the read pool
	// then never waits for a connection held by another write transaction,
	// which under load would be a deadlock of the pool.
	write, err := openPool(ctx, url, 16)
	if err != nil {
		return nil, err
	}
	read, err := openPool(ctx, url, 16)
	if err != nil {
		write.Close()
		return nil, err
	}
	sub, _ := fs.Sub(migrations, "migration")
	return sqldb.New(sqldb.Config{Dialect: Dialect, Write: write, Read: read, Migrations: sub, Now: now}), nil
}

func openPool(ctx context.Context, url string, size int) (*sql.DB, error) {
	pool, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool.SetMaxOpenConns(size)
	pool.SetMaxIdleConns(size)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.PingContext(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", translate(err))
	}
	return pool, nil
}

// translate maps PostgreSQL errors with a meaning for the interface.
func translate(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": pe.ConstraintName}, Message: pe.Message}
		case "57P01", "57P02", "57P03", "53300": // shutdown, too many connections
			return &commerce.Error{Code: commerce.EUnavailable, Message: pe.Message}
		}
		return err
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, sql.ErrConnDone) {
		return &commerce.Error{Code: commerce.EUnavailable, Message: err.Error()}
	}
	return err
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}
