package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/mail"
)

// MailStore is the email area's storage (mail.Store): the messages, the
// outbox follower that queues the messages events cause (cursor "mail" in
// relay_cursors) and the claiming of due messages, leased to one
// dispatcher at a time as webhook deliveries are (WebhookStore).
type MailStore struct{ db *DB }

// NewMailStore returns the mail store over db.
func NewMailStore(db *DB) *MailStore { return &MailStore{db: db} }

var _ mail.Store = (*MailStore)(nil)

const (
	mailCursor  = "mail"
	mailLeadKey = 7262022
	mailColumns = `id, to_addr, template, subject, locale, status, attempts, last_error, event_id, created_at, sent_at`
	mailFull    = mailColumns + `, text, html, message_id, customer_id, secret, next_attempt_at`
)

func scanMail(row rowScanner, full bool) (mail.Message, error) {
	var m mail.Message
	var lastErr, eventID, customerID, secret sql.NullString
	var created int64
	var sent, next sql.NullInt64
	dest := []any{&m.ID, &m.To, &m.Template, &m.Subject, &m.Locale, &m.Status, &m.Attempts, &lastErr, &eventID, &created, &sent}
	if full {
		dest = append(dest, &m.Text, &m.HTML, &m.MessageID, &customerID, &secret, &next)
	}
	if err := row.Scan(dest...); err != nil {
		return m, err
	}
	if lastErr.Valid {
		m.LastError = &lastErr.String
	}
	if eventID.Valid {
		m.EventID = &eventID.String
	}
	m.CreatedAt = time.UnixMilli(created).UTC()
	m.SentAt = msTime(sent)
	m.CustomerID, m.Secret = customerID.String, secret.String
	m.NextAttemptAt = msTime(next)
	return m, nil
}

// Update implements mail.Store.
func (s *MailStore) Update(ctx context.Context, fn func(tx mail.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(MailTx(tx)) })
}

// Message implements mail.Store.
func (s *MailStore) Message(ctx context.Context, id string) (mail.Message, error) {
	m, err := scanMail(s.db.QueryRow(ctx, `SELECT `+mailFull+` FROM mails WHERE id = ?`, id), true)
	if err != nil {
		return m, s.db.NotFound(err, mail.NotFound(id))
	}
	return m, nil
}

// Messages implements mail.Store.
func (s *MailStore) Messages(ctx context.Context, f mail.Filter) ([]mail.Mail, error) {
	q := `SELECT ` + mailColumns + ` FROM mails WHERE 1 = 1`
	var args []any
	for _, c := range []struct{ col, v string }{{"to_addr", f.To}, {"template", f.Template}, {"status", f.Status}} {
		if c.v != "" {
			q += ` AND ` + c.col + ` = ?`
			args = append(args, c.v)
		}
	}
	if f.Customer != nil {
		q += ` AND (customer_id = ? OR to_addr = ?)`
		args = append(args, f.Customer.ID, commerce.EmailKey(f.Customer.Email))
	}
	q += ` ORDER BY seq LIMIT ? OFFSET ?`
	rows, err := s.db.Query(ctx, q, append(args, f.Limit, f.Skip)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []mail.Mail{}
	for rows.Next() {
		m, err := scanMail(rows, false)
		if err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, m.Mail)
	}
	return out, s.db.translate(rows.Err())
}

// Lead implements mail.Store.
func (s *MailStore) Lead(ctx context.Context) (func(context.Context) error, func(), bool, error) {
	l, ok, err := s.db.TryLead(ctx, mailLeadKey)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return l.Check, l.Release, true, nil
}

// mailEvents reads up to limit events after the cursor, with the payloads
// of the channels that may cause mail only (mail.FollowedChannels).
func (s *MailStore) mailEvents(ctx context.Context, after Position, limit int) ([]Stored, error) {
	if err := s.db.dialect.AwaitEvents(ctx, s.db.read, s.db.EventWait()); err != nil {
		return nil, s.db.translate(fmt.Errorf("await events: %w", err))
	}
	chans := mail.FollowedChannels
	cols := strings.Replace(eventColumns, "payload", "CASE WHEN channel IN ("+Placeholders(len(chans))+") THEN payload ELSE '' END AS payload", 1)
	colArgs := make([]any, len(chans))
	for i, c := range chans {
		colArgs[i] = c
	}
	q, args := s.db.eventsAfter(cols, colArgs, after, "", nil, limit, 0)
	return s.db.scanEvents(ctx, q, args...)
}

