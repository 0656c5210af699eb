package sqldb

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/event"
)

// auditNote is the target and changes a transaction names for the audit
// log when its change emits no event (Tx.Audit).
type auditNote struct {
	target  audit.Target
	changes map[string]audit.Change
	// fallback: only when the transaction emits no event (AuditFallback).
	fallback bool
}

// Audit names the target and the changes of the transaction's change for
// the audit log, for a change that emits no event (client.create, the
// staff area's): with an audit scope in the context (audit.With), the
// entry is written with the transaction. A transaction that emits events
// needs no call: its first event names them.
func (tx *Tx) Audit(target audit.Target, changes map[string]audit.Change) {
	tx.audit = &auditNote{target: target, changes: changes}
}

// AuditFallback names the target and the changes of the transaction's
// change for a transaction that may or may not emit events: a write that
// several operations share (a customer's sign-in, made by auth.login and
// auth.refresh, its end by auth.logout), whose operation's entry is named
// by its first event when it emits one, else by this note. A note of
// Audit is kept.
func (tx *Tx) AuditFallback(target audit.Target, changes map[string]audit.Change) {
	if tx.audit == nil {
		tx.audit = &auditNote{target: target, changes: changes, fallback: true}
	}
}

// auditStatement is the insert of the audit entry of a transaction run
// under ctx, and the scope to mark committed after the commit; ok false
// when there is none (no scope, its entry written already, or nothing
// changed that is audited).
func (db *DB) auditStatement(ctx context.Context, tx *Tx) (Statement, *audit.Scope, bool) {
	s := audit.From(ctx)
	if s == nil || s.Done() {
		return Statement{}, nil, false
	}
	var events []event.Event
	for _, e := range tx.events {
		if e.Type != event.Viewed {
			events = append(events, e)
		}
	}
	var target audit.Target
	var changes map[string]audit.Change
	if tx.audit != nil && (!tx.audit.fallback || len(events) == 0) {
		target, changes = tx.audit.target, tx.audit.changes
	} else if len(events) == 0 {
		return Statement{}, nil, false
	}
	e := audit.Build(s, db.Now(), events, target, changes)
	ch, err := json.Marshal(e.Changes)
	if err != nil {
		ch = []byte("{}")
	}
	return Statement{SQL: `INSERT INTO audit_log (id, at, actor, role, action, target_kind, target_id, changes, ip) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		Args: []any{e.ID, e.At.UnixMilli(), e.Actor, e.Role, e.Action, e.Target.Kind, e.Target.ID, Text(ch), e.IP}}, s, true
}

// AuditStore reads the audit log (audit.Store).
type AuditStore struct{ db *DB }

// NewAuditStore returns the audit store over db.
func NewAuditStore(db *DB) *AuditStore { return &AuditStore{db: db} }

var _ audit.Store = (*AuditStore)(nil)

// Entries implements audit.Store.
func (s *AuditStore) Entries(ctx context.Context, f audit.Filter) ([]audit.Entry, int, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.Actor != "" {
		add("actor = ?", f.Actor)
	}
	if f.Action != "" {
		add("action = ?", f.Action)
	}
	if f.TargetKind != "" {
		add("target_kind = ?", f.TargetKind)
	}
	if f.TargetID != "" {
		add("target_id = ?", f.TargetID)
	}
	if f.From != nil {
		add("at >= ?", f.From.UnixMilli())
	}
	if f.To != nil {
		add("at < ?", f.To.UnixMilli())
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM audit_log`+cond, args...).Scan(&total); err != nil {
		return nil, 0, s.db.translate(err)
	}
	rows, err := s.db.Query(ctx, `SELECT id, at, actor, role, action, target_kind, target_id, changes, ip FROM audit_log`+cond+
		` ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Skip)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []audit.Entry
	for rows.Next() {
		var e audit.Entry
		var at int64
		var changes string
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Role, &e.Action, &e.Target.Kind, &e.Target.ID, &changes, &e.IP); err != nil {
			return nil, 0, s.db.translate(err)
		}
		e.At = time.UnixMilli(at).UTC()
		d := json.NewDecoder(strings.NewReader(changes))
		d.UseNumber()
		if err := d.Decode(&e.Changes); err != nil {
			return nil, 0, commerce.Errorf(commerce.EInternal, "audit entry %s: changes: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, total, s.db.translate(rows.Err())
}
