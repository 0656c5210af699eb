// Package sqlite opens the embedded default storage: a SQLite file in WAL
// mode through the pure-Go modernc.org/sqlite driver (no cgo, nothing to
// install). Writes go through a single connection with BEGIN IMMEDIATE, so
// write transactions are serialised and never fail with SQLITE_BUSY halfway;
// reads use a pool of read-only connections that WAL lets run alongside.
package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

//go:embed migration/*.sql
var migrations embed.FS

// Dialect is SQLite's.
var Dialect = sqldb.Dialect{
	Name:      "sqlite",
	RegexOp:   "REGEXP",
	Regex:     Regex,
	Translate: translate,
}

// Regex is SQLite's Dialect.Regex: REGEXP runs Go's regexp itself, so the
// pattern only gets the case-insensitive flag.
func Regex(pattern string) (string, error) { return "(?i)" + pattern, nil }

func init() {
	// "x REGEXP p" calls regexp(p, x). Patterns are Go RE2, made
	// case-insensitive by the caller; compiled ones are cached.
	sqlite.MustRegisterDeterministicScalarFunction("regexp", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		pat, ok1 := args[0].(string)
		if !ok1 {
			return nil, errors.New("regexp: pattern must be text")
		}
		var s string
		switch v := args[1].(type) {
		case string:
			s = v
		case []byte:
			s = string(v)
		case nil:
			return false, nil
		default:
			s = fmt.Sprint(v)
		}
		re, err := compile(pat)
		if err != nil {
			return nil, err
		}
		return re.MatchString(s), nil
	})
}

var (
	reMu    sync.Mutex
	reCache = map[string]*regexp.Regexp{}
)

func compile(p string) (*regexp.Regexp, error) {
	reMu.Lock()
	defer reMu.Unlock()
	if re, ok := reCache[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	if len(reCache) > 256 {
		clear(reCache)
	}
	reCache[p] = re
	return re, nil
}

// Open opens (creating it and its folder when absent) the SQLite database
// at path. It does not migrate; call Migrate.
func Open(path string, now func() time.Time) (*sqldb.DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
	}
	// synchronous(FULL): a commit answered ok survives a power loss too,
	// not only a process crash.
	pragmas := "_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)"
	base := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	write, err := sql.Open("sqlite", base+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	if err := write.Ping(); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	read, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	read.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)))
	read.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)))
	sub, _ := fs.Sub(migrations, "migration")
	return sqldb.New(sqldb.Config{Dialect: Dialect, Write: write, Read: read, Migrations: sub, Now: now}), nil
}

// translate maps SQLite errors with a meaning for the interface.
func translate(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": uniqueIndex(se.Error())}, Message: se.Error()}
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR:
		return &commerce.Error{Code: commerce.EUnavailable, Message: se.Error()}
	}
	return err
}

// uniqueIndex names the violated unique key after its columns, as the
// PostgreSQL migrations name their unique indexes ("UNIQUE constraint
// failed: categories.parent, categories.slug" -> "parent_slug").
func uniqueIndex(msg string) string {
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
