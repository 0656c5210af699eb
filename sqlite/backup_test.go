package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/sqlite"
	"github.com/commercekit/commerce/testkit/testdb"
)

// rows returns how many rows the table of the database at path has, read
// with a connection of the test's own.
func rows(t *testing.T, path, table string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}

// addKeys writes n rows of its own into idempotency_keys (a table no
// background job of an open database touches).
func addKeys(t *testing.T, db *sqldb.DB, prefix string, n int) {
	t.Helper()
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for i := range n {
			if _, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, status, created_at, locked_until) VALUES (?, ?, 'f', 200, 0, 0)`,
				prefix, prefix+string(rune('a'+i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBackupAndRestore: a backup is a whole, checked database; it never
// replaces a file; a restore refuses while the database is open, and puts
// the backup in place of the database (keeping the one it replaces),
// without replaying a write-ahead log left beside it.
func TestBackupAndRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "commerce.db")
	db := testdb.SQLiteAt(t, path)
	addKeys(t, db, "before", 3)
	backup := filepath.Join(dir, "backups", "one.db")
	if err := sqlite.Backup(ctx, path, backup); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Check(ctx, backup); err != nil {
		t.Fatalf("the backup does not pass its check: %v", err)
	}
	if err := sqlite.Backup(ctx, path, backup); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a backup over an existing file: %v", err)
	}
	if err := sqlite.Backup(ctx, filepath.Join(dir, "none.db"), filepath.Join(dir, "x.db")); err == nil {
		t.Error("a backup of no database: no error")
	}
	addKeys(t, db, "after", 2)

	// While the database is open (this process holds it as serve does),
	// a restore refuses and changes nothing.
	_, err := sqlite.Restore(ctx, backup, path, time.Now())
	if !errors.Is(err, sqlite.ErrInUse) {
		t.Fatalf("restore of an open database: %v", err)
	}
	if n := rows(t, path, "idempotency_keys"); n != 5 {
		t.Fatalf("after a refused restore the database has %d keys, want 5", n)
	}

	// The database as a crash leaves it: its file with the write-ahead
	// log beside it, holding the last writes.
	crashed := filepath.Join(dir, "crashed.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crashed+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(crashed + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no log to leave behind: %v", err)
	}
	if n := rows(t, crashed, "idempotency_keys"); n != 5 {
		t.Fatalf("the crashed copy has %d keys, want 5", n)
	}
	kept, err := sqlite.Restore(ctx, backup, crashed, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(crashed + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old log is still beside the restored database: %v", err)
	}
	if err := sqlite.Check(ctx, crashed); err != nil {
		t.Errorf("the restored database: %v", err)
	}
	if n := rows(t, crashed, "idempotency_keys"); n != 3 {
		t.Errorf("the restored database has %d keys, want the backup's 3", n)
	}
	if n := rows(t, kept, "idempotency_keys"); n != 5 {
		t.Errorf("the database kept from before the restore (%s) has %d keys, want 5", kept, n)
	}
	// A damaged database (it cannot be checkpointed) with a log beside
	// it: the log is kept with it, and never replayed into the restored
	// file.
	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, bytes.Repeat([]byte("damaged "), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(path + "-wal")
	if err != nil || len(wal) == 0 {
		t.Fatalf("no log: %v", err)
	}
	if err := os.WriteFile(damaged+"-wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	kept, err = sqlite.Restore(ctx, backup, damaged, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(damaged + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the damaged database's log is still beside the restored database: %v", err)
	}
	if b, err := os.ReadFile(kept + "-wal"); err != nil || !bytes.Equal(b, wal) {
		t.Errorf("the damaged database's log was not kept with it: %v", err)
	}
	if err := sqlite.Check(ctx, damaged); err != nil || rows(t, damaged, "idempotency_keys") != 3 {
		t.Errorf("the database restored over a damaged one: %v", err)
	}
	// The service opens the restored database and migrates it.
	again := testdb.SQLiteAt(t, crashed)
	addKeys(t, again, "restored", 1)
	if n := rows(t, crashed, "idempotency_keys"); n != 4 {
		t.Errorf("after a write on the restored database: %d keys, want 4", n)
	}
	// Restoring into a new place needs no database there.
	fresh := filepath.Join(dir, "new", "commerce.db")
	if kept, err := sqlite.Restore(ctx, backup, fresh, time.Now()); err != nil || kept != "" {
		t.Errorf("restore into a new file: %q, %v", kept, err)
	}
	// A database being restored is not opened.
	if _, err := os.Stat(fresh); err != nil {
		t.Fatal(err)
	}
}

// TestCheckRefuses: Check (which restore runs first) refuses what is not
// a whole commerce database that this program knows.
func TestCheckRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	db := testdb.SQLiteAt(t, good)
	addKeys(t, db, "k", 20)
	db.Close()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(good + "-wal"); err == nil {
		t.Fatal("the closed database left its log: the copies below would miss it")
	}
	// The root page of the keys' table overwritten.
	var root, pageSize int
	gdb, err := sql.Open("sqlite", "file:"+good+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	if err := gdb.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'idempotency_keys'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := gdb.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	gdb.Close()
	damaged := bytes.Clone(src)
	for i := (root - 1) * pageSize; i < root*pageSize; i++ {
		damaged[i] = 0x5a
	}
	plain := filepath.Join(dir, "plain.db")
	pdb, err := sql.Open("sqlite", plain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pdb.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
	pdb.Close()
	newer := filepath.Join(dir, "newer.db")
	if err := os.WriteFile(newer, src, 0o600); err != nil {
		t.Fatal(err)
	}
	ndb, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ndb.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES ('9999_future.sql', 'x')`); err != nil {
		t.Fatal(err)
	}
	ndb.Close()
	for _, tc := range []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "none.db"), "no such file"},
		{"not SQLite", write("text.db", []byte(strings.Repeat("not a database\n", 400))), "not a readable SQLite database"},
		{"cut short", write("short.db", src[:len(src)/3]), ""},
		{"damaged", write("damaged.db", damaged), ""},
		{"not commerce's", plain, "not a commerce database"},
		{"newer", newer, "9999_future.sql"},
	} {
		err := sqlite.Check(ctx, tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
		if tc.path != filepath.Join(dir, "none.db") {
			target := filepath.Join(dir, "target-"+strings.ReplaceAll(tc.name, " ", "-")+".db")
			if _, err := sqlite.Restore(ctx, tc.path, target, time.Now()); err == nil {
				t.Errorf("%s: restored", tc.name)
			}
			if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: a refused restore left %s", tc.name, target)
			}
		}
	}
	if err := sqlite.Check(ctx, good); err != nil {
		t.Errorf("the good database: %v", err)
	}
}

