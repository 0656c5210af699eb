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
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/webhook"
)

// WebhookStore is the webhook area's storage (webhook.Store): webhooks,
// their deliveries, the outbox follower that creates deliveries (cursor
// "webhook" in relay_cursors) and the claiming of due deliveries.
//
// Claiming leases a delivery to one dispatcher (claim, claimed_until), so
// that among processes sharing a database each delivery is attempted by
// one at a time. Where the dialect has it (Dialect.SkipLocked: PostgreSQL),
// the claim reads its candidates with FOR UPDATE SKIP LOCKED, so
// concurrent dispatchers take disjoint batches without waiting for each
// other; where write transactions are serialised (SQLite) the claim is
// atomic anyway.
type WebhookStore struct{ db *DB }

// NewWebhookStore returns the webhook store over db.
func NewWebhookStore(db *DB) *WebhookStore { return &WebhookStore{db: db} }

var _ webhook.Store = (*WebhookStore)(nil)

const (
	webhookCursor  = "webhook"
	webhookLeadKey = 7262015
	webhookColumns = `id, url, channels, types, description, active, created_at`
	deliveryCols   = `d.id, d.webhook_id, d.event_id, d.status, d.attempts, d.last_status_code, d.last_error, d.next_attempt_at, d.delivered_at`
)

func ms(t time.Time) int64 { return t.UnixMilli() }

func msTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := time.UnixMilli(v.Int64).UTC()
	return &t
}

func msPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func jsonListOrNull(l []string) any {
	if len(l) == 0 {
		return nil
	}
	return jsonList(l)
}

func parseList(s sql.NullString) ([]string, error) {
	if !s.Valid || s.String == "" {
		return nil, nil
	}
	var l []string
	err := json.Unmarshal([]byte(s.String), &l)
	return l, err
}

func scanWebhook(row rowScanner) (webhook.Webhook, error) {
	var w webhook.Webhook
	var channels string
	var types, desc sql.NullString
	var created int64
	if err := row.Scan(&w.ID, &w.URL, &channels, &types, &desc, &w.Active, &created); err != nil {
		return w, err
	}
	var err error
	if w.Channels, err = parseList(sql.NullString{String: channels, Valid: true}); err != nil {
		return w, fmt.Errorf("webhook %s channels: %w", w.ID, err)
	}
	if w.Channels == nil {
		w.Channels = []string{}
	}
	if w.Types, err = parseList(types); err != nil {
		return w, fmt.Errorf("webhook %s types: %w", w.ID, err)
	}
	if desc.Valid {
		w.Description = &desc.String
	}
	w.CreatedAt = time.UnixMilli(created).UTC()
	return w, nil
}

func scanDelivery(row rowScanner, extra ...any) (webhook.Delivery, error) {
	var d webhook.Delivery
	var code sql.NullInt64
	var lastErr sql.NullString
	var next, delivered sql.NullInt64
	dest := append([]any{&d.ID, &d.WebhookID, &d.EventID, &d.Status, &d.Attempts, &code, &lastErr, &next, &delivered}, extra...)
	if err := row.Scan(dest...); err != nil {
		return d, err
	}
	if code.Valid {
		c := int(code.Int64)
		d.LastStatusCode = &c
	}
	if lastErr.Valid {
		d.LastError = &lastErr.String
	}
	d.NextAttemptAt, d.DeliveredAt = msTime(next), msTime(delivered)
	return d, nil
}

// Update implements webhook.Store.
func (s *WebhookStore) Update(ctx context.Context, fn func(tx webhook.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(webhookTx{tx}) })
}

// Webhook implements webhook.Store.
func (s *WebhookStore) Webhook(ctx context.Context, id string) (webhook.Webhook, error) {
	w, err := scanWebhook(s.db.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, id))
	if err != nil {
		return w, s.db.NotFound(err, webhook.NotFound(id))
	}
	return w, nil
}

