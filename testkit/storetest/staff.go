package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
)

// Staff is the suite of the staff store (staff.Store) of the admin app:
// accounts and their error codes, the sign-in attempts the lock-out
// counts (one after the other for one email), and sessions.
func Staff(t *testing.T, open Opener) {
	t.Run("accounts", func(t *testing.T) { staffAccounts(t, open(t)) })
	t.Run("sign-in attempts", func(t *testing.T) { staffAttempts(t, open(t)) })
	t.Run("concurrent attempts are counted one after the other", func(t *testing.T) { staffConcurrentAttempts(t, open(t)) })
	t.Run("sessions", func(t *testing.T) { staffSessions(t, open(t)) })
	t.Run("roles, disable, remove and the last owner", func(t *testing.T) { staffOffboarding(t, open(t)) })
}

func staffOffboarding(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewStaffStore(db)
	owner := createStaff(t, s, "owner@example.com")
	cat := createStaff(t, s, "cat@example.com")
	if owner.Role != staff.RoleOwner || cat.Role != staff.RoleCatalog {
		t.Fatalf("roles: first %s, second %s; want owner, catalog", owner.Role, cat.Role)
	}
	if err := s.CreateSession(ctx, "c1", cat.ID, staffT0, staffT0.Add(time.Hour), false); err != nil {
		t.Fatal(err)
	}
	// Under an audit scope, a change writes one entry; without, none.
	scoped := audit.With(ctx, &audit.Scope{Actor: "owner@example.com", Role: "owner", Action: "staff.disable"})
	if _, err := s.SetDisabled(scoped, cat.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Session(ctx, "c1", staffT0.Add(time.Minute)); commerce.ErrorCode(err) != commerce.EInvalidToken {
		t.Errorf("the session of a disabled member: %v, want invalid_token", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM audit_log WHERE target_id = ? AND action = 'staff.disable'`, cat.ID); n != 1 {
		t.Errorf("%d audit entries of the disable, want 1", n)
	}
	if _, err := s.SetRole(ctx, cat.ID, staff.RoleOrders); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM audit_log`); n != 1 {
		t.Errorf("%d audit entries after a change without a scope, want 1", n)
	}
	_, err := s.SetRole(ctx, owner.ID, staff.RoleAdmin)
	wantCode(t, "demote the last owner", err, staff.ELastOwner, nil)
	_, err = s.Remove(ctx, owner.ID)
	wantCode(t, "remove the last owner", err, staff.ELastOwner, nil)
	_, err = s.Remove(ctx, "nobody")
	wantCode(t, "remove an unknown member", err, staff.EStaffNotFound, nil)
	if _, err := s.Remove(ctx, cat.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.ByID(ctx, cat.ID)
	wantCode(t, "ByID after Remove", err, staff.EStaffNotFound, nil)
	// The lock-out counts an address's failures over every email.
	for i := range 3 {
		if _, ok, err := s.BeginAttempt(ctx, commerce.NewID(), string(rune('a'+i))+"@example.com", "203.0.113.1", staffT0, staffT0.Add(-staff.Window), 5, 3); err != nil || !ok {
			t.Fatalf("attempt %d: %v %v", i, ok, err)
		}
	}
	if _, ok, _ := s.BeginAttempt(ctx, commerce.NewID(), "z@example.com", "203.0.113.1", staffT0, staffT0.Add(-staff.Window), 5, 3); ok {
		t.Error("a fourth email from an address at its maximum: taken, want refused")
	}
	if _, ok, _ := s.BeginAttempt(ctx, commerce.NewID(), "z@example.com", "203.0.113.2", staffT0, staffT0.Add(-staff.Window), 5, 3); !ok {
		t.Error("another address: refused, want taken")
	}
}

var staffT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func createStaff(t *testing.T, s staff.Store, email string) staff.Staff {
	t.Helper()
	st, err := s.Create(context.Background(), staff.Staff{ID: commerce.NewID(), Email: email, Role: staff.RoleCatalog, CreatedAt: staffT0}, "hash-of-"+email)
	if err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	return st
}

func staffAccounts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewStaffStore(db)
	ada := createStaff(t, s, "ada@example.com")
	got, hash, err := s.ByEmail(ctx, "ada@example.com")
	if err != nil || got != ada || hash != "hash-of-ada@example.com" {
		t.Errorf("ByEmail: got %+v, %q, %v; want %+v and its hash", got, hash, err, ada)
	}
	_, _, err = s.ByEmail(ctx, "nobody@example.com")
	wantCode(t, "ByEmail of an unknown email", err, commerce.EInvalidCredentials, nil)
	_, err = s.Create(ctx, staff.Staff{ID: commerce.NewID(), Email: "ada@example.com", CreatedAt: staffT0}, "h")
	wantCode(t, "Create of a taken email", err, commerce.EDuplicateKey, nil)
}

func staffAttempts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewStaffStore(db)
	const email, max = "ada@example.com", 3
	begin := func(id string, at time.Time) (time.Time, bool) {
		t.Helper()
		oldest, ok, err := s.BeginAttempt(ctx, id, email, "192.0.2.1", at, at.Add(-staff.Window), max, 100)
		if err != nil {
			t.Fatalf("BeginAttempt %s: %v", id, err)
		}
		return oldest, ok
	}
	for i, id := range []string{"a1", "a2", "a3"} {
		if _, ok := begin(id, staffT0.Add(time.Duration(i)*time.Minute)); !ok {
			t.Fatalf("attempt %s refused under the maximum", id)
		}
	}
	oldest, ok := begin("a4", staffT0.Add(3*time.Minute))
	if ok || !oldest.Equal(staffT0) {
		t.Errorf("at the maximum: got ok=%v oldest=%v, want refused with the oldest attempt %v", ok, oldest, staffT0)
	}
	// Another email is not concerned.
	if _, ok, err := s.BeginAttempt(ctx, "b1", "bob@example.com", "192.0.2.1", staffT0, staffT0.Add(-staff.Window), max, 100); err != nil || !ok {
		t.Errorf("another email: got ok=%v, %v; want it taken", ok, err)
	}
	// A successful attempt is forgotten and no longer counts.
	if err := s.ForgetAttempt(ctx, "a3"); err != nil {
		t.Fatal(err)
	}
	if _, ok := begin("a5", staffT0.Add(4*time.Minute)); !ok {
		t.Error("after a forgotten attempt: refused, want taken")
	}
	// Attempts older than the window do not count.
	if _, ok := begin("a6", staffT0.Add(staff.Window+time.Minute+time.Second)); !ok {
		t.Error("once the oldest attempts are past the window: refused, want taken")
	}
}

func staffConcurrentAttempts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewStaffStore(db)
	const n, max = 12, 5
	var mu sync.Mutex
	taken := 0
	concurrently(t, n, func() error {
		_, ok, err := s.BeginAttempt(ctx, commerce.NewID(), "ada@example.com", "192.0.2.1", staffT0, staffT0.Add(-staff.Window), max, 100)
		if ok {
			mu.Lock()
			taken++
			mu.Unlock()
		}
		return err
	})
	if taken != max {
		t.Errorf("%d of %d concurrent attempts taken, want exactly %d", taken, n, max)
	}
}