// Follow implements mail.Store.
func (s *MailStore) Follow(ctx context.Context, limit int, build func(e event.Event) ([]mail.Message, error)) (int, error) {
	cursor, err := s.db.Cursor(ctx, mailCursor)
	if err != nil {
		return 0, err
	}
	events, err := s.mailEvents(ctx, cursor, limit)
	if err != nil || len(events) == 0 {
		return 0, err
	}
	var msgs []mail.Message
	for _, e := range events {
		if len(e.Payload) == 0 { // a channel that causes no mail
			continue
		}
		m, err := build(e.Event)
		if err != nil {
			return 0, fmt.Errorf("mail follower: event %s: %w", e.ID, err)
		}
		msgs = append(msgs, m...)
	}
	err = s.db.Update(ctx, func(tx *Tx) error {
		if err := lockCursor(ctx, tx, mailCursor, cursor); err != nil {
			return err
		}
		gone, err := goneCustomers(ctx, tx, msgs)
		if err != nil {
			return err
		}
		mt := MailTx(tx)
		for _, m := range msgs {
			if gone[m.CustomerID] {
				m.Status, m.To, m.Text, m.HTML, m.Secret = mail.Cancelled, mail.Erased, mail.Erased, mail.Erased, ""
			}
			if err := mt.Queue(ctx, m); err != nil {
				return err
			}
		}
		return setCursor(ctx, tx, mailCursor, events[len(events)-1].Pos)
	})
	if err != nil {
		return 0, err
	}
	return len(events), nil
}