// Webhooks implements webhook.Store.
func (s *WebhookStore) Webhooks(ctx context.Context, limit, skip int) ([]webhook.Webhook, error) {
	rows, err := s.db.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY seq LIMIT ? OFFSET ?`, limit, skip)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []webhook.Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, w)
	}
	return out, s.db.translate(rows.Err())
}

// Deliveries implements webhook.Store.
func (s *WebhookStore) Deliveries(ctx context.Context, webhookID, status string, limit, skip int) ([]webhook.Delivery, error) {
	q := `SELECT ` + deliveryCols + ` FROM webhook_deliveries d WHERE 1 = 1`
	var args []any
	if webhookID != "" {
		q += ` AND d.webhook_id = ?`
		args = append(args, webhookID)
	}
	if status != "" {
		q += ` AND d.status = ?`
		args = append(args, status)
	}
	q += ` ORDER BY d.seq LIMIT ? OFFSET ?`
	args = append(args, limit, skip)
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, d)
	}
	return out, s.db.translate(rows.Err())
}

// Lead implements webhook.Store.
func (s *WebhookStore) Lead(ctx context.Context) (func(context.Context) error, func(), bool, error) {
	l, ok, err := s.db.TryLead(ctx, webhookLeadKey)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return l.Check, l.Release, true, nil
}

// subscription is a webhook as the follower has seen it at its cursor.
type subscription struct {
	active          bool
	channels, types []string
	dirty           bool
}

// webhookChange is what the follower reads of a WEBHOOKS event.
type webhookChange struct {
	ID  string `json:"id"`
	New *struct {
		ID       string   `json:"id"`
		Channels []string `json:"channels"`
		Types    []string `json:"types"`
		Active   bool     `json:"active"`
	} `json:"new"`
}

// Follow implements webhook.Store.
func (s *WebhookStore) Follow(ctx context.Context, now time.Time, limit int) (int, error) {
	cursor, err := s.db.Cursor(ctx, webhookCursor)
	if err != nil {
		return 0, err
	}
	if skipped, err := s.skipIdle(ctx, cursor); err != nil || skipped {
		return 0, err
	}
	events, err := s.db.EventHeadsAfter(ctx, cursor, limit, event.Webhooks)
	if err != nil || len(events) == 0 {
		return 0, err
	}
	err = s.db.Update(ctx, func(tx *Tx) error {
		if err := checkCursor(ctx, tx, cursor); err != nil {
			return err
		}
		subs, order, err := loadSubscriptions(ctx, tx)
		if err != nil {
			return err
		}
		var rows []any
		due := ms(now)
		for _, e := range events {
			for _, id := range order {
				sub := subs[id]
				if sub.active && webhook.Matches(sub.channels, sub.types, e.Channel, e.Type) {
					rows = append(rows, commerce.NewOrderedID(), id, e.ID, webhook.Pending, due)
				}
			}
			// A webhook's own change applies to the events after it.
			if e.Channel == event.Webhooks {
				applyChange(subs, e.Event)
			}
		}
		if err := insertDeliveries(ctx, tx, rows); err != nil {
			return err
		}
		for _, id := range order {
			sub := subs[id]
			if !sub.dirty {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE webhooks SET f_active = ?, f_channels = ?, f_types = ? WHERE id = ?`,
				sub.active, jsonList(sub.channels), jsonListOrNull(sub.types), id); err != nil {
				return err
			}
		}
		return s.setCursor(ctx, tx, events[len(events)-1].Pos)
	})
	if err != nil {
		return 0, err
	}
	return len(events), nil
}

