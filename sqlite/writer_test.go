package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/sqlite"
	"github.com/commercekit/commerce/testkit/testdb"
)

// holdWriter starts a write that holds the single writer until release is
// closed, and returns once that write runs.
func holdWriter(t *testing.T, db *sqldb.DB, wg *sync.WaitGroup) (release chan struct{}) {
	t.Helper()
	release = make(chan struct{})
	running := make(chan struct{})
	wg.Go(func() {
		if err := db.Update(context.Background(), func(*sqldb.Tx) error {
			close(running)
			<-release
			return nil
		}); err != nil {
			t.Error(err)
		}
	})
	<-running
	return release
}

// waitQueued waits until n writes are queued.
func waitQueued(t *testing.T, db *sqldb.DB, n int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); db.Stats().Queued != n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", db.Stats().Queued, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWriterGroupCommitFIFO: writes queued while the writer is busy run in
// the order they came, and commit together, in one physical transaction.
func TestWriterGroupCommitFIFO(t *testing.T) {
	db := testdb.SQLite(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	release := holdWriter(t, db, &wg)
	before := db.Stats()
	const n = 50
	var mu sync.Mutex
	var order []int
	for i := range n {
		wg.Go(func() {
			if err := db.Update(ctx, func(tx *sqldb.Tx) error {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				_, err := tx.Exec(ctx, `INSERT INTO relay_cursors (name, seq) VALUES (?, ?)`, fmt.Sprint("w", i), i)
				return err
			}); err != nil {
				t.Error(err)
			}
		})
		waitQueued(t, db, int64(i+1)) // queued in this order
	}
	close(release)
	wg.Wait()
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(order, want) {
		t.Errorf("ran in order %v, want first come first served", order)
	}
	after := db.Stats()
	if tx, commits := after.Transactions-before.Transactions, after.Commits-before.Commits; tx != n+1 || commits > 2 {
		t.Errorf("%d transactions in %d commits, want %d in at most 2 (the held one, then the group)", tx, commits, n+1)
	}
	var rows int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM relay_cursors`).Scan(&rows); err != nil || rows != n {
		t.Errorf("got %d rows, %v; want %d", rows, err, n)
	}
}

// TestWriterWithdraw: a write whose caller gives up while it is still
// queued never runs.
func TestWriterWithdraw(t *testing.T) {
	db := testdb.SQLite(t)
	var wg sync.WaitGroup
	release := holdWriter(t, db, &wg)
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	errc := make(chan error, 1)
	go func() {
		errc <- db.Update(ctx, func(*sqldb.Tx) error {
			ran = true
			return nil
		})
	}()
	waitQueued(t, db, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	close(release)
	wg.Wait()
	// One more write, after which the withdrawn one would have run.
	if err := db.Update(context.Background(), func(*sqldb.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("the withdrawn write ran")
	}
}

// TestWriterCommitFailureIsolated: when the group's COMMIT fails because
// of one write (a deferred foreign key checked at commit), the others of
// the group still commit, each alone, and only that write fails.
func TestWriterCommitFailureIsolated(t *testing.T) {
	db := testdb.SQLite(t)
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range []string{
			`CREATE TABLE fixture_parents (id TEXT PRIMARY KEY)`,
			`CREATE TABLE fixture_children (id TEXT PRIMARY KEY, parent TEXT NOT NULL REFERENCES fixture_parents (id) DEFERRABLE INITIALLY DEFERRED)`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	release := holdWriter(t, db, &wg)
	errs := make([]error, 3)
	for i, q := range []string{
		`INSERT INTO fixture_parents (id) VALUES ('a')`,
		`INSERT INTO fixture_children (id, parent) VALUES ('orphan', 'none')`, // fails at COMMIT
		`INSERT INTO fixture_parents (id) VALUES ('b')`,
	} {
		wg.Go(func() {
			errs[i] = db.Update(ctx, func(tx *sqldb.Tx) error {
				_, err := tx.Exec(ctx, q)
				return err
			})
		})
		waitQueued(t, db, int64(i+1))
	}
	close(release)
	wg.Wait()
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the valid writes: %v, %v", errs[0], errs[2])
	}
	if !sqldb.IsForeignKey(errs[1]) {
		t.Errorf("the orphan: got %v, want a foreign key violation", errs[1])
	}
	var parents, children int
	db.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_parents`).Scan(&parents)
	db.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_children`).Scan(&children)
	if parents != 2 || children != 0 {
		t.Errorf("got %d parents and %d children, want 2 and 0", parents, children)
	}
}

// TestSync: commits are flushed to the disk (synchronous=FULL) unless
// SyncNormal is asked for.
func TestSync(t *testing.T) {
	for _, tc := range []struct {
		sync string
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{"", 2}, {sqlite.SyncFull, 2}, {sqlite.SyncNormal, 1}} {
		t.Run(tc.sync, func(t *testing.T) {
			db, err := sqlite.OpenWith(filepath.Join(t.TempDir(), "c.db"), sqlite.Options{Sync: tc.sync})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var got int
			if err := db.Update(context.Background(), func(tx *sqldb.Tx) error {
				return tx.QueryRow(context.Background(), `PRAGMA synchronous`).Scan(&got)
			}); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("writer's synchronous = %d, want %d", got, tc.want)
			}
		})
	}
	if _, err := sqlite.OpenWith(filepath.Join(t.TempDir(), "c.db"), sqlite.Options{Sync: "off"}); err == nil {
		t.Error("sync off: got no error")
	}
}

// TestCheckpointer: the log is copied into the database file in the
// background (the writer does not checkpoint).
func TestCheckpointer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	db := testdb.SQLiteAt(t, path)
	ctx := context.Background()
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TABLE fixture_blobs (b TEXT)`); err != nil {
			return err
		}
		for range 256 {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_blobs (b) VALUES (?)`, strings.Repeat("x", 8000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); size() < before+2<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the database file has %d bytes, was %d: the 2 MB written are still only in the log", size(), before)
		}
	}
}

// TestWriterGroupEvents: the events of a group are written together at
// its end, those of each write that succeeded in queue order and with the
// actor of its own request; a write that failed leaves none.
func TestWriterGroupEvents(t *testing.T) {
	db := testdb.SQLite(t)
	var wg sync.WaitGroup
	release := holdWriter(t, db, &wg)
	writes := []struct {
		actor string
		fail  bool
	}{{"staff-a", false}, {"staff-b", true}, {"", false}, {"staff-c", false}}
	errs := make([]error, len(writes))
	for i, w := range writes {
		wg.Go(func() {
			ctx := context.Background()
			if w.actor != "" {
				ctx = event.WithActor(ctx, w.actor)
			}
			errs[i] = db.Update(ctx, func(tx *sqldb.Tx) error {
				for j := range 2 {
					e, err := event.New("FIXTURES", event.Create, time.Now(), map[string]int{"write": i, "n": j})
					if err != nil {
						return err
					}
					tx.Emit(e)
				}
				if w.fail {
					return errors.New("fixture failure")
				}
				return nil
			})
		})
		waitQueued(t, db, int64(i+1))
	}
	close(release)
	wg.Wait()
	if errs[0] != nil || errs[1] == nil || errs[2] != nil || errs[3] != nil {
		t.Fatalf("got %v, want the second write alone to fail", errs)
	}
	stored, err := db.EventsAfter(context.Background(), sqldb.Position{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range stored {
		got = append(got, fmt.Sprintf("%s %s", e.Actor, e.Payload))
	}
	want := []string{
		`staff-a {"n":0,"write":0}`, `staff-a {"n":1,"write":0}`,
		` {"n":0,"write":2}`, ` {"n":1,"write":2}`,
		`staff-c {"n":0,"write":3}`, `staff-c {"n":1,"write":3}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
