package sqldb_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/sqldb"
)

// fixture is a table that exists only in these tests, to stand for an
// area's change.
func fixture(t *testing.T, db *sqldb.DB) {
	t.Helper()
	err := db.Update(context.Background(), func(tx *sqldb.Tx) error {
		_, err := tx.Exec(context.Background(), `CREATE TABLE fixture_items (id TEXT PRIMARY KEY, name TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustEvent(t *testing.T, typ string, payload any) event.Event {
	t.Helper()
	e, err := event.New("FIXTURES", typ, time.Now(), payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func count(t *testing.T, db *sqldb.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), db.Rebind(q), args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEventCommitsWithChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		fixture(t, db)
		ev := mustEvent(t, "CREATE", map[string]string{"id": "a"})
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "a", "A"); err != nil {
				return err
			}
			tx.Emit(ev)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		events, err := db.List(ctx, event.Filter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].ID != ev.ID || string(events[0].Payload) != `{"id":"a"}` || events[0].Channel != "FIXTURES" {
			t.Fatalf("got %+v, want the one CREATE event", events)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM fixture_items`); n != 1 {
			t.Errorf("got %d rows, want 1", n)
		}
	})
}

func TestEventRolledBackWithChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		fixture(t, db)
		failure := commerce.Invalid("name: fixture failure")
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "b", "B"); err != nil {
				return err
			}
			tx.Emit(mustEvent(t, "CREATE", map[string]string{"id": "b"}))
			return failure
		})
		if !errors.Is(err, failure) {
			t.Fatalf("got %v, want the operation's own error", err)
		}
		// A failure of the database itself, after the event was queued.
		err = db.Update(ctx, func(tx *sqldb.Tx) error {
			tx.Emit(mustEvent(t, "CREATE", map[string]string{"id": "c"}))
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "c", "C"); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "c", "again")
			return err
		})
		if commerce.ErrorCode(err) != commerce.EDuplicateKey {
			t.Fatalf("got %v, want duplicate_key", err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM events`); n != 0 {
			t.Errorf("got %d events, want none after rollbacks", n)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM fixture_items`); n != 0 {
			t.Errorf("got %d rows, want none after rollbacks", n)
		}
	})
}

func TestEventListOrderAndPaging(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		var ids []string
		for i := range 5 {
			typ := "CREATE"
			if i%2 == 1 {
				typ = "UPDATE"
			}
			e := mustEvent(t, typ, map[string]int{"n": i})
			ids = append(ids, e.ID)
			if err := db.Append(ctx, []event.Event{e}); err != nil {
				t.Fatal(err)
			}
		}
		page, err := db.List(ctx, event.Filter{After: ids[1], Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[3] {
			t.Errorf("after %s limit 2: got %v, want %v", ids[1], page, ids[2:4])
		}
		skipped, err := db.List(ctx, event.Filter{Skip: 3, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(skipped) != 2 || skipped[0].ID != ids[3] {
			t.Errorf("skip 3: got %d events, want the last 2", len(skipped))
		}
		updates, err := db.List(ctx, event.Filter{Type: "UPDATE", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(updates) != 2 || updates[0].ID != ids[1] || updates[1].ID != ids[3] {
			t.Errorf("type UPDATE: got %d events", len(updates))
		}
		if _, err := db.List(ctx, event.Filter{After: "nope", Limit: 1}); commerce.ErrorCode(err) != commerce.EValidation {
			t.Errorf("unknown after: got %v, want validation_error", err)
		}
	})
}

// Concurrent writers: the log's order is the commit order, so a reader that
// pages with "after the last seen" sees every event exactly once.
func TestEventLogConcurrentWriters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		const writers, each = 8, 25
		var wg sync.WaitGroup
		seen := map[string]bool{}
		done := make(chan struct{})
		var readErr error
		go func() {
			defer close(done)
			after := ""
			for len(seen) < writers*each {
				page, err := db.List(ctx, event.Filter{After: after, Limit: 50})
				if err != nil {
					readErr = err
					return
				}
				for _, e := range page {
					if seen[e.ID] {
						readErr = fmt.Errorf("event %s seen twice", e.ID)
						return
					}
					seen[e.ID] = true
					after = e.ID
				}
			}
		}()
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					if err := db.Append(ctx, []event.Event{mustEvent(t, "CREATE", map[string]int{"w": w, "i": i})}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("reader saw %d of %d events", len(seen), writers*each)
		}
		if readErr != nil {
			t.Fatal(readErr)
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		before := count(t, db, `SELECT COUNT(*) FROM schema_migrations`)
		if before == 0 {
			t.Fatal("no migration recorded")
		}
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		if after := count(t, db, `SELECT COUNT(*) FROM schema_migrations`); after != before {
			t.Errorf("got %d migrations after a second run, want %d", after, before)
		}
	})
}

func TestCursor(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if c, err := db.Cursor(ctx, "x"); err != nil || c != 0 {
			t.Fatalf("unset cursor: got %d, %v", c, err)
		}
		for _, v := range []int64{5, 9} {
			if err := db.SetCursor(ctx, "x", v); err != nil {
				t.Fatal(err)
			}
			if c, _ := db.Cursor(ctx, "x"); c != v {
				t.Errorf("got %d, want %d", c, v)
			}
		}
	})
}