// skipIdle moves the follower's cursor to the end of the log when no
// webhook is active in its view and no event after the cursor changes a
// webhook: none of those events gets a delivery, so reading them (VIEWED
// events by the thousand) would be wasted. It reports whether it did.
func (s *WebhookStore) skipIdle(ctx context.Context, cursor Position) (bool, error) {
	var active int
	if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM webhooks WHERE f_active`).Scan(&active); err != nil {
		return false, s.db.translate(err)
	}
	if active > 0 {
		return false, nil
	}
	if err := s.db.dialect.AwaitEvents(ctx, s.db.read, s.db.EventWait()); err != nil {
		return false, s.db.translate(fmt.Errorf("await events: %w", err))
	}
	// One statement, so one snapshot: the last event below the horizon,
	// and the webhook changes after the cursor below it.
	h := s.db.horizon()
	last := `FROM events WHERE 1 = 1` + h + ` ORDER BY k DESC, seq DESC LIMIT 1`
	var end Position
	var changes int
	err := s.db.QueryRow(ctx, `SELECT COALESCE((SELECT k `+last+`), -1), COALESCE((SELECT seq `+last+`), -1),
		(SELECT COUNT(*) FROM events WHERE channel = ? AND ((k = ? AND seq > ?) OR k > ?)`+h+`)`,
		event.Webhooks, cursor.K, cursor.Seq, cursor.K).Scan(&end.K, &end.Seq, &changes)
	if err != nil {
		return false, s.db.translate(err)
	}
	if changes > 0 || end.K < cursor.K || (end.K == cursor.K && end.Seq <= cursor.Seq) {
		return false, nil
	}
	err = s.db.Update(ctx, func(tx *Tx) error {
		if err := checkCursor(ctx, tx, cursor); err != nil {
			return err
		}
		return s.setCursor(ctx, tx, end)
	})
	return err == nil, err
}

// checkCursor locks the follower's cursor and checks it is still at
// cursor (no other follower moved it).
func checkCursor(ctx context.Context, tx *Tx, cursor Position) error {
	var k, seq int64
	err := tx.QueryRow(ctx, `SELECT k, seq FROM relay_cursors WHERE name = ?`+tx.ForUpdate(), webhookCursor).Scan(&k, &seq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if (Position{k, seq}) != cursor {
		return errors.New("webhook follower: the cursor moved (another follower)")
	}
	return nil
}

// setCursor stores the follower's cursor.
func (s *WebhookStore) setCursor(ctx context.Context, tx *Tx, p Position) error {
	_, err := tx.Exec(ctx, s.db.dialect.Upsert("relay_cursors", 1, []string{"name", "k", "seq"}, []string{"name"}, []string{"k", "seq"}),
		webhookCursor, p.K, p.Seq)
	return err
}

func loadSubscriptions(ctx context.Context, tx *Tx) (map[string]*subscription, []string, error) {
	rows, err := tx.Query(ctx, `SELECT id, f_active, f_channels, f_types FROM webhooks ORDER BY seq`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	subs := map[string]*subscription{}
	var order []string
	for rows.Next() {
		var id, channels string
		var types sql.NullString
		sub := &subscription{}
		if err := rows.Scan(&id, &sub.active, &channels, &types); err != nil {
			return nil, nil, err
		}
		if sub.channels, err = parseList(sql.NullString{String: channels, Valid: true}); err != nil {
			return nil, nil, err
		}
		if sub.types, err = parseList(types); err != nil {
			return nil, nil, err
		}
		subs[id] = sub
		order = append(order, id)
	}
	return subs, order, rows.Err()
}

// applyChange applies a WEBHOOKS event to the follower's view: CREATE and
// UPDATE carry the webhook as it became (new), REMOVE its id.
func applyChange(subs map[string]*subscription, e event.Event) {
	var c webhookChange
	if json.Unmarshal(e.Payload, &c) != nil {
		return
	}
	if e.Type == event.Remove {
		if sub := subs[c.ID]; sub != nil {
			sub.active, sub.dirty = false, true
		}
		return
	}
	if c.New == nil {
		return
	}
	if sub := subs[c.New.ID]; sub != nil {
		sub.active, sub.channels, sub.types, sub.dirty = c.New.Active, c.New.Channels, c.New.Types, true
	}
}

// insertDeliveries inserts new deliveries, 5 values per row, in chunks.
func insertDeliveries(ctx context.Context, tx *Tx, vals []any) error {
	const per, chunk = 5, 64
	for len(vals) > 0 {
		n := min(len(vals)/per, chunk)
		q := tx.db.dialect.Upsert("webhook_deliveries", n, []string{"id", "webhook_id", "event_id", "status", "next_attempt_at"},
			[]string{"webhook_id", "event_id"}, nil)
		if _, err := tx.Exec(ctx, q, vals[:n*per]...); err != nil {
			return fmt.Errorf("insert deliveries: %w", err)
		}
		vals = vals[n*per:]
	}
	return nil
}

// Claim implements webhook.Store.
func (s *WebhookStore) Claim(ctx context.Context, claim string, now time.Time, lease time.Duration, limit int) ([]webhook.Claimed, error) {
	lock := s.db.dialect.SkipLocked()
	// Most polls find nothing due: look first, without a write
	// transaction.
	var one int
	err := s.db.QueryRow(ctx, `SELECT 1 FROM webhook_deliveries WHERE status = ? AND next_attempt_at <= ?
		AND (claimed_until IS NULL OR claimed_until <= ?) LIMIT 1`, webhook.Pending, ms(now), ms(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.db.translate(err)
	}
	var out []webhook.Claimed
	err = s.db.Update(ctx, func(tx *Tx) error {
		out = nil
		rows, err := tx.Query(ctx, `SELECT id FROM webhook_deliveries WHERE status = ? AND next_attempt_at <= ?
			AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_attempt_at, seq LIMIT ?`+lock,
			webhook.Pending, ms(now), ms(now), limit)
		if err != nil {
			return err
		}
		var ids []any
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		in := Placeholders(len(ids))
		args := append([]any{claim, ms(now.Add(lease))}, ids...)
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET claim = ?, claimed_until = ? WHERE id IN (`+in+`)`, args...); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT `+deliveryCols+`, d.last_try, w.url, w.secret, e.channel, e.type, e.date, e.payload, e.actor
			FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id
			WHERE d.id IN (`+in+`) ORDER BY d.next_attempt_at, d.seq`, ids...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c webhook.Claimed
			var date, payload string
			c.Delivery, err = scanDelivery(rows, &c.LastTry, &c.URL, &c.Secret, &c.Event.Channel, &c.Event.Type, &date, &payload, &c.Event.Actor)
			if err != nil {
				return err
			}
			c.Event.ID = c.EventID
			if c.Event.Date, err = time.Parse(time.RFC3339Nano, date); err != nil {
				return fmt.Errorf("event %s: bad date %q: %w", c.EventID, date, err)
			}
			c.Event.Payload = json.RawMessage(payload)
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, err
}

// redelivered marks the claim of a delivery redelivered during its
// attempt (webhookTx.Redeliver): the attempt's record then counts the
// attempt but leaves the schedule as the redelivery set it.
const redelivered = "/redelivered"

// Record implements webhook.Store.
func (s *WebhookStore) Record(ctx context.Context, claim string, r webhook.Result) (bool, error) {
	var code any
	if r.StatusCode != nil {
		code = *r.StatusCode
	}
	var lastErr any
	if r.Error != nil {
		lastErr = *r.Error
	}
	var n int64
	err := s.db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_status_code = ?, last_error = ?,
			next_attempt_at = ?, delivered_at = ?, last_try = ?, claim = NULL, claimed_until = NULL WHERE id = ? AND claim = ?`,
			r.Status, code, lastErr, msPtr(r.NextAttempt), msPtr(r.DeliveredAt), false, r.DeliveryID, claim)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		// Redelivered during the attempt: the redelivery wins. The
		// attempt counts and its outcome is kept; the delivery stays
		// PENDING, due when the redelivery said, and the attempt it gives
		// is the last when this one ended the delivery (as a redelivery
		// after the record would have made it).
		res, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = ?, last_error = ?,
			delivered_at = COALESCE(?, delivered_at), last_try = (last_try OR ?), claim = NULL, claimed_until = NULL
			WHERE id = ? AND claim = ?`,
			code, lastErr, msPtr(r.DeliveredAt), r.Status != webhook.Pending, r.DeliveryID, claim+redelivered)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

// webhookTx implements webhook.Tx over a transaction.
type webhookTx struct{ tx *Tx }

// Emit implements webhook.Tx.
func (t webhookTx) Emit(e event.Event) { t.tx.Emit(e) }

// CreateWebhook implements webhook.Tx.
func (t webhookTx) CreateWebhook(ctx context.Context, w webhook.Stored) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO webhooks (id, url, channels, types, description, active, secret, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, w.ID, w.URL, jsonList(w.Channels), jsonListOrNull(w.Types), w.Description, w.Active, w.Secret, ms(w.CreatedAt))
	return err
}

// LockWebhook implements webhook.Tx.
func (t webhookTx) LockWebhook(ctx context.Context, id string) (webhook.Webhook, error) {
	w, err := scanWebhook(t.tx.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`+t.tx.ForUpdate(), id))
	if err != nil {
		return w, t.tx.db.NotFound(err, webhook.NotFound(id))
	}
	return w, nil
}

