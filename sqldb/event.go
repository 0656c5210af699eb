package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// The event log (the outbox). Each event has a position (k, seq): seq
// from the table's sequence, k the dialect's order key (Dialect.EventKey;
// 0 on a database with a single writer, the writing transaction's id on
// PostgreSQL). Readers go through the log in position order and read only
// the events below the dialect's horizon (Dialect.EventHorizon): the part
// of the log no transaction still running can add to. So a reader that
// remembers the position of the last event it read never skips an event
// committed later, and write transactions never wait for each other to
// write their events.

// DefaultEventWait bounds how long List and EventsAfter wait for the
// write transactions running when they are called (Dialect.AwaitEvents):
// past it they answer without the events of a transaction that runs for
// longer (it comes later, never skipped).
const DefaultEventWait = 10 * time.Second

// SetEventWait sets the bound of the wait of List and EventsAfter
// (DefaultEventWait when d is 0; no wait when d is negative: a read then
// sees only the part of the log below the horizon at once).
func (db *DB) SetEventWait(d time.Duration) {
	if d == 0 {
		d = DefaultEventWait
	}
	db.eventWait.Store(int64(d))
}

// EventWait returns the bound of the wait of List and EventsAfter.
func (db *DB) EventWait() time.Duration { return time.Duration(db.eventWait.Load()) }

// Position is a place in the event log: the order key and sequence number
// of an event. The zero Position is before every event.
type Position struct {
	K, Seq int64
}

// eventChunks are the sizes of the multi-row inserts of events: a batch
// of any size is a few statements of these sizes, so that the statements
// stay few (and prepared).
var eventChunks = []int{64, 16, 4, 1}

// insertEvents writes the outbox rows of a transaction, in emission order.
func (db *DB) insertEvents(ctx context.Context, tx *Tx, events []event.Event) error {
	for _, st := range db.eventStatements(ctx, events) {
		if _, err := tx.Exec(ctx, st.SQL, st.Args...); err != nil {
			return fmt.Errorf("insert events: %w", err)
		}
	}
	return nil
}

// eventStatements are the inserts of the outbox rows of events, in
// emission order, with ? placeholders.
func (db *DB) eventStatements(ctx context.Context, events []event.Event) []Statement {
	key := db.dialect.EventKey()
	actor0 := event.ActorFrom(ctx) // who made the change (admin app), or ""
	var out []Statement
	for len(events) > 0 {
		n := 1
		for _, c := range eventChunks {
			if len(events) >= c {
				n = c
				break
			}
		}
		var b strings.Builder
		b.WriteString(`INSERT INTO events (k, id, channel, type, date, payload, actor, owner) VALUES `)
		args := make([]any, 0, 7*n)
		for i, e := range events[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + key + ", ?, ?, ?, ?, ?, ?, ?)")
			actor := e.Actor
			if actor == "" {
				actor = actor0
			}
			args = append(args, e.ID, e.Channel, e.Type, e.Date.UTC().Format(time.RFC3339Nano), Text(e.Payload), actor, e.Owner)
		}
		out = append(out, Statement{SQL: b.String(), Args: args})
		events = events[n:]
	}
	return out
}

// Append writes events in a transaction of their own (event.Log).
func (db *DB) Append(ctx context.Context, events []event.Event) error {
	return db.Update(ctx, func(tx *Tx) error {
		tx.events = append(tx.events, events...)
		return nil
	})
}

// Stored is an event with its position in the log.
type Stored struct {
	Pos Position
	event.Event
}

// eventColumns are what scanEvents reads.
const eventColumns = `k, seq, id, channel, type, date, payload, actor`

// horizon returns " AND <the dialect's horizon>", or "".
func (db *DB) horizon() string {
	if h := db.dialect.EventHorizon(); h != "" {
		return " AND " + h
	}
	return ""
}

// List reads the log in order (event.Log). It first waits, a bounded
// time, for the write transactions running when it was called to end
// (Dialect.AwaitEvents), so that it lists every event committed before
// the call.
func (db *DB) List(ctx context.Context, f event.Filter) ([]event.Event, error) {
	var after Position
	if f.After != "" {
		err := db.QueryRow(ctx, `SELECT k, seq FROM events WHERE id = ?`, f.After).Scan(&after.K, &after.Seq)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, commerce.Invalid("after: no event with id " + f.After)
		}
		if err != nil {
			return nil, db.translate(err)
		}
	}
	if err := db.dialect.AwaitEvents(ctx, db.read, db.EventWait()); err != nil {
		return nil, db.translate(fmt.Errorf("await events: %w", err))
	}
	var cond string
	var condArgs []any
	if f.Channel != "" {
		cond += ` AND channel = ?`
		condArgs = append(condArgs, f.Channel)
	}
	if f.Type != "" {
		cond += ` AND type = ?`
		condArgs = append(condArgs, f.Type)
	}
	q, args := db.eventsAfter(eventColumns, nil, after, cond, condArgs, f.Limit, f.Skip)
	stored, err := db.scanEvents(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return eventsOf(stored), nil
}