func staffSessions(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewStaffStore(db)
	ada := createStaff(t, s, "ada@example.com")
	if err := s.CreateSession(ctx, "h1", ada.ID, staffT0, staffT0.Add(time.Hour), false); err != nil {
		t.Fatal(err)
	}
	got, pending, err := s.Session(ctx, "h1", staffT0.Add(time.Minute))
	if err != nil || got != ada || pending {
		t.Errorf("Session: got %+v, %v; want %+v", got, err, ada)
	}
	_, _, err = s.Session(ctx, "h1", staffT0.Add(time.Hour))
	wantCode(t, "Session at its expiry", err, commerce.EInvalidToken, nil)
	_, _, err = s.Session(ctx, "nope", staffT0)
	wantCode(t, "Session of an unknown hash", err, commerce.EInvalidToken, nil)

	// A sign-in drops the account's expired sessions, not the others.
	if err := s.CreateSession(ctx, "h2", ada.ID, staffT0.Add(2*time.Hour), staffT0.Add(3*time.Hour), false); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM staff_sessions WHERE staff_id = ?`, ada.ID); n != 1 {
		t.Errorf("%d sessions after a sign-in past the first one's expiry, want 1", n)
	}
	if err := s.DeleteSession(ctx, "h2"); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Session(ctx, "h2", staffT0.Add(2*time.Hour))
	wantCode(t, "Session after DeleteSession", err, commerce.EInvalidToken, nil)
	if err := s.DeleteSession(ctx, "h2"); err != nil {
		t.Errorf("DeleteSession of no session: %v, want nothing", err)
	}
}