// TestSchedule: scheduled backups, every 100 ms, keeping the newest 2;
// a second process (another handle on the database) takes none while the
// first leads.
func TestSchedule(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "commerce.db")
	a, b := testdb.SQLiteAt(t, path), testdb.SQLiteAt(t, path)
	addKeys(t, a, "k", 2)
	backups := filepath.Join(dir, "backups")
	var logA, logB syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{}, 2)
	for _, s := range []sqlite.Schedule{
		{DB: a, Path: path, Dir: backups, Every: 100 * time.Millisecond, Keep: 2, Logger: slog.New(slog.NewTextHandler(&logA, nil))},
		{DB: b, Path: path, Dir: backups, Every: 100 * time.Millisecond, Keep: 2, Logger: slog.New(slog.NewTextHandler(&logB, nil))},
	} {
		go func() { s.Run(ctx); done <- struct{}{} }()
	}
	written := func() int {
		return strings.Count(logA.String(), "backup written") + strings.Count(logB.String(), "backup written")
	}
	start := time.Now()
	for deadline := time.Now().Add(20 * time.Second); written() < 4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start)
	cancel()
	<-done
	<-done
	entries, err := os.ReadDir(backups)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !slices.IsSorted(names) || !strings.HasPrefix(names[0], sqlite.BackupPrefix) {
		t.Fatalf("backups left: %v, want the newest 2", names)
	}
	for _, n := range names {
		if err := sqlite.Check(context.Background(), filepath.Join(backups, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	n := written()
	removed := strings.Count(logA.String(), "old backup removed") + strings.Count(logB.String(), "old backup removed")
	if n < 4 || removed != n-2 {
		t.Errorf("%d backups written, %d removed:\n%s\n%s", n, removed, logA.String(), logB.String())
	}
	// Every 100 ms: 4 backups take at least 300 ms.
	if elapsed < 300*time.Millisecond {
		t.Errorf("4 backups in %s, every 100 ms", elapsed)
	}
	if logA.String() != "" && logB.String() != "" {
		t.Errorf("both processes took backups:\n%s\n%s", logA.String(), logB.String())
	}
}

// syncBuffer is a log sink that goroutines write while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
