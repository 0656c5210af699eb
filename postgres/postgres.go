// Package postgres opens PostgreSQL storage through pgx (its database/sql
// driver), for production and for several service processes sharing one
// database. Correctness across processes comes from the database: row locks
// (SELECT ... FOR UPDATE), conditional updates, retried serialization
// failures, and an outbox ordered by transaction ids (see
// Dialect.EventKey) that needs no lock.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

//go:embed migration/*.sql
var migrations embed.FS

// Migrations is the schema: the migration files Migrate applies, in
// file-name order (tests key a migrated template database on them).
func Migrations() fs.FS {
	sub, _ := fs.Sub(migrations, "migration")
	return sub
}

// Options configure Open.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// RegexTimeout bounds each read with regex conditions
	// (sqldb.DB.RegexView): sqldb.DefaultRegexTimeout when 0, no bound
	// when negative.
	RegexTimeout time.Duration
	// WriteQueue bounds the write transactions waiting their turn
	// (sqldb.DefaultWriteQueue when 0): beyond it a write is unavailable.
	WriteQueue int
	// MaxConns bounds the connections this process opens to the database
	// (DefaultMaxConns when 0; at least MinMaxConns). Several processes on
	// one server must stay under its max_connections together.
	MaxConns int
}

// DefaultMaxConns is the connection budget of one process; MinMaxConns the
// smallest budget Open accepts.
const (
	DefaultMaxConns = 36
	MinMaxConns     = 6
)

// poolSizes splits a connection budget over three pools: writes and reads
// apart, so that a write transaction that also reads through the read pool
// never waits for a connection held by another write transaction (under
// load a deadlock of the pool), and a small one for regex reads so that
// slow matches never hold every read connection. 36 gives 16, 16 and 4.
func poolSizes(budget int) (write, read, regex int) {
	regex = max(1, budget/9)
	write = max(3, (budget-regex)/2)
	read = max(2, budget-regex-write)
	return write, read, regex
}

// Open connects to the PostgreSQL database at url (postgres://...). It does
// not migrate; call Migrate.
func Open(ctx context.Context, url string, now func() time.Time) (*sqldb.DB, error) {
	return OpenWith(ctx, url, Options{Now: now})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, url string, o Options) (*sqldb.DB, error) {
	budget := o.MaxConns
	if budget == 0 {
		budget = DefaultMaxConns
	}
	if budget < MinMaxConns {
		return nil, fmt.Errorf("postgres: a budget of %d connections: want at least %d", budget, MinMaxConns)
	}
	writeConns, readConns, regexConns := poolSizes(budget)
	var pools []*sql.DB
	for _, size := range []int{writeConns, readConns, regexConns} {
		p, err := openPool(ctx, url, size)
		if err != nil {
			for _, p := range pools {
				p.Close()
			}
			return nil, err
		}
		pools = append(pools, p)
	}
	return sqldb.New(sqldb.Config{
		Dialect: Dialect{}, Write: pools[0], Read: pools[1], Regex: pools[2],
		RegexTimeout: o.RegexTimeout, Migrations: Migrations(), Now: o.Now,
		// Two connections of the write pool stay for what is not a write
		// transaction: the relay's lead, migrations.
		WriteConcurrency: writeConns - 2, WriteQueue: o.WriteQueue,
	}), nil
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
		return nil, fmt.Errorf("postgres: connect: %w", &commerce.Error{Code: commerce.EUnavailable, Message: err.Error(), Err: err})
	}
	return pool, nil
}
