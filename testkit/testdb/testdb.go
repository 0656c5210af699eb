// Package testdb gives tests real databases: a fresh SQLite file, and a
// fresh PostgreSQL database (created and dropped per test) when
// COMMERCE_TEST_POSTGRES_URL is set. Each runs all migrations.
package testdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"

	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/sqlite"
)

// PostgresEnv names the variable holding the PostgreSQL server URL tests use.
const PostgresEnv = "COMMERCE_TEST_POSTGRES_URL"

// Each runs fn as a subtest on SQLite and, when PostgreSQL is configured,
// on PostgreSQL (the subtest skips, saying why, when it is not).
func Each(t *testing.T, fn func(t *testing.T, db *sqldb.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// EachPair runs fn as a subtest on SQLite and, when PostgreSQL is
// configured, on PostgreSQL, with two handles on one database: what two
// service processes sharing it have.
func EachPair(t *testing.T, fn func(t *testing.T, a, b *sqldb.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "commerce.db")
		fn(t, SQLiteAt(t, path), SQLiteAt(t, path))
	})
	t.Run("postgres", func(t *testing.T) {
		url := PostgresURL(t)
		fn(t, PostgresAt(t, url), PostgresAt(t, url))
	})
}

// Eventually polls got until it returns want, and fails the test after
// 3 s: for what another process sharing the database sees within a
// bounded time (its caches check the database every 500 ms).
func Eventually[T comparable](t testing.TB, what string, want T, got func() T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		g := got()
		if g == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after 3s got %v, want %v", what, g, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Store is a kind of database tests and benchmarks run on.
type Store struct {
	Name string
	// Open returns a fresh migrated database, closed (and for
	// PostgreSQL dropped) at the end of the test; it skips the test when
	// the database is not configured.
	Open func(testing.TB) *sqldb.DB
}

// Stores lists the databases: SQLite, then PostgreSQL.
var Stores = []Store{{"sqlite", SQLite}, {"postgres", Postgres}}

// SQLite returns a migrated database in a new temp file.
func SQLite(t testing.TB) *sqldb.DB {
	t.Helper()
	return SQLiteAt(t, filepath.Join(t.TempDir(), "commerce.db"))
}

// SQLiteAt returns the migrated database in the file at path, closed at
// the end of the test. A file that does not exist yet starts as a copy of
// the migrated template (sqliteTemplate): running the migrations is what
// costs most in a test under the race detector (about 2 s each time, for
// the transpiled SQLite), and the copy has exactly the same schema. Migrate
// still runs, finding everything applied.
func SQLiteAt(t testing.TB, path string) *sqldb.DB {
	t.Helper()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		tmpl, err := sqliteTemplate()
		if err != nil {
			t.Fatalf("migrated template database: %v", err)
		}
		if err := sqlite.CopyFile(tmpl, path); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sqlite.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// Postgres returns a migrated, freshly created PostgreSQL database that is
// dropped at the end of the test; it skips the test when
// COMMERCE_TEST_POSTGRES_URL is not set.
//
// The database is a copy of a migrated template (postgresTemplate), as
// SQLite's are: running the migrations took about a second a database,
// most of it the server's CPU, which the tests running beside share.
func Postgres(t testing.TB) *sqldb.DB {
	t.Helper()
	SkipWithoutPostgres(t)
	tmpl, err := postgresTemplate(os.Getenv(PostgresEnv))
	if err != nil {
		t.Fatalf("migrated template database: %v", err)
	}
	return PostgresAt(t, PostgresURLWith(t, "TEMPLATE "+tmpl))
}

// MaxConns is the connection budget of each store a test opens on
// PostgreSQL: small, so that the test packages that run at once, some with
// two or three stores on one database, stay under the server's default
// max_connections (100).
const MaxConns = 12

// PostgresAt opens and migrates one more connection pool on the
// PostgreSQL database at url (what another service process would have),
// closed at the end of the test.
func PostgresAt(t testing.TB, url string) *sqldb.DB {
	t.Helper()
	db, err := postgres.OpenWith(context.Background(), url, postgres.Options{Now: time.Now, MaxConns: MaxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// SkipWithoutPostgres skips the test, saying why, when
// COMMERCE_TEST_POSTGRES_URL is not set.
func SkipWithoutPostgres(t testing.TB) {
	t.Helper()
	if os.Getenv(PostgresEnv) == "" {
		t.Skip(PostgresEnv + " is not set: skipping the PostgreSQL run (set it to a server URL, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
}

// PostgresURL creates a fresh database and returns its URL (dropped at the
// end of the test); it skips the test when COMMERCE_TEST_POSTGRES_URL is
// not set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return PostgresURLWith(t, "")
}

// PostgresURLWith is PostgresURL with options for CREATE DATABASE
// ("TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'": another locale).
func PostgresURLWith(t testing.TB, options string) string {
	t.Helper()
	SkipWithoutPostgres(t)
	base := os.Getenv(PostgresEnv)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "commerce_test_" + strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(commerce.NewID()))
	if _, err := admin.Exec("CREATE DATABASE " + name + " " + options); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", base)
		if err != nil {
			t.Error(err)
			return
		}
		defer a.Close()
		if _, err := a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop test database: %v", err)
		}
	})
	pu, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	pu.Path = "/" + name
	return pu.String()
}

// WaitBlocked waits until n write transactions wait: on PostgreSQL for a
// row lock (pg_stat_activity), on SQLite for their turn at the single
// writer (Stats().Queued). It fails the test after 10 seconds.
func WaitBlocked(t testing.TB, db *sqldb.DB, n int) {
	t.Helper()
	_, pg := db.Dialect().(postgres.Dialect)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		if pg {
			if err := db.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&got); err != nil {
				t.Fatal(err)
			}
		} else {
			got = int(db.Stats().Queued)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions wait, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pgTemplate is the name of the migrated PostgreSQL database new test
// databases are created from: made once per test process, or found where
// an earlier process left it (one per set of migrations; each is a few
// MB, kept on the server like template1).
var pgTemplate struct {
	once sync.Once
	name string
	err  error
}

// postgresTemplate returns the name of a database migrated with the
// current migrations on the server at base: commerce_template_<hash of
// the migrations>, made on first use under another name and renamed into
// place, so that processes making it at once never copy half of it (the
// one whose rename fails drops its own).
func postgresTemplate(base string) (string, error) {
	pgTemplate.once.Do(func() { pgTemplate.name, pgTemplate.err = makePostgresTemplate(base) })
	return pgTemplate.name, pgTemplate.err
}

func makePostgresTemplate(base string) (string, error) {
	hash, err := migrationsHash(postgres.Migrations())
	if err != nil {
		return "", err
	}
	name := "commerce_template_" + hash
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	exists := func() (bool, error) {
		var n int
		err := admin.QueryRow(`SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n)
		return n > 0, err
	}
	if ok, err := exists(); err != nil || ok {
		return name, err
	}
	build := "commerce_template_build_" + strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(commerce.NewID()))
	if _, err := admin.Exec("CREATE DATABASE " + build); err != nil {
		return "", err
	}
	drop := func() { admin.Exec("DROP DATABASE IF EXISTS " + build + " WITH (FORCE)") }
	pu, err := url.Parse(base)
	if err != nil {
		drop()
		return "", err
	}
	pu.Path = "/" + build
	db, err := postgres.OpenWith(context.Background(), pu.String(), postgres.Options{Now: time.Now, MaxConns: MaxConns})
	if err != nil {
		drop()
		return "", err
	}
	err = db.Migrate(context.Background())
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		drop()
		return "", err
	}
	if _, err := admin.Exec("ALTER DATABASE " + build + " RENAME TO " + name); err != nil {
		drop()
		if ok, _ := exists(); ok {
			return name, nil // another process made it meanwhile
		}
		return "", err
	}
	return name, nil
}

// migrationsHash is a short hash of the migration files' names and text.
func migrationsHash(migrations fs.FS) (string, error) {
	names, err := fs.Glob(migrations, "*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		body, err := fs.ReadFile(migrations, name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(body))
		h.Write(body)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// template is the migrated SQLite database new test databases copy: made
// once per test process, or found where an earlier process left it.
var template struct {
	once sync.Once
	path string
	err  error
}

// sqliteTemplate returns the path of a migrated SQLite database for the
// current migrations: $TMPDIR/commerce-testdb/<hash of the migrations>.db,
// made on first use (in a folder of its own, then renamed into place, so
// that processes making it at once never see half a file) and shared by
// every later test process until a migration changes.
func sqliteTemplate() (string, error) {
	template.once.Do(func() { template.path, template.err = makeTemplate() })
	return template.path, template.err
}

func makeTemplate() (string, error) {
	hash, err := migrationsHash(sqlite.Migrations())
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), "commerce-testdb")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, hash+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	build, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(build)
	file := filepath.Join(build, "commerce.db")
	db, err := sqlite.Open(file, time.Now)
	if err != nil {
		return "", err
	}
	if err := db.Migrate(context.Background()); err != nil {
		db.Close()
		return "", err
	}
	// Closing the last connection checkpoints the write-ahead log into the
	// file and removes it: the file alone is then the whole database.
	if err := db.Close(); err != nil {
		return "", err
	}
	if st, err := os.Stat(file + "-wal"); err == nil && st.Size() > 0 {
		return "", fmt.Errorf("the template's write-ahead log was not checkpointed (%d bytes left)", st.Size())
	}
	if err := os.Rename(file, path); err != nil {
		return "", err
	}
	return path, nil
}
