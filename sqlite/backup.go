package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Backups and restores of the SQLite database (docs/api.md section 29).
//
// A backup is VACUUM INTO from a connection of its own: it reads the
// database in one read transaction, a snapshot of every commit answered
// before it began, while the service goes on writing (in WAL mode readers
// and the writer do not wait for each other), and writes a compact copy,
// one self-contained file. It is written under a temporary name beside
// the destination, synced, and renamed, so that a file with the
// destination's name is always a whole backup.
//
// A restore replaces the database with a backup, never while a process
// has the database open: every process that opens it (OpenWith) holds a
// shared lock on the file PATH-open for as long as it is open, and a
// restore takes that lock exclusively, or refuses.

// Backup writes a consistent copy of the SQLite database at path into the
// new file dst (an existing dst is an error: a backup never replaces a
// file). The database must exist; it is not migrated or otherwise changed.
func Backup(ctx context.Context, path, dst string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: the database %s: %w", path, err)
	}
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("backup: %s exists already", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmp := filepath.Join(dir, "."+filepath.Base(dst)+".tmp")
	os.Remove(tmp) // left by a backup that was interrupted
	db, err := sql.Open("sqlite", dsn(path, "_pragma=busy_timeout(10000)"))
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup %s: %w", path, err)
	}
	if err := syncFile(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	return syncDir(dir)
}

// Check reports why the file at path is not a whole commerce database
// this program can run on: not an SQLite database, one that fails
// PRAGMA integrity_check, one without the schema_migrations table of a
// commerce database, or one with a migration this program does not know
// (made by a newer version). Older databases are fine: serve migrates
// them. It opens the file read-only and changes nothing.
func Check(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dsn(path, "mode=ro"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("integrity check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], "...")
		}
		return fmt.Errorf("the integrity check failed: %s", strings.Join(problems, "; "))
	}
	known, err := fs.Glob(migrations, "migration/*.sql")
	if err != nil {
		return err
	}
	for i, k := range known {
		known[i] = strings.TrimPrefix(k, "migration/")
	}
	vrows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("not a commerce database (no schema_migrations): %w", err)
	}
	defer vrows.Close()
	n := 0
	for vrows.Next() {
		var v string
		if err := vrows.Scan(&v); err != nil {
			return err
		}
		if !slices.Contains(known, v) {
			return fmt.Errorf("it has migration %s, which this program does not know (a newer version made it)", v)
		}
		n++
	}
	if err := vrows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return errors.New("not a commerce database (no migration applied)")
	}
	return nil
}

// ErrInUse is the answer of Restore when a process has the database open.
var ErrInUse = errors.New("the database is in use (is serve running?): stop every process using it, then restore")

// Restore replaces the database at path with the backup at from, after
// checking the backup (Check). It refuses while any process has the
// database open (ErrInUse), and holds the database's open lock
// exclusively meanwhile, so that no process opens it halfway. The
// database it replaces, when there is one, is kept as it is, as kept
// (PATH.before-restore-<UTC time>, returned) with its write-ahead log
// (kept-wal) when it has one: opened, that pair is the old database
// whole. The backup is copied
// beside the database under a temporary name and synced, the old
// database's -wal and -shm files are removed (a log left beside the new
// file would be replayed into it), and the copy is renamed over the
// database: at every moment the database file is the old one, whole, or
// the new one.
func Restore(ctx context.Context, from, path string, now time.Time) (kept string, err error) {
	if err := Check(ctx, from); err != nil {
		return "", fmt.Errorf("restore: %s is not a usable backup: %w", from, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	release, ok, err := lockOpen(path, true)
	if err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	if !ok {
		return "", fmt.Errorf("restore %s: %w", path, ErrInUse)
	}
	defer release()

	if _, err := os.Stat(path); err == nil {
		// Kept as it is, with its log (no checkpoint, which a damaged
		// database, the reason for many a restore, may not allow).
		kept = path + ".before-restore-" + now.UTC().Format("20060102T150405Z")
		if err := os.Link(path, kept); err != nil {
			return "", fmt.Errorf("restore: keep the current database: %w", err)
		}
		if err := os.Link(path+"-wal", kept+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("restore: keep the current database's log: %w", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("restore: %w", err)
	}
	tmp := path + ".restore-tmp"
	if err := CopyFile(from, tmp); err != nil {
		os.Remove(tmp)
		return kept, fmt.Errorf("restore: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(tmp)
			return kept, fmt.Errorf("restore: %w", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return kept, fmt.Errorf("restore: %w", err)
	}
	return kept, syncDir(filepath.Dir(path))
}

// Prune deletes the oldest backups in dir whose names start with prefix
// and end with ".db" (the names Backup files are given by the scheduler
// sort by time), keeping the newest keep. It returns the deleted names.
func Prune(dir, prefix string, keep int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".db") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) <= keep {
		return nil, nil
	}
	old := names[:len(names)-keep]
	for _, n := range old {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			return nil, err
		}
	}
	return old, nil
}

// dsn is the driver's name of the file at path with the query options.
func dsn(path, options string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + options
}

// CopyFile copies the file from into the file to (made or emptied) and
// syncs it: a database file that no connection has open, such as a
// backup being restored or the tests' migrated template.
func CopyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncFile flushes the file at path to the disk.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir flushes a folder's entries (a rename in it) to the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