// UpdateWebhook implements webhook.Tx.
func (t webhookTx) UpdateWebhook(ctx context.Context, w webhook.Webhook) error {
	_, err := t.tx.Exec(ctx, `UPDATE webhooks SET url = ?, channels = ?, types = ?, description = ?, active = ? WHERE id = ?`,
		w.URL, jsonList(w.Channels), jsonListOrNull(w.Types), w.Description, w.Active, w.ID)
	return err
}

// RemoveWebhook implements webhook.Tx.
func (t webhookTx) RemoveWebhook(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = ?`, id); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
	return err
}

// Redeliver implements webhook.Tx. On a delivery being attempted (its
// claim set) it also marks the claim (redelivered), so that the
// attempt's record does not undo the redelivery; the lease stays, so the
// delivery is attempted again once that attempt is recorded (or its lease
// ends), never twice at once.
func (t webhookTx) Redeliver(ctx context.Context, id string, now time.Time) (webhook.Delivery, error) {
	var lastTry bool
	var claim sql.NullString
	d, err := scanDelivery(t.tx.QueryRow(ctx, `SELECT `+deliveryCols+`, d.last_try, d.claim FROM webhook_deliveries d WHERE d.id = ?`+t.tx.ForUpdate(), id),
		&lastTry, &claim)
	if err != nil {
		return d, t.tx.db.NotFound(err, webhook.DeliveryNotFound(id))
	}
	// A delivery still in its schedule becomes due now; one that ended
	// (DELIVERED or FAILED) gets one more attempt.
	lastTry = lastTry || d.Status != webhook.Pending
	before := d.Status
	if claim.Valid && !strings.HasSuffix(claim.String, redelivered) {
		claim.String += redelivered
	}
	n := now.UTC().Truncate(time.Millisecond)
	if _, err := t.tx.Exec(ctx, `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, last_try = ?, claim = ? WHERE id = ?`,
		webhook.Pending, ms(n), lastTry, claim, id); err != nil {
		return d, err
	}
	d.Status, d.NextAttemptAt = webhook.Pending, &n
	// No event: the audit entry names the delivery.
	t.tx.Audit(audit.Target{Kind: "delivery", ID: id}, map[string]audit.Change{"status": {Before: before, After: webhook.Pending}})
	return d, nil
}
