package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/sqlite"
)

// config is what the commands share: flag, then environment, then default.
type config struct {
	addr      string
	db        string
	jwtSecret string
	nats      string
	// regexTimeout is --regex-timeout as given (a duration), parsed by
	// openDB so that the flag beats the environment and a bad value names
	// what was used.
	regexTimeout string
	// sqliteSync is --sqlite-sync: full (default) or normal.
	sqliteSync string
}

// storageFlags adds the flags every command that opens the store uses.
func (c *config) storageFlags(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&c.db, "db", envOr(getenv, "COMMERCE_DB", "sqlite:./data/commerce.db"), "storage: sqlite:PATH or a postgres:// URL (env COMMERCE_DB)")
	fs.StringVar(&c.jwtSecret, "jwt-secret", getenv("COMMERCE_JWT_SECRET"), "HS256 key (env COMMERCE_JWT_SECRET; default: generated once and kept next to the SQLite file)")
	fs.StringVar(&c.sqliteSync, "sqlite-sync", envOr(getenv, "COMMERCE_SQLITE_SYNC", sqlite.SyncFull), "SQLite durability: full (a write is on disk before it is answered) or normal (faster; a power loss may lose the last answered writes) (env COMMERCE_SQLITE_SYNC)")
	fs.StringVar(&c.regexTimeout, "regex-timeout", getenv("COMMERCE_REGEX_TIMEOUT"), "time limit of a list query with regex filters; beyond it the request is a validation_error (env COMMERCE_REGEX_TIMEOUT; default 2s)")
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envDuration reads a duration ("24h") from the environment, or def.
func envDuration(getenv func(string) string, key string, def time.Duration) (time.Duration, error) {
	v := getenv(key)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return d, nil
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// sqlitePath returns the file of a sqlite: DSN, and false for PostgreSQL.
func (c *config) sqlitePath() (string, bool) {
	p, ok := strings.CutPrefix(c.db, "sqlite:")
	return p, ok
}

// openDB opens and migrates the storage named by --db.
func (c *config) openDB(ctx context.Context, now func() time.Time) (*sqldb.DB, error) {
	var db *sqldb.DB
	var err error
	var regexTimeout time.Duration
	if c.regexTimeout != "" {
		if regexTimeout, err = time.ParseDuration(c.regexTimeout); err != nil || regexTimeout <= 0 {
			return nil, fmt.Errorf("--regex-timeout (or COMMERCE_REGEX_TIMEOUT) %q: want a positive duration such as 2s", c.regexTimeout)
		}
	}
	switch {
	case strings.HasPrefix(c.db, "sqlite:"):
		path, _ := c.sqlitePath()
		db, err = sqlite.OpenWith(path, sqlite.Options{Now: now, RegexTimeout: regexTimeout, Sync: c.sqliteSync})
	case strings.HasPrefix(c.db, "postgres://"), strings.HasPrefix(c.db, "postgresql://"):
		db, err = postgres.OpenWith(ctx, c.db, postgres.Options{Now: now, RegexTimeout: regexTimeout})
	default:
		return nil, fmt.Errorf("--db %q: want sqlite:PATH or a postgres:// URL", redact(c.db))
	}
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// secret resolves the JWT secret: flag, environment, then (SQLite only) the
// file jwt-secret next to the database, generated on first use when create.
func (c *config) secret(create bool) ([]byte, error) {
	if c.jwtSecret != "" {
		return []byte(c.jwtSecret), nil
	}
	path, ok := c.sqlitePath()
	if !ok {
		return nil, errors.New("a JWT secret is required with PostgreSQL: set --jwt-secret or COMMERCE_JWT_SECRET")
	}
	file := filepath.Join(filepath.Dir(path), "jwt-secret")
	b, err := os.ReadFile(file)
	if err == nil {
		if s := strings.TrimSpace(string(b)); s != "" {
			return []byte(s), nil
		}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if !create {
		return nil, fmt.Errorf("no JWT secret: %s does not exist yet (run serve once, or set --jwt-secret)", file)
	}
	var key [32]byte
	rand.Read(key[:])
	s := hex.EncodeToString(key[:])
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	// O_EXCL: when two processes race, one writes and both use its key.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return c.secret(false)
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", file, err)
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", file, err)
	}
	return []byte(s), nil
}

// redact hides passwords in a database URL before it is printed: the
// user-info password and a password= parameter.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" || u.Scheme == "sqlite" {
		if strings.Contains(dsn, "password") || strings.Contains(dsn, "@") {
			return "(unparsable database URL)"
		}
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
