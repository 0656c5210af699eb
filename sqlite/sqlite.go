// Package sqlite opens the embedded default storage: a SQLite file in WAL
// mode through the pure-Go modernc.org/sqlite driver (no cgo, nothing to
// install). Writes go through a single connection with BEGIN IMMEDIATE, so
// write transactions are serialised and never fail with SQLITE_BUSY halfway;
// they are group-committed (sqldb's writer: the transactions waiting
// together share one commit and one fsync) and keep their statements
// prepared. Reads use a pool of read-only connections that WAL lets run
// alongside.
package sqlite

import (
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/commercekit/commerce/sqldb"
)

//go:embed migration/*.sql
var migrations embed.FS

// Options configure Open.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// RegexTimeout bounds each read with regex conditions
	// (sqldb.DB.RegexView): sqldb.DefaultRegexTimeout when 0, no bound
	// when negative.
	RegexTimeout time.Duration
	// Sync is the durability of a commit: SyncFull (the default) or
	// SyncNormal.
	Sync string
	// WriteQueue bounds the write transactions waiting their turn
	// (sqldb.DefaultWriteQueue when 0): beyond it a write is unavailable.
	WriteQueue int
}

// Durability of a commit (Options.Sync).
const (
	// SyncFull (synchronous=FULL): the write-ahead log is flushed to the
	// disk (fsync) before a commit is answered, so an answered write
	// survives a crash of the machine (power loss) too. Group commit
	// makes that one flush for all the writes that wait together.
	SyncFull = "full"
	// SyncNormal (synchronous=NORMAL): the log is flushed only when it
	// is checkpointed into the database file. A crash of the process
	// loses nothing, but a power loss or a crash of the operating system
	// can lose the writes answered since the last flush (the database
	// stays consistent). Faster; an explicit choice.
	SyncNormal = "normal"
)

// Pool sizes of the readers: the read pool, and a smaller one for regex
// reads (a slow match keeps its connection until the time limit), so that
// other reads always have connections left. Reads hold their connection
// while their caller decodes the rows, so more connections than cores
// keep the cores busy (4 per core measured best: a third more product
// reads than one per core under the load generator).
var (
	readConns  = 4 * max(2, runtime.GOMAXPROCS(0))
	regexConns = max(1, readConns/2)
)

// Migrations is the schema: the migration files Migrate applies, in
// file-name order (tests key a migrated template database on them).
func Migrations() fs.FS {
	sub, _ := fs.Sub(migrations, "migration")
	return sub
}

// Open opens (creating it and its folder when absent) the SQLite database
// at path. It does not migrate; call Migrate.
func Open(path string, now func() time.Time) (*sqldb.DB, error) {
	return OpenWith(path, Options{Now: now})
}

// OpenWith is Open with options.
func OpenWith(path string, o Options) (*sqldb.DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
	}
	// synchronous(FULL) by default: a commit answered ok survives a power
	// loss too, not only a process crash.
	syncMode := "FULL"
	switch o.Sync {
	case "", SyncFull:
	case SyncNormal:
		syncMode = "NORMAL"
	default:
		return nil, fmt.Errorf("sqlite: sync %q: want %s or %s", o.Sync, SyncFull, SyncNormal)
	}
	// Held while the database is open: a restore refuses to run
	// meanwhile, and a process does not open a database being restored.
	release, ok, err := lockOpen(path, false)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("sqlite: %s is being restored (commerce restore): try again once it is done", path)
	}
	opened := false
	defer func() {
		if !opened {
			release()
		}
	}()
	// mmap_size: reads map the file instead of copying pages through
	// pread, which halves the CPU of reads that visit many rows (a search
	// counting its facets over thousands of products).
	pragmas := "_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(" + syncMode + ")" +
		"&_pragma=journal_size_limit(67108864)&_pragma=mmap_size(1073741824)"
	base := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	// The checkpointer copies the log into the database, not the writer.
	// temp_store(MEMORY): the writer runs each function of a batch of
	// several in a SAVEPOINT, whose subjournal (the original of the pages
	// it changes) went to a temporary file; in memory it is bounded by a
	// batch's changes.
	write, err := sql.Open("sqlite", base+"&_txlock=immediate&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	if err := write.Ping(); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	pools := []*sql.DB{write}
	for _, size := range []int{readConns, regexConns} {
		p, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
		if err != nil {
			for _, p := range pools {
				p.Close()
			}
			return nil, fmt.Errorf("sqlite: %w", err)
		}
		p.SetMaxOpenConns(size)
		p.SetMaxIdleConns(size)
		pools = append(pools, p)
	}
	cp, err := startCheckpointer(base)
	if err != nil {
		for _, p := range pools {
			p.Close()
		}
		return nil, fmt.Errorf("sqlite: checkpointer: %w", err)
	}
	opened = true
	return sqldb.New(sqldb.Config{
		Closers: []func() error{cp.close}, AfterClose: []func() error{release},
		Dialect: &Dialect{path: path}, Write: write, Read: pools[1], Regex: pools[2],
		RegexTimeout: o.RegexTimeout, Migrations: Migrations(), Now: o.Now,
		GroupCommit: true, WriteQueue: o.WriteQueue, CacheStatements: true,
	}), nil
}
