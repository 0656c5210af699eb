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

	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/mail"
	mailfile "github.com/commercekit/commerce/mail/file"
	mailsmtp "github.com/commercekit/commerce/mail/smtp"
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
	// dbMaxConns is --db-max-conns: PostgreSQL connections per process.
	dbMaxConns int
}

// flagEnv names the environment variable of each flag that has one. A
// variable is read only when its flag is not given: the flag wins, and a
// bad value in a variable whose flag is given does not matter.
var flagEnv = map[string]string{
	"addr":            "COMMERCE_ADDR",
	"db":              "COMMERCE_DB",
	"jwt-secret":      "COMMERCE_JWT_SECRET",
	"nats":            "COMMERCE_NATS_URL",
	"cart-ttl":        "COMMERCE_CART_TTL",
	"reservation-ttl": "COMMERCE_RESERVATION_TTL",
	"url":             "COMMERCE_URL",
	"token":           "COMMERCE_TOKEN",
	"regex-timeout":   "COMMERCE_REGEX_TIMEOUT",
	"sqlite-sync":     "COMMERCE_SQLITE_SYNC",
	"db-max-conns":    "COMMERCE_DB_MAX_CONNS",
	"access-ttl":      "COMMERCE_ACCESS_TTL",
	"refresh-ttl":     "COMMERCE_REFRESH_TTL",

	"return-window":         "COMMERCE_RETURN_WINDOW",
	"webhook-allow-private": "COMMERCE_WEBHOOK_ALLOW_PRIVATE",
	"admin-require-2fa":     "COMMERCE_ADMIN_REQUIRE_2FA",
	"webhook-retry":         "COMMERCE_WEBHOOK_RETRY",
	"webhook-lease":         "COMMERCE_WEBHOOK_LEASE",

	"stripe-key":            "COMMERCE_STRIPE_KEY",
	"stripe-url":            "COMMERCE_STRIPE_URL",
	"stripe-webhook-secret": "COMMERCE_STRIPE_WEBHOOK_SECRET",

	"backup-every":   "COMMERCE_BACKUP_EVERY",
	"backup-dir":     "COMMERCE_BACKUP_DIR",
	"backup-keep":    "COMMERCE_BACKUP_KEEP",
	"mail":           "COMMERCE_MAIL",
	"mail-from":      "COMMERCE_MAIL_FROM",
	"shop-name":      "COMMERCE_SHOP_NAME",
	"storefront-url": "COMMERCE_STOREFRONT_URL",
	"mail-templates": "COMMERCE_MAIL_TEMPLATES",
	"mail-retry":     "COMMERCE_MAIL_RETRY",
	"mail-lease":     "COMMERCE_MAIL_LEASE",
	"locales":        "COMMERCE_LOCALES",
}

// storageFlags adds the flags every command that opens the store uses.
func (c *config) storageFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.db, "db", "sqlite:./data/commerce.db", "storage: sqlite:PATH or a postgres:// URL (env COMMERCE_DB)")
	fs.StringVar(&c.jwtSecret, "jwt-secret", "", fmt.Sprintf("HS256 key, at least %d bytes (env COMMERCE_JWT_SECRET; default: generated once and kept next to the SQLite file)", auth.MinSecretLen))
	fs.StringVar(&c.sqliteSync, "sqlite-sync", sqlite.SyncFull, "SQLite durability: full (a write is on disk before it is answered) or normal (faster; a power loss may lose the last answered writes) (env COMMERCE_SQLITE_SYNC)")
	fs.IntVar(&c.dbMaxConns, "db-max-conns", postgres.DefaultMaxConns, fmt.Sprintf("PostgreSQL: the connections this process opens, at least %d; keep the sum over all processes under the server's max_connections (env COMMERCE_DB_MAX_CONNS)", postgres.MinMaxConns))
	fs.StringVar(&c.regexTimeout, "regex-timeout", "", "time limit of a list query with regex filters; beyond it the request is a validation_error (env COMMERCE_REGEX_TIMEOUT; default 2s)")
}

// applyEnv sets every flag of fs that has an environment variable
// (flagEnv) and was not given on the command line from its variable, when
// that is set. Call it after fs.Parse.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		key, ok := flagEnv[f.Name]
		if !ok || given[f.Name] {
			return
		}
		v := getenv(key)
		if v == "" {
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q (or --%s): %w", key, v, f.Name, err))
		}
	})
	return errors.Join(errs...)
}