// eventsOf returns the events of stored ones, without their positions.
func eventsOf(stored []Stored) []event.Event {
	out := make([]event.Event, len(stored))
	for i, s := range stored {
		out[i] = s.Event
	}
	return out
}

// EventsAfter returns up to limit events after position after, in log
// order, once the write transactions running when it was called have
// ended (as List).
func (db *DB) EventsAfter(ctx context.Context, after Position, limit int) ([]Stored, error) {
	if err := db.dialect.AwaitEvents(ctx, db.read, db.EventWait()); err != nil {
		return nil, db.translate(fmt.Errorf("await events: %w", err))
	}
	q, args := db.eventsAfter(eventColumns, nil, after, "", nil, limit, 0)
	return db.scanEvents(ctx, q, args...)
}

// EventHeadsAfter is EventsAfter reading the payloads of the events of
// one channel only (the others have an empty Payload): a follower that
// routes events by channel and type reads no more than it needs (a cart's
// event carries the whole cart).
func (db *DB) EventHeadsAfter(ctx context.Context, after Position, limit int, payloadChannel string) ([]Stored, error) {
	if err := db.dialect.AwaitEvents(ctx, db.read, db.EventWait()); err != nil {
		return nil, db.translate(fmt.Errorf("await events: %w", err))
	}
	cols := strings.Replace(eventColumns, "payload", "CASE WHEN channel = ? THEN payload ELSE '' END AS payload", 1)
	q, args := db.eventsAfter(cols, []any{payloadChannel}, after, "", nil, limit, 0)
	return db.scanEvents(ctx, q, args...)
}

// eventsAfter returns the query of the events after position after that
// match cond (" AND ..." with its args), read as cols (eventColumns, or
// the same with expressions whose args are colArgs), in log order, skip of them
// skipped and at most limit. It reads the rest of after's order key and
// the later keys as two index ranges joined by UNION ALL: SQLite seeks an
// index on the first column of a row-value comparison only, so
// "(k, seq) > (?, ?)" read every event of the key from its start on each
// call, and on SQLite every event has key 0 (the webhook follower's poll
// cost 14 ms at 160,000 events, and grew with the log).
func (db *DB) eventsAfter(cols string, colArgs []any, after Position, cond string, condArgs []any, limit, skip int) (string, []any) {
	where := db.horizon() + cond + ` ORDER BY k, seq LIMIT ?`
	q := `SELECT ` + eventColumns + ` FROM (` +
		`SELECT ` + eventColumns + ` FROM (SELECT ` + cols + ` FROM events WHERE k = ? AND seq > ?` + where + `) AS same` +
		` UNION ALL ` +
		`SELECT ` + eventColumns + ` FROM (SELECT ` + cols + ` FROM events WHERE k > ?` + where + `) AS later` +
		`) AS e ORDER BY k, seq LIMIT ? OFFSET ?`
	args := make([]any, 0, 8+2*len(condArgs)+2*len(colArgs))
	args = append(append(append(append(args, colArgs...), after.K, after.Seq), condArgs...), limit+skip)
	args = append(append(append(append(args, colArgs...), after.K), condArgs...), limit+skip)
	return q, append(args, limit, skip)
}

func (db *DB) scanEvents(ctx context.Context, q string, args ...any) ([]Stored, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Stored
	for rows.Next() {
		var s Stored
		var date, payload string
		if err := rows.Scan(&s.Pos.K, &s.Pos.Seq, &s.ID, &s.Channel, &s.Type, &date, &payload, &s.Actor); err != nil {
			return nil, db.translate(err)
		}
		s.Date, err = time.Parse(time.RFC3339Nano, date)
		if err != nil {
			return nil, fmt.Errorf("event %s: bad date %q: %w", s.ID, date, err)
		}
		s.Payload = json.RawMessage(payload)
		out = append(out, s)
	}
	return out, db.translate(rows.Err())
}

// Cursor returns the relay cursor of the given name (the zero Position
// when unset).
func (db *DB) Cursor(ctx context.Context, name string) (Position, error) {
	var p Position
	err := db.QueryRow(ctx, `SELECT k, seq FROM relay_cursors WHERE name = ?`, name).Scan(&p.K, &p.Seq)
	if errors.Is(err, sql.ErrNoRows) {
		return Position{}, nil
	}
	return p, db.translate(err)
}

// SetCursor stores the relay cursor.
func (db *DB) SetCursor(ctx context.Context, name string, p Position) error {
	return db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, db.dialect.Upsert("relay_cursors", 1, []string{"name", "k", "seq"}, []string{"name"}, []string{"k", "seq"}), name, p.K, p.Seq)
		return err
	})
}
