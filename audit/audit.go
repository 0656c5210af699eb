// Package audit is the audit log of docs/api.md section 28: every change
// made by staff (admin app) or by an admin token or client (API) is
// recorded in the change's own transaction, one entry per operation, with
// who made it, their role, the operation, its target and the fields it
// changed (before and after; passwords and secrets never). Entries are
// only ever appended: no operation changes or removes them, and the
// database refuses to (triggers of migration 0035).
//
// The transport puts a *Scope in the context of an admin's changing
// operation (With); the storage writes the entry with the first
// transaction of that context that commits a change (sqldb), from the
// first event the transaction emits or the target the transaction names
// (a change without an event, such as client.create).
package audit

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Entry is one entry of the log.
type Entry struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
	// Actor is the staff member's email, or the admin token's sub, or the
	// admin client's id.
	Actor string `json:"actor"`
	// Role is the actor's role then (owner, admin, catalog, orders, support).
	Role string `json:"role"`
	// Action is the operation (product.update) or the admin app's page
	// action (staff.invite).
	Action string `json:"action"`
	Target Target `json:"target"`
	// Changes are the fields changed, each with its value before and
	// after (absent: the field did not exist); a secret's values are
	// "[redacted]".
	Changes map[string]Change `json:"changes"`
	// IP is the address the request came from.
	IP string `json:"ip"`
}

// Target is what an entry's change was made to.
type Target struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// Change is one field's values before and after a change.
type Change struct {
	Before any `json:"before,omitempty"`
	After  any `json:"after,omitempty"`
}

// Redacted stands for a secret's value.
const Redacted = "[redacted]"

// Scope is the audit context of one operation: who runs it and as what.
// An operation writes at most one entry whatever the number of its
// transactions (Done).
type Scope struct {
	Actor, Role, Action, IP string
	done                    atomic.Bool
}

// Done reports whether the operation's entry was committed.
func (s *Scope) Done() bool { return s.done.Load() }

// Committed marks the operation's entry as committed: its later
// transactions write none.
func (s *Scope) Committed() { s.done.Store(true) }

type scopeKey struct{}
type callerKey struct{}

type caller struct{ actor, ip string }

// With returns a context whose changes are audited under s.
func With(ctx context.Context, s *Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// From returns the audit scope of ctx, or nil.
func From(ctx context.Context) *Scope {
	s, _ := ctx.Value(scopeKey{}).(*Scope)
	return s
}

// WithCaller returns a context naming the actor of its changes and the
// address they came from, for a caller in process (the admin app: the
// staff member's email and the browser's address) whose claims' subject
// is not what the log shows.
func WithCaller(ctx context.Context, actor, ip string) context.Context {
	return context.WithValue(ctx, callerKey{}, caller{actor: actor, ip: ip})
}

// CallerFrom returns the actor and address of WithCaller, or "".
func CallerFrom(ctx context.Context) (actor, ip string) {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c.actor, c.ip
}

// Build returns the entry of scope s for a transaction that emitted
// events (the first names the target and the changes) or, without events,
// named its target and changes itself (target, changes).
func Build(s *Scope, now time.Time, events []event.Event, target Target, changes map[string]Change) Entry {
	e := Entry{ID: commerce.NewOrderedID(), At: now.UTC().Truncate(time.Millisecond), Actor: s.Actor, Role: s.Role,
		Action: s.Action, IP: s.IP, Target: target, Changes: changes}
	if e.Target.Kind == "" {
		e.Target.Kind, _, _ = strings.Cut(s.Action, ".")
	}
	if len(events) > 0 && target.ID == "" {
		kind, id, ch := FromPayload(events[0].Payload, e.Target.Kind)
		e.Target.Kind, e.Target.ID = kind, id
		if e.Changes == nil {
			e.Changes = ch
		}
	}
	if e.Changes == nil {
		e.Changes = map[string]Change{}
	}
	return e
}

// FromPayload reads an event's payload ({new, data}, {data, old, new},
// {id, old}, or an area's own) and returns the kind and id of its record
// and the fields that changed: every field of new (created), of old
// (removed), or those that differ between old and new; secrets redacted.
// kind is the kind the operation names (its resource: "cart" of
// cart.checkout) unless the payload names its record otherwise: a
// record under a key of its own ({"order": {...}} is the order) or an
// id under <kind>Id ({"customerId": ...} is the customer).
func FromPayload(payload json.RawMessage, kind string) (string, string, map[string]Change) {
	var p map[string]any
	d := json.NewDecoder(strings.NewReader(string(payload)))
	d.UseNumber()
	if d.Decode(&p) != nil {
		return kind, "", map[string]Change{}
	}
	old, _ := p["old"].(map[string]any)
	new, _ := p["new"].(map[string]any)
	changes := Diff(old, new)
	// Records keyed by a code (customer groups) have no id.
	for _, id := range []any{p["id"], new["id"], old["id"], new["code"], old["code"], p["code"]} {
		if s := str(id); s != "" {
			return kind, s, changes
		}
	}
	// A record keyed by several ids (a stock record: productId and
	// warehouseId) is named by them, in the order of their names, joined
	// by "/".
	for _, rec := range []map[string]any{new, old} {
		if id := joinedIDs(rec); id != "" {
			return kind, id, changes
		}
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The operation's own kind first, then any other.
	own := func(k string) bool { return k == kind || k == kind+"Id" }
	sort.SliceStable(keys, func(i, j int) bool { return own(keys[i]) && !own(keys[j]) })
	for _, k := range keys {
		if m, ok := p[k].(map[string]any); ok && k != "data" {
			for _, id := range []any{m["id"], m["code"]} {
				if str(id) != "" {
					return k, str(id), changes
				}
			}
		}
		if name, ok := strings.CutSuffix(k, "Id"); ok && name != "" && str(p[k]) != "" {
			return name, str(p[k]), changes
		}
	}
	return kind, "", changes
}

// joinedIDs returns the values of rec's fields named <name>Id, in the
// order of their names, joined by "/"; "" when it has none.
func joinedIDs(rec map[string]any) string {
	var names []string
	for k, v := range rec {
		if strings.HasSuffix(k, "Id") && len(k) > 2 && str(v) != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	ids := make([]string, len(names))
	for i, k := range names {
		ids[i] = str(rec[k])
	}
	return strings.Join(ids, "/")
}

// Diff returns the fields of old and new whose values differ, secrets
// redacted.
func Diff(old, new map[string]any) map[string]Change {
	out := map[string]Change{}
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range new {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b, hadB := old[k]
		a, hadA := new[k]
		if hadB && hadA && reflect.DeepEqual(a, b) {
			continue
		}
		if Secret(k) {
			out[k] = Change{Before: redactedIf(hadB && b != nil), After: redactedIf(hadA && a != nil)}
			continue
		}
		out[k] = Change{Before: Redact(b), After: Redact(a)}
	}
	return out
}

func redactedIf(ok bool) any {
	if ok {
		return Redacted
	}
	return nil
}

// Secret reports whether a field's name says it holds a secret: its value
// is never recorded.
func Secret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "secret", "token", "hash", "totp", "recovery", "otp"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Redact returns v with the values of its secret fields (at any depth)
// replaced by Redacted.
func Redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if Secret(k) && e != nil {
				m[k] = Redacted
			} else {
				m[k] = Redact(e)
			}
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = Redact(e)
		}
		return l
	}
	return v
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}