// parseFlags parses args, then the environment of the flags not given.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	return applyEnv(fs, getenv)
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
	var (
		db           *sqldb.DB
		err          error
		regexTimeout time.Duration
	)
	if c.regexTimeout != "" {
		if regexTimeout, err = time.ParseDuration(c.regexTimeout); err != nil || regexTimeout <= 0 {
			return nil, fmt.Errorf("--regex-timeout (or COMMERCE_REGEX_TIMEOUT) %q: want a positive duration such as 2s", c.regexTimeout)
		}
	}
	if c.sqliteSync != sqlite.SyncFull && c.sqliteSync != sqlite.SyncNormal {
		return nil, fmt.Errorf("--sqlite-sync (or COMMERCE_SQLITE_SYNC) %q: want %s or %s", c.sqliteSync, sqlite.SyncFull, sqlite.SyncNormal)
	}
	switch {
	case strings.HasPrefix(c.db, "sqlite:"):
		path, _ := c.sqlitePath()
		db, err = sqlite.OpenWith(path, sqlite.Options{Now: now, RegexTimeout: regexTimeout, Sync: c.sqliteSync})
	case strings.HasPrefix(c.db, "postgres://"), strings.HasPrefix(c.db, "postgresql://"):
		if c.dbMaxConns < postgres.MinMaxConns {
			return nil, fmt.Errorf("--db-max-conns (or COMMERCE_DB_MAX_CONNS) %d: want at least %d", c.dbMaxConns, postgres.MinMaxConns)
		}
		db, err = postgres.OpenWith(ctx, c.db, postgres.Options{Now: now, RegexTimeout: regexTimeout, MaxConns: c.dbMaxConns})
	default:
		return nil, fmt.Errorf("--db %q: want sqlite:PATH or a postgres:// URL", redact(c.db))
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redact(c.db), err)
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("migrate %s: %w", redact(c.db), err), db.Close())
	}
	return db, nil
}

// secret resolves the JWT secret: flag, environment, then (SQLite only) the
// file jwt-secret next to the database, generated on first use when create.
// A secret shorter than auth.MinSecretLen is refused, naming where it came
// from.
func (c *config) secret(create bool) ([]byte, error) {
	if c.jwtSecret != "" {
		if err := checkSecret(c.jwtSecret, "--jwt-secret (or COMMERCE_JWT_SECRET)"); err != nil {
			return nil, err
		}
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
			if err := checkSecret(s, "the secret file "+file); err != nil {
				return nil, err
			}
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
	rand.Read(key[:]) // never fails (crypto/rand)
	s := hex.EncodeToString(key[:])
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, fmt.Errorf("create the secret's directory: %w", err)
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

// checkSecret refuses a JWT secret shorter than auth.MinSecretLen bytes.
func checkSecret(s, from string) error {
	if len(s) < auth.MinSecretLen {
		return fmt.Errorf("the JWT secret from %s is %d bytes long: it must be at least %d bytes (use a long random one, for example `openssl rand -hex 32`)",
			from, len(s), auth.MinSecretLen)
	}
	return nil
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

// mailSender returns the sender --mail names (docs/api.md section 22):
// file:DIR, smtp://..., smtps://..., none (nil), or "" for the default, a
// folder mail beside the SQLite file (./data/mail with PostgreSQL). where
// says where mail goes, for the log line (never a password).
func (c *config) mailSender(spec string) (sender mail.Sender, where string, err error) {
	switch {
	case spec == "none":
		return nil, "none", nil
	case spec == "":
		dir := filepath.Join("data", "mail")
		if path, ok := c.sqlitePath(); ok {
			dir = filepath.Join(filepath.Dir(path), "mail")
		}
		spec = "file:" + dir
		fallthrough
	case strings.HasPrefix(spec, "file:"):
		dir := strings.TrimPrefix(spec, "file:")
		if dir == "" {
			return nil, "", errors.New("--mail file:DIR: no folder")
		}
		s, err := mailfile.New(dir)
		if err != nil {
			return nil, "", err
		}
		return s, "file:" + dir, nil
	case strings.HasPrefix(spec, "smtp://"), strings.HasPrefix(spec, "smtps://"):
		s, err := mailsmtp.New(spec, mailsmtp.Options{})
		if err != nil {
			return nil, "", err
		}
		return s, redact(spec), nil
	}
	return nil, "", fmt.Errorf("--mail (or COMMERCE_MAIL) %q: want file:DIR, smtp://[user:pass@]host:port, smtps://... or none", redact(spec))
}
