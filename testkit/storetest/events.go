package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
)

// Events is the suite of the event log (the outbox): events exist if and
// only if the transaction that emitted them committed, in one order that
// every reader follows, listed with the filters of event.list, and the
// relay's cursors.
func Events(t *testing.T, open Opener) {
	t.Run("commits with the change", func(t *testing.T) { eventsCommit(t, open(t)) })
	t.Run("rolled back with the change", func(t *testing.T) { eventsRollback(t, open(t)) })
	t.Run("notify after commits with events only", func(t *testing.T) { eventsNotify(t, open(t)) })
	t.Run("append is all or nothing", func(t *testing.T) { eventsAppendAtomic(t, open(t)) })
	t.Run("list filters and paging", func(t *testing.T) { eventsList(t, open(t)) })
	t.Run("events after a position", func(t *testing.T) { eventsAfter(t, open(t)) })
	t.Run("cursors", func(t *testing.T) { eventsCursors(t, open(t)) })
	t.Run("concurrent writers, one reader", func(t *testing.T) { eventsConcurrent(t, open(t)) })
	t.Run("no skip across interleaved transactions", func(t *testing.T) { eventsInterleaved(t, open(t)) })
}

// fixtureEvent returns an event of channel FIXTURES.
func fixtureEvent(t *testing.T, typ string, payload any) event.Event {
	t.Helper()
	e, err := event.New("FIXTURES", typ, time.Now(), payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fixtureItems creates a table that exists only in these tests, to stand
// for an area's change.
func fixtureItems(t *testing.T, db *sqldb.DB) {
	t.Helper()
	exec(t, db, `CREATE TABLE fixture_items (id TEXT PRIMARY KEY, name TEXT NOT NULL)`)
}

func ids(events []event.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func eventsCommit(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	fixtureItems(t, db)
	ev := fixtureEvent(t, "CREATE", map[string]string{"id": "a"})
	ev2 := fixtureEvent(t, "UPDATE", map[string]string{"id": "a", "name": "A2"})
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "a", "A"); err != nil {
			return err
		}
		tx.Emit(ev)
		tx.Emit(ev2)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	events, err := db.List(ctx, event.Filter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("got %d events, want 2", len(events))
	}
	got := events[0]
	if got.ID != ev.ID || got.Channel != "FIXTURES" || got.Type != "CREATE" || string(got.Payload) != `{"id":"a"}` || !got.Date.Equal(ev.Date) {
		t.Errorf("got %+v, want %+v", got, ev)
	}
	if events[1].ID != ev2.ID {
		t.Errorf("second event: got %s, want %s (emission order)", events[1].ID, ev2.ID)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_items`); n != 1 {
		t.Errorf("got %d rows, want 1", n)
	}
}

func eventsRollback(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	fixtureItems(t, db)
	failure := commerce.Invalid("name: fixture failure")
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "b", "B"); err != nil {
			return err
		}
		tx.Emit(fixtureEvent(t, "CREATE", map[string]string{"id": "b"}))
		return failure
	})
	if !errors.Is(err, failure) {
		t.Fatalf("got %v, want the operation's own error", err)
	}
	// A failure of the database itself, after the event was queued.
	err = db.Update(ctx, func(tx *sqldb.Tx) error {
		tx.Emit(fixtureEvent(t, "CREATE", map[string]string{"id": "c"}))
		if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "c", "C"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "c", "again")
		return err
	})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Fatalf("got %v, want duplicate_key", err)
	}
	// A failure of the outbox insert itself: an event id already taken.
	taken := fixtureEvent(t, "CREATE", map[string]string{"id": "d"})
	if err := db.Append(ctx, []event.Event{taken}); err != nil {
		t.Fatal(err)
	}
	err = db.Update(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, "d", "D"); err != nil {
			return err
		}
		tx.Emit(taken)
		return nil
	})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Fatalf("re-used event id: got %v, want duplicate_key", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM events`); n != 1 {
		t.Errorf("got %d events, want only the appended one after rollbacks", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_items`); n != 0 {
		t.Errorf("got %d rows, want none after rollbacks", n)
	}
}

func eventsNotify(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	fixtureItems(t, db)
	ch := db.Notify()
	notified := func() bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	db.Update(ctx, func(tx *sqldb.Tx) error {
		tx.Emit(fixtureEvent(t, "CREATE", nil))
		return errors.New("rolled back")
	})
	if notified() {
		t.Error("notified after a rollback")
	}
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES ('n', 'N')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if notified() {
		t.Error("notified after a commit without events")
	}
	if err := db.Append(ctx, []event.Event{fixtureEvent(t, "CREATE", nil)}); err != nil {
		t.Fatal(err)
	}
	if !notified() {
		t.Error("not notified after a commit with events")
	}
}

func eventsAppendAtomic(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	a, b := fixtureEvent(t, "VIEWED", 1), fixtureEvent(t, "VIEWED", 2)
	dup := b
	dup.Payload = []byte(`3`)
	err := db.Append(ctx, []event.Event{a, b, dup})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Fatalf("got %v, want duplicate_key", err)
	}
	if idx, _ := commerce.ErrorData(err).(map[string]any); idx["index"] != "id" {
		t.Errorf("got data %v, want index id", commerce.ErrorData(err))
	}
	if n := count(t, db, `SELECT COUNT(*) FROM events`); n != 0 {
		t.Fatalf("got %d events, want none of a failed batch", n)
	}
	if err := db.Append(ctx, []event.Event{a, b}); err != nil {
		t.Fatal(err)
	}
	got, err := db.List(ctx, event.Filter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got), []string{a.ID, b.ID}) {
		t.Errorf("got %v, want %v", ids(got), []string{a.ID, b.ID})
	}
}

func eventsList(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	// Nine events: channels A, B, A, B...; types CREATE, UPDATE, REMOVE in turn.
	var all []event.Event
	for i := range 9 {
		e := fixtureEvent(t, []string{"CREATE", "UPDATE", "REMOVE"}[i%3], map[string]int{"n": i})
		e.Channel = []string{"A", "B"}[i%2]
		all = append(all, e)
		if err := db.Append(ctx, []event.Event{e}); err != nil {
			t.Fatal(err)
		}
	}
	pick := func(keep func(i int, e event.Event) bool) []string {
		var out []string
		for i, e := range all {
			if keep(i, e) {
				out = append(out, e.ID)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		filter event.Filter
		want   []string
	}{
		{"all", event.Filter{Limit: 100}, ids(all)},
		{"limit", event.Filter{Limit: 4}, ids(all[:4])},
		{"skip", event.Filter{Skip: 7, Limit: 100}, ids(all[7:])},
		{"skip beyond", event.Filter{Skip: 20, Limit: 100}, nil},
		{"channel", event.Filter{Channel: "B", Limit: 100}, pick(func(i int, _ event.Event) bool { return i%2 == 1 })},
		{"type", event.Filter{Type: "UPDATE", Limit: 100}, pick(func(i int, _ event.Event) bool { return i%3 == 1 })},
		{"channel and type", event.Filter{Channel: "A", Type: "CREATE", Limit: 100}, pick(func(i int, _ event.Event) bool { return i%2 == 0 && i%3 == 0 })},
		{"after", event.Filter{After: all[2].ID, Limit: 3}, ids(all[3:6])},
		{"after the last", event.Filter{After: all[8].ID, Limit: 3}, nil},
		{"after, channel", event.Filter{After: all[2].ID, Channel: "A", Limit: 100}, pick(func(i int, _ event.Event) bool { return i > 2 && i%2 == 0 })},
		{"after an event of another channel", event.Filter{After: all[3].ID, Channel: "A", Limit: 100}, pick(func(i int, _ event.Event) bool { return i > 3 && i%2 == 0 })},
		{"after, skip, limit", event.Filter{After: all[0].ID, Skip: 2, Limit: 2}, ids(all[3:5])},
		{"unknown channel", event.Filter{Channel: "NONE", Limit: 100}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.List(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tc.want) {
				t.Errorf("got %v, want %v", ids(got), tc.want)
			}
		})
	}
	t.Run("unknown after", func(t *testing.T) {
		if _, err := db.List(ctx, event.Filter{After: "nope", Limit: 1}); commerce.ErrorCode(err) != commerce.EValidation {
			t.Errorf("got %v, want validation_error", err)
		}
	})
}

func eventsAfter(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	var all []event.Event
	for i := range 5 {
		all = append(all, fixtureEvent(t, "CREATE", i))
	}
	if err := db.Append(ctx, all[:3]); err != nil {
		t.Fatal(err)
	}
	if err := db.Append(ctx, all[3:]); err != nil {
		t.Fatal(err)
	}
	first, err := db.EventsAfter(ctx, sqldb.Position{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || first[0].ID != all[0].ID || first[1].ID != all[1].ID || !positionLess(first[0].Pos, first[1].Pos) {
		t.Fatalf("got %+v, want the first two events in order", first)
	}
	rest, err := db.EventsAfter(ctx, first[1].Pos, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rest {
		got = append(got, s.ID)
	}
	if !slices.Equal(got, ids(all[2:])) {
		t.Errorf("after %v: got %v, want %v", first[1].Pos, got, ids(all[2:]))
	}
	none, err := db.EventsAfter(ctx, rest[len(rest)-1].Pos, 10)
	if err != nil || len(none) != 0 {
		t.Errorf("after the last: got %v, %v; want nothing", none, err)
	}
}

// positionLess reports a < b in log order.
func positionLess(a, b sqldb.Position) bool {
	return a.K < b.K || a.K == b.K && a.Seq < b.Seq
}

func eventsCursors(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	if c, err := db.Cursor(ctx, "x"); err != nil || c != (sqldb.Position{}) {
		t.Fatalf("unset cursor: got %v, %v; want the zero position", c, err)
	}
	for _, v := range []sqldb.Position{{K: 0, Seq: 5}, {K: 7, Seq: 9}, {K: 7, Seq: 2}} {
		if err := db.SetCursor(ctx, "x", v); err != nil {
			t.Fatal(err)
		}
		if c, err := db.Cursor(ctx, "x"); err != nil || c != v {
			t.Errorf("got %v, %v; want %v", c, err, v)
		}
	}
	if err := db.SetCursor(ctx, "y", sqldb.Position{Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.Cursor(ctx, "x"); c != (sqldb.Position{K: 7, Seq: 2}) {
		t.Errorf("cursor x: got %v after setting y, want {7 2}", c)
	}
}

// eventsConcurrent: concurrent writers, and a reader paging with "after
// the last seen": the reader sees every event exactly once.
func eventsConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	const writers, each = 8, 25
	seen := map[string]bool{}
	done := make(chan error, 1)
	go func() {
		after := ""
		for len(seen) < writers*each {
			page, err := db.List(ctx, event.Filter{After: after, Limit: 50})
			if err != nil {
				done <- err
				return
			}
			for _, e := range page {
				if seen[e.ID] {
					done <- fmt.Errorf("event %s seen twice", e.ID)
					return
				}
				seen[e.ID] = true
				after = e.ID
			}
		}
		done <- nil
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := db.Append(ctx, []event.Event{fixtureEvent(t, "CREATE", map[string]int{"w": w, "i": i})}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the reader has not seen all %d events in a minute: an event was skipped", writers*each)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM events`); n != writers*each {
		t.Errorf("got %d events, want %d", n, writers*each)
	}
}

// eventsInterleaved: a transaction T1 starts writing (on PostgreSQL it
// has a transaction id) and stays open; T2 starts after it and commits
// its event E2 (SQLite's single writer makes it wait for T1 instead). A
// reader that reads the log now, as the relay does (position by position,
// without waiting), and again after T1 committed its event E1, reads both,
// once each: it never skips E1 although E1 committed after E2 did.
func eventsInterleaved(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	fixtureItems(t, db)
	db.SetEventWait(-1) // the reader sees what is below the horizon, at once
	e1, e2 := fixtureEvent(t, "CREATE", "T1"), fixtureEvent(t, "CREATE", "T2")
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done1, done2 := make(chan error, 1), make(chan error, 1)
	go func() {
		done1 <- db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES ('t1', 'T1')`); err != nil {
				return err
			}
			once.Do(func() { close(started) })
			<-release
			tx.Emit(e1)
			return nil
		})
	}()
	<-started
	go func() { done2 <- db.Append(ctx, []event.Event{e2}) }()
	t2committed := false
	select {
	case err := <-done2:
		if err != nil {
			t.Fatal(err)
		}
		t2committed = true
	case <-time.After(500 * time.Millisecond): // queued behind T1 (one writer)
	}

	var pos sqldb.Position
	var seen []string
	read := func() {
		t.Helper()
		page, err := db.EventsAfter(ctx, pos, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page {
			if !positionLess(pos, s.Pos) {
				t.Fatalf("event %s at %v, not after %v", s.ID, s.Pos, pos)
			}
			seen = append(seen, s.ID)
			pos = s.Pos
		}
	}
	read()
	if slices.Contains(seen, e1.ID) {
		t.Fatal("read T1's event before T1 committed")
	}
	close(release)
	if err := <-done1; err != nil {
		t.Fatal(err)
	}
	if !t2committed {
		if err := <-done2; err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); len(seen) < 2 && time.Now().Before(deadline); {
		read()
		time.Sleep(5 * time.Millisecond)
	}
	if len(seen) != 2 || !slices.Contains(seen, e1.ID) || !slices.Contains(seen, e2.ID) {
		t.Fatalf("the reader read %v, want both %s (T1) and %s (T2) once", seen, e1.ID, e2.ID)
	}
	// event.list, paging with after, reads them in the same order.
	db.SetEventWait(0)
	var listed []string
	after := ""
	for range 3 {
		page, err := db.List(ctx, event.Filter{After: after, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			listed = append(listed, e.ID)
			after = e.ID
		}
	}
	if !slices.Equal(listed, seen) {
		t.Errorf("event.list order %v, the relay's %v", listed, seen)
	}
}
