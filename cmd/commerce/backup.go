package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/commercekit/commerce/sqlite"
)

// The refusals of backup and restore on PostgreSQL, which has its own
// tools (README: "Backing up PostgreSQL").
var (
	errBackupPostgres  = errors.New("backup copies the embedded SQLite database; with PostgreSQL use its own tools: pg_dump (for example pg_dump -Fc -f commerce.dump \"$COMMERCE_DB\"), or pg_basebackup with WAL archiving for point-in-time recovery (see the README)")
	errRestorePostgres = errors.New("restore replaces the embedded SQLite database; with PostgreSQL use pg_restore on a dump made by pg_dump (for example pg_restore --clean --if-exists -d \"$COMMERCE_DB\" commerce.dump), or recover a base backup (see the README)")
)

// backupCmd is `commerce backup --to FILE`: a consistent copy of the
// SQLite database, taken while serve runs and writes go on.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	var c config
	fs := newFlagSet("backup", stderr)
	fs.StringVar(&c.db, "db", "sqlite:./data/commerce.db", "storage: sqlite:PATH (env COMMERCE_DB)")
	to := fs.String("to", "", "the backup file to write (it must not exist)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	path, ok := c.sqlitePath()
	if !ok {
		return errBackupPostgres
	}
	if *to == "" {
		return errors.New("backup: --to FILE is required")
	}
	start := time.Now()
	if err := sqlite.Backup(ctx, path, *to); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "backup of %s written to %s in %s\n", path, *to, time.Since(start).Round(time.Millisecond))
	return nil
}

// restoreCmd is `commerce restore --from FILE`: checks the backup, then
// replaces the SQLite database with it, refusing while a process (serve)
// has the database open.
func restoreCmd(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	var c config
	fs := newFlagSet("restore", stderr)
	fs.StringVar(&c.db, "db", "sqlite:./data/commerce.db", "storage: sqlite:PATH (env COMMERCE_DB)")
	from := fs.String("from", "", "the backup file to restore (made by commerce backup or serve --backup-every)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	path, ok := c.sqlitePath()
	if !ok {
		return errRestorePostgres
	}
	if *from == "" {
		return errors.New("restore: --from FILE is required")
	}
	kept, err := sqlite.Restore(ctx, *from, path, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s restored from %s (integrity checked)\n", path, *from)
	if kept != "" {
		fmt.Fprintf(stderr, "the database it replaced is kept as %s\n", kept)
	}
	return nil
}

// backupFlags are serve's scheduled backups.
type backupFlags struct {
	every time.Duration
	dir   string
	keep  int
}

// schedule returns the backup schedule of serve over the database, or
// nil when --backup-every is 0 (off). It refuses the flags with
// PostgreSQL, and a negative keep.
func (b backupFlags) schedule(c *config) (*sqlite.Schedule, error) {
	if b.every == 0 {
		return nil, nil
	}
	path, ok := c.sqlitePath()
	if !ok {
		return nil, fmt.Errorf("--backup-every: %w", errBackupPostgres)
	}
	if b.every < 0 || b.keep < 1 {
		return nil, errors.New("--backup-every must be positive (or 0: off) and --backup-keep at least 1")
	}
	dir := b.dir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(path), "backups")
	}
	return &sqlite.Schedule{Path: path, Dir: dir, Every: b.every, Keep: b.keep}, nil
}