// goneCustomers returns the customers the messages are about whose
// messages customer.remove erased (mail_erasures). It first locks the
// rows of those that still exist until the transaction ends: a removal
// running meanwhile either committed before (its erasure is then read
// here) or waits for this transaction and then erases the messages it
// stored (MailTx.EraseCustomer).
func goneCustomers(ctx context.Context, tx *Tx, msgs []mail.Message) (map[string]bool, error) {
	seen := map[string]bool{}
	var ids []any
	for _, m := range msgs {
		if m.CustomerID != "" && !seen[m.CustomerID] {
			seen[m.CustomerID] = true
			ids = append(ids, m.CustomerID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].(string) < ids[j].(string) }) // one lock order for every follower
	in := Placeholders(len(ids))
	rows, err := tx.Query(ctx, `SELECT id FROM customers WHERE id IN (`+in+`) ORDER BY id`+tx.ForUpdate(), ids...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	gone := map[string]bool{}
	rows, err = tx.Query(ctx, `SELECT customer_id FROM mail_erasures WHERE customer_id IN (`+in+`)`, ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		gone[id] = true
	}
	return gone, rows.Err()
}

// Skip implements mail.Store.
func (s *MailStore) Skip(ctx context.Context) error {
	cursor, err := s.db.Cursor(ctx, mailCursor)
	if err != nil {
		return err
	}
	if err := s.db.dialect.AwaitEvents(ctx, s.db.read, s.db.EventWait()); err != nil {
		return s.db.translate(fmt.Errorf("await events: %w", err))
	}
	last := `FROM events WHERE 1 = 1` + s.db.horizon() + ` ORDER BY k DESC, seq DESC LIMIT 1`
	var end Position
	if err := s.db.QueryRow(ctx, `SELECT COALESCE((SELECT k `+last+`), -1), COALESCE((SELECT seq `+last+`), -1)`).Scan(&end.K, &end.Seq); err != nil {
		return s.db.translate(err)
	}
	if end.K < cursor.K || (end.K == cursor.K && end.Seq <= cursor.Seq) {
		return nil
	}
	return s.db.Update(ctx, func(tx *Tx) error {
		if err := lockCursor(ctx, tx, mailCursor, cursor); err != nil {
			return err
		}
		return setCursor(ctx, tx, mailCursor, end)
	})
}

// lockCursor locks the follower's cursor and checks it is still at
// cursor (no other follower moved it).
func lockCursor(ctx context.Context, tx *Tx, name string, cursor Position) error {
	var k, seq int64
	err := tx.QueryRow(ctx, `SELECT k, seq FROM relay_cursors WHERE name = ?`+tx.ForUpdate(), name).Scan(&k, &seq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if (Position{k, seq}) != cursor {
		return fmt.Errorf("%s follower: the cursor moved (another follower)", name)
	}
	return nil
}

// setCursor stores a follower's cursor.
func setCursor(ctx context.Context, tx *Tx, name string, p Position) error {
	_, err := tx.Exec(ctx, tx.db.dialect.Upsert("relay_cursors", 1, []string{"name", "k", "seq"}, []string{"name"}, []string{"k", "seq"}),
		name, p.K, p.Seq)
	return err
}

// Claim implements mail.Store.
func (s *MailStore) Claim(ctx context.Context, claim string, now time.Time, lease time.Duration, limit int) ([]mail.Message, error) {
	lock := s.db.dialect.SkipLocked()
	const due = `status = 'PENDING' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)`
	// Most polls find nothing due: look first, without a write
	// transaction.
	var one int
	err := s.db.QueryRow(ctx, `SELECT 1 FROM mails WHERE `+due+` LIMIT 1`, ms(now), ms(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.db.translate(err)
	}
	var out []mail.Message
	err = s.db.Update(ctx, func(tx *Tx) error {
		out = nil
		rows, err := tx.Query(ctx, `SELECT id FROM mails WHERE `+due+` ORDER BY next_attempt_at, seq LIMIT ?`+lock, ms(now), ms(now), limit)
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
		if _, err := tx.Exec(ctx, `UPDATE mails SET claim = ?, claimed_until = ? WHERE id IN (`+in+`)`,
			append([]any{claim, ms(now.Add(lease))}, ids...)...); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT `+mailFull+` FROM mails WHERE id IN (`+in+`) ORDER BY next_attempt_at, seq`, ids...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m, err := scanMail(rows, true)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	return out, err
}

// Record implements mail.Store.
func (s *MailStore) Record(ctx context.Context, claim string, r mail.Result) (bool, error) {
	var lastErr any
	if r.Error != nil {
		lastErr = *r.Error
	}
	var n int64
	err := s.db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE mails SET attempts = attempts + 1, status = ?, last_error = ?, next_attempt_at = ?, sent_at = ?,
			claim = NULL, claimed_until = NULL WHERE id = ? AND claim = ?`,
			r.Status, lastErr, msPtr(r.NextAttempt), msPtr(r.SentAt), r.ID, claim)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if n == 1 && r.Event != nil {
			tx.Emit(*r.Event)
		}
		return nil
	})
	return n == 1, err
}

// MailTx returns the mail area's view of a transaction (mail.Tx): how
// another area's store queues messages in its own transactions.
func MailTx(tx *Tx) mail.Tx { return mailTx{tx} }

// mailTx implements mail.Tx over a transaction.
type mailTx struct{ tx *Tx }

// Queue implements mail.Tx.
func (t mailTx) Queue(ctx context.Context, m mail.Message) error {
	if t.tx.audit == nil && len(t.tx.events) == 0 {
		// A message queued by an admin's operation (mail.resend) is
		// its change: the audit entry names it (written only under an
		// audit scope).
		t.tx.Audit(audit.Target{Kind: "mail", ID: m.ID}, map[string]audit.Change{
			"to": {After: m.To}, "template": {After: m.Template}})
	}
	var secret, customer any
	if m.Secret != "" {
		secret = m.Secret
	}
	if m.CustomerID != "" {
		customer = m.CustomerID
	}
	var next any
	if m.Status == mail.Pending {
		next = ms(m.CreatedAt)
	}
	q := t.tx.db.dialect.Upsert("mails", 1, []string{"id", "message_id", "to_addr", "template", "locale", "subject", "text", "html",
		"secret", "event_id", "customer_id", "status", "last_error", "next_attempt_at", "created_at"}, []string{"id"}, nil)
	_, err := t.tx.Exec(ctx, q, m.ID, m.MessageID, m.To, m.Template, m.Locale, m.Subject, m.Text, m.HTML,
		secret, m.EventID, customer, m.Status, m.LastError, next, ms(m.CreatedAt))
	return err
}

// CountSince implements mail.Tx.
func (t mailTx) CountSince(ctx context.Context, to, template string, since time.Time) (int, error) {
	var n int
	err := t.tx.QueryRow(ctx, `SELECT COUNT(*) FROM mails WHERE to_addr = ? AND template = ? AND created_at >= ?`,
		to, template, ms(since)).Scan(&n)
	return n, t.tx.db.translate(err)
}

// EraseCustomer implements mail.Tx. A message being sent loses its
// lease, so that the attempt's record changes nothing. The customer is
// remembered (mail_erasures), so that the follower erases the messages
// of events it has yet to follow.
func (t mailTx) EraseCustomer(ctx context.Context, customerID string) error {
	q := t.tx.db.dialect.Upsert("mail_erasures", 1, []string{"customer_id", "erased_at"}, []string{"customer_id"}, nil)
	if _, err := t.tx.Exec(ctx, q, customerID, ms(t.tx.Now())); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `UPDATE mails SET status = CASE WHEN status = 'PENDING' THEN 'CANCELLED' ELSE status END,
		to_addr = ?, text = ?, html = ?, secret = NULL, claim = NULL, claimed_until = NULL WHERE customer_id = ?`,
		mail.Erased, mail.Erased, mail.Erased, customerID)
	return err
}
