package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

func newEvent(t *testing.T, payload any) event.Event {
	t.Helper()
	e, err := event.New("FIXTURES", "CREATE", time.Now(), payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// relayReader reads the log as the relay does: position after position.
type relayReader struct {
	db   *sqldb.DB
	pos  sqldb.Position
	seen []string
}

func (r *relayReader) read(t *testing.T) {
	t.Helper()
	page, err := r.db.EventsAfter(context.Background(), r.pos, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page {
		if s.Pos.K < r.pos.K || s.Pos.K == r.pos.K && s.Pos.Seq <= r.pos.Seq {
			t.Fatalf("event %s at %v, not after %v", s.ID, s.Pos, r.pos)
		}
		r.seen = append(r.seen, s.ID)
		r.pos = s.Pos
	}
}

// TestOutboxNoSkipWhileCommitting holds a transaction T1 after its event
// E1 is inserted, inside its COMMIT (a deferred trigger waits for a lock
// the test holds), while T2, started later, commits E2 and a reader reads
// the log. Ordered by sequence number alone, the reader would read E2,
// then never E1 (a smaller sequence number, committed later): the
// reader reads both.
func TestOutboxNoSkipWhileCommitting(t *testing.T) {
	url := testdb.PostgresURL(t)
	db := testdb.PostgresAt(t, url)
	db.SetEventWait(-1) // read below the horizon at once, as the relay does
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range []string{
			`CREATE TABLE fixture_hold (id INTEGER)`,
			`CREATE FUNCTION fixture_hold() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN PERFORM pg_advisory_xact_lock_shared(4242); RETURN NULL; END $$`,
			`CREATE CONSTRAINT TRIGGER fixture_hold AFTER INSERT ON fixture_hold
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fixture_hold()`,
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
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	lock, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, `SELECT pg_advisory_lock(4242)`); err != nil {
		t.Fatal(err)
	}

	e1, e2 := newEvent(t, "T1"), newEvent(t, "T2")
	done1 := make(chan error, 1)
	go func() {
		done1 <- db.Update(ctx, func(tx *sqldb.Tx) error {
			tx.Emit(e1)
			_, err := tx.Exec(ctx, `INSERT INTO fixture_hold (id) VALUES (1)`)
			return err
		})
	}()
	// T1 waits in its COMMIT, its event inserted.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		var waiting int
		if err := admin.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = 4242`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("T1 never reached its commit")
		}
	}
	if err := db.Append(ctx, []event.Event{e2}); err != nil {
		t.Fatal(err)
	}
	r := &relayReader{db: db}
	r.read(t)
	if len(r.seen) != 0 {
		t.Errorf("read %v while T1, older than E2's transaction, is still committing: want nothing yet", r.seen)
	}
	if _, err := lock.ExecContext(ctx, `SELECT pg_advisory_unlock(4242)`); err != nil {
		t.Fatal(err)
	}
	if err := <-done1; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); len(r.seen) < 2 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		r.read(t)
	}
	if want := []string{e1.ID, e2.ID}; !slices.Equal(r.seen, want) {
		t.Errorf("read %v, want %v (T1's event, then T2's)", r.seen, want)
	}
}

// TestOutboxCausalOrder: T2 gets its transaction id first (it writes
// first), then waits for a row T1 locked. T1 commits E1; T2, which saw
// T1's change, commits E2. By transaction id alone E2 would come first;
// the log has E1, then E2.
func TestOutboxCausalOrder(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range []string{
			`CREATE TABLE fixture_rows (id TEXT PRIMARY KEY, v INTEGER NOT NULL)`,
			`INSERT INTO fixture_rows (id, v) VALUES ('r', 0)`,
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
	e1, e2 := newEvent(t, "T1"), newEvent(t, "T2")
	t2Has, t1Holds := make(chan struct{}), make(chan struct{})
	var once2, once1 sync.Once
	var wg sync.WaitGroup
	var err1, err2 error
	var xid1, xid2 int64
	wg.Go(func() {
		err2 = db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_rows (id, v) VALUES ('t2', 0)`); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text::bigint`).Scan(&xid2); err != nil {
				return err
			}
			once2.Do(func() { close(t2Has) })
			<-t1Holds
			var v int
			if err := tx.QueryRow(ctx, `SELECT v FROM fixture_rows WHERE id = 'r' FOR UPDATE`).Scan(&v); err != nil {
				return err
			}
			if v != 1 {
				return fmt.Errorf("T2 read v=%d, want T1's 1", v)
			}
			tx.Emit(e2)
			return nil
		})
	})
	<-t2Has
	wg.Go(func() {
		err1 = db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE fixture_rows SET v = 1 WHERE id = 'r'`); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text::bigint`).Scan(&xid1); err != nil {
				return err
			}
			once1.Do(func() { close(t1Holds) })
			time.Sleep(50 * time.Millisecond) // T2 now waits for the row
			tx.Emit(e1)
			return nil
		})
	})
	wg.Wait()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if xid2 >= xid1 {
		t.Fatalf("T2 has id %d, T1 %d: the test needs T2's to be the smaller", xid2, xid1)
	}
	events, err := db.List(ctx, event.Filter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.ID)
	}
	if want := []string{e1.ID, e2.ID}; !slices.Equal(got, want) {
		t.Errorf("log %v, want %v (T1's event first: T2 waited for T1)", got, want)
	}
}

// TestOutboxTwoProcesses: writers on two connection pools (two service
// processes) on one database, and a reader on each: every reader reads
// every event exactly once, in the same order.
func TestOutboxTwoProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	dbs := []*sqldb.DB{testdb.PostgresAt(t, url), testdb.PostgresAt(t, url)}
	ctx := context.Background()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := dbs[w%2].Append(ctx, []event.Event{newEvent(t, []int{w, i}), newEvent(t, []int{w, i, 2})}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	readers := []*relayReader{{db: dbs[0]}, {db: dbs[1]}}
	for _, r := range readers {
		r.db.SetEventWait(-1)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		for _, r := range readers {
			r.read(t)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && (len(readers[0].seen) < 2*writers*each || len(readers[1].seen) < 2*writers*each); time.Sleep(5 * time.Millisecond) {
		for _, r := range readers {
			r.read(t)
		}
	}
	for i, r := range readers {
		seen := map[string]bool{}
		for _, id := range r.seen {
			if seen[id] {
				t.Fatalf("reader %d read %s twice", i, id)
			}
			seen[id] = true
		}
		if len(seen) != 2*writers*each {
			t.Errorf("reader %d read %d events, want %d", i, len(seen), 2*writers*each)
		}
	}
	if !slices.Equal(readers[0].seen, readers[1].seen) {
		t.Error("the two readers read the log in different orders")
	}
}
