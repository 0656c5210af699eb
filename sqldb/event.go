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

// insertEvents writes the outbox rows of a transaction in one statement.
// The caller has taken the dialect's event lock (Dialect.LockEvents) so
// that sequence numbers follow commit order (a reader paging with
// "seq > last" then never skips a late-committing event).
func (db *DB) insertEvents(ctx context.Context, tx *Tx, events []event.Event) error {
	var b strings.Builder
	b.WriteString(`INSERT INTO events (id, channel, type, date, payload) VALUES `)
	args := make([]any, 0, 5*len(events))
	for i, e := range events {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, e.ID, e.Channel, e.Type, e.Date.UTC().Format(time.RFC3339Nano), string(e.Payload))
	}
	if _, err := tx.Exec(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("insert events: %w", err)
	}
	return nil
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
	Seq int64
	event.Event
}

// List reads the log in order (event.Log).
func (db *DB) List(ctx context.Context, f event.Filter) ([]event.Event, error) {
	var after int64
	if f.After != "" {
		err := db.QueryRow(ctx, `SELECT seq FROM events WHERE id = ?`, f.After).Scan(&after)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, commerce.Invalid("after: no event with id " + f.After)
		}
		if err != nil {
			return nil, db.translate(err)
		}
	}
	q := `SELECT seq, id, channel, type, date, payload FROM events WHERE seq > ?`
	args := []any{after}
	if f.Channel != "" {
		q += ` AND channel = ?`
		args = append(args, f.Channel)
	}
	if f.Type != "" {
		q += ` AND type = ?`
		args = append(args, f.Type)
	}
	q += ` ORDER BY seq LIMIT ? OFFSET ?`
	args = append(args, f.Limit, f.Skip)
	stored, err := db.scanEvents(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	out := make([]event.Event, len(stored))
	for i, s := range stored {
		out[i] = s.Event
	}
	return out, nil
}

// EventsAfter returns up to limit events with a sequence number above seq.
func (db *DB) EventsAfter(ctx context.Context, seq int64, limit int) ([]Stored, error) {
	return db.scanEvents(ctx, `SELECT seq, id, channel, type, date, payload FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
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
		if err := rows.Scan(&s.Seq, &s.ID, &s.Channel, &s.Type, &date, &payload); err != nil {
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

// Cursor returns the relay cursor of the given name (0 when unset).
func (db *DB) Cursor(ctx context.Context, name string) (int64, error) {
	var seq int64
	err := db.QueryRow(ctx, `SELECT seq FROM relay_cursors WHERE name = ?`, name).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, db.translate(err)
}

// SetCursor stores the relay cursor.
func (db *DB) SetCursor(ctx context.Context, name string, seq int64) error {
	return db.Update(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, db.dialect.Upsert("relay_cursors", []string{"name", "seq"}, []string{"name"}, []string{"seq"}), name, seq)
		return err
	})
}
