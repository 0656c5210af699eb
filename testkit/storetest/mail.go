package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/sqldb"
)

// Mail is the suite of the mail store: the follower queues each event's
// message once, also when it follows the same events again; a message
// about a removed customer is stored cancelled and erased; claims lease
// messages to one dispatcher at a time; a record counts only under its
// lease and emits its event with it; erasure cancels and erases.
func Mail(t *testing.T, open Opener) {
	t.Run("follow the log", func(t *testing.T) { mailFollow(t, open(t)) })
	t.Run("skip", func(t *testing.T) { mailSkip(t, open(t)) })
	t.Run("claim, lease, record", func(t *testing.T) { mailClaim(t, open(t)) })
	t.Run("concurrent claims are disjoint", func(t *testing.T) { mailClaimConcurrent(t, open(t)) })
	t.Run("list, count, erase", func(t *testing.T) { mailListErase(t, open(t)) })
}

// testMessage is a PENDING message to to about the customer.
func testMessage(id, to, customerID string, at time.Time) mail.Message {
	return mail.Message{Full: mail.Full{Mail: mail.Mail{ID: id, To: to, Template: mail.Welcome, Subject: "Hi", Locale: "en",
		Status: mail.Pending, CreatedAt: at.UTC().Truncate(time.Millisecond)}, Text: "text " + to, HTML: "<p>html</p>"},
		MessageID: id + "@localhost", CustomerID: customerID}
}

// orderEvents appends n ORDERS CREATE events whose payload names the
// customer, and one PRODUCTS event between each.
func orderEvents(t *testing.T, db *sqldb.DB, n int, customerID string) []event.Event {
	t.Helper()
	var evs, all []event.Event
	for range n {
		e, _ := event.New(event.Orders, event.Create, time.Now(), map[string]any{"order": map[string]string{"customerId": customerID}})
		p, _ := event.New(event.Products, event.Create, time.Now(), map[string]int{"n": 1})
		evs = append(evs, e)
		all = append(all, e, p)
	}
	if err := db.Append(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	return evs
}

// buildTest is a follower's build: a message per ORDERS event, to the
// payload's customer.
func buildTest(t *testing.T) func(e event.Event) ([]mail.Message, error) {
	return func(e event.Event) ([]mail.Message, error) {
		if e.Channel != event.Orders {
			if len(e.Payload) > 0 && e.Channel != event.Customers {
				t.Errorf("the follower read the payload of a %s event", e.Channel)
			}
			return nil, nil
		}
		var p struct{ Order struct{ CustomerID string } }
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, err
		}
		m := testMessage(mail.EventMessageID(e.ID, mail.OrderConfirmation), "x@example.com", p.Order.CustomerID, time.Now())
		m.EventID = &e.ID
		return []mail.Message{m}, nil
	}
}

func insertCustomer(t *testing.T, db *sqldb.DB, email string) string {
	t.Helper()
	ctx := context.Background()
	c := &customer.Customer{ID: commerce.NewID(), Email: email, FirstName: "Ada", CustomerType: "B2C", Addresses: []customer.Address{},
		CreatedAt: time.Now().UTC(), PasswordHash: "x"}
	if err := sqldb.NewCustomerStore(db).Update(ctx, func(tx customer.Tx) error { return tx.Insert(ctx, c) }); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func mailFollow(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewMailStore(db)
	if err := st.Skip(ctx); err != nil { // from the end of the log as it is
		t.Fatal(err)
	}
	alive := insertCustomer(t, db, "alive@example.com")
	if err := st.Update(ctx, func(tx mail.Tx) error { return tx.EraseCustomer(ctx, "gone-customer") }); err != nil {
		t.Fatal(err)
	}
	orderEvents(t, db, 3, alive)
	orderEvents(t, db, 2, "gone-customer")
	orderEvents(t, db, 1, "token-only-customer") // a customerId no account has: mailed
	n, err := st.Follow(ctx, 1000, buildTest(t))
	if err != nil || n != 12 {
		t.Fatalf("follow: %d events, %v; want 12", n, err)
	}
	check := func() {
		t.Helper()
		ms, err := st.Messages(ctx, mail.Filter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 6 {
			t.Fatalf("%d messages, want 6", len(ms))
		}
		for i, m := range ms {
			full, err := st.Message(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, to := mail.Pending, "x@example.com"
			if i == 3 || i == 4 {
				want, to = mail.Cancelled, mail.Erased
			}
			if m.Status != want || m.To != to || (want == mail.Cancelled && (full.Text != mail.Erased || full.HTML != mail.Erased)) {
				t.Errorf("message %d: %s to %s (text %q), want %s to %s", i, m.Status, m.To, full.Text, want, to)
			}
		}
	}
	check()
	if n, err := st.Follow(ctx, 1000, buildTest(t)); err != nil || n != 0 {
		t.Fatalf("follow again: %d, %v; want nothing new", n, err)
	}
	// A follower that crashed before moving its cursor follows the same
	// events again: the same messages, queued once.
	if err := db.SetCursor(ctx, "mail", sqldb.Position{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Follow(ctx, 1000, buildTest(t)); err != nil {
		t.Fatal(err)
	}
	check()
}

func mailSkip(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewMailStore(db)
	orderEvents(t, db, 3, "")
	if err := st.Skip(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Follow(ctx, 1000, buildTest(t)); err != nil || n != 0 {
		t.Fatalf("after skip: %d events read, %v; want 0", n, err)
	}
	orderEvents(t, db, 1, "")
	if n, err := st.Follow(ctx, 1000, buildTest(t)); err != nil || n != 2 {
		t.Fatalf("after a new order: %d events read, %v; want 2", n, err)
	}
}

func queue(t *testing.T, st *sqldb.MailStore, ms ...mail.Message) {
	t.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx mail.Tx) error {
		for _, m := range ms {
			if err := tx.Queue(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mailClaim(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewMailStore(db)
	now := time.Now()
	m := testMessage(commerce.NewID(), "a@example.com", "", now)
	m.Secret = "sealed"
	queue(t, st, m)
	c, err := st.Claim(ctx, "A", now, time.Minute, 10)
	if err != nil || len(c) != 1 || c[0].Secret != "sealed" || c[0].MessageID != m.MessageID || c[0].Text != m.Text {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	if c, _ := st.Claim(ctx, "B", now.Add(30*time.Second), time.Minute, 10); len(c) != 0 {
		t.Fatalf("a leased message was claimed again: %+v", c)
	}
	// The lease ran out: B takes it, and A's late record is refused.
	if c, _ := st.Claim(ctx, "B", now.Add(2*time.Minute), time.Minute, 10); len(c) != 1 {
		t.Fatalf("after the lease: %d claimed, want 1", len(c))
	}
	e, _ := event.New(event.Mails, mail.EventSent, now, map[string]string{"id": m.ID})
	sent := now.UTC().Truncate(time.Millisecond)
	if ok, err := st.Record(ctx, "A", mail.Result{ID: m.ID, Status: mail.Sent, SentAt: &sent, Event: &e}); err != nil || ok {
		t.Fatalf("record under a lost lease: %v, %v; want false", ok, err)
	}
	msg := "421 try later"
	next := now.Add(time.Hour)
	if ok, err := st.Record(ctx, "B", mail.Result{ID: m.ID, Status: mail.Pending, Error: &msg, NextAttempt: &next}); err != nil || !ok {
		t.Fatalf("record: %v, %v", ok, err)
	}
	got, _ := st.Message(ctx, m.ID)
	if got.Status != mail.Pending || got.Attempts != 1 || got.LastError == nil || *got.LastError != msg {
		t.Fatalf("after a failed attempt: %+v", got.Mail)
	}
	if c, _ := st.Claim(ctx, "C", now.Add(3*time.Minute), time.Minute, 10); len(c) != 0 {
		t.Fatalf("claimed before its next attempt: %+v", c)
	}
	if c, _ := st.Claim(ctx, "C", next, time.Minute, 10); len(c) != 1 {
		t.Fatalf("not claimed when due")
	}
	if ok, err := st.Record(ctx, "C", mail.Result{ID: m.ID, Status: mail.Sent, SentAt: &sent, Event: &e}); err != nil || !ok {
		t.Fatalf("record: %v, %v", ok, err)
	}
	got, _ = st.Message(ctx, m.ID)
	if got.Status != mail.Sent || got.Attempts != 2 || got.SentAt == nil || !got.SentAt.Equal(sent) {
		t.Fatalf("after sending: %+v", got.Mail)
	}
	evs, err := db.List(ctx, event.Filter{Channel: event.Mails, Limit: 10})
	if err != nil || len(evs) != 1 || evs[0].ID != e.ID {
		t.Fatalf("MAILS events %+v, %v: want the record's one", evs, err)
	}
}

func mailClaimConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewMailStore(db)
	now := time.Now()
	var ms []mail.Message
	for range 120 {
		ms = append(ms, testMessage(commerce.NewID(), "a@example.com", "", now))
	}
	queue(t, st, ms...)
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			claim := string(rune('A' + i))
			for {
				c, err := st.Claim(ctx, claim, now, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(c) == 0 {
					return
				}
				mu.Lock()
				for _, m := range c {
					if other, dup := seen[m.ID]; dup {
						t.Errorf("message %s claimed by %s and %s", m.ID, other, claim)
					}
					seen[m.ID] = claim
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 120 {
		t.Fatalf("%d messages claimed, want 120", len(seen))
	}
}

func mailListErase(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	st := sqldb.NewMailStore(db)
	now := time.Now()
	a := testMessage(commerce.NewID(), "ada@example.com", "c1", now.Add(-2*time.Hour))
	b := testMessage(commerce.NewID(), "ada@example.com", "c1", now.Add(-time.Minute))
	b.Template = mail.PasswordReset
	b.Secret = "sealed"
	c := testMessage(commerce.NewID(), "bob@example.com", "c2", now)
	queue(t, st, a, b, c)
	queue(t, st, a) // queued again: left as it is
	ms, err := st.Messages(ctx, mail.Filter{To: "ada@example.com", Limit: 10})
	if err != nil || len(ms) != 2 || ms[0].ID != a.ID || ms[1].ID != b.ID {
		t.Fatalf("by address: %+v, %v", ms, err)
	}
	if ms, _ := st.Messages(ctx, mail.Filter{Template: mail.PasswordReset, Limit: 10}); len(ms) != 1 || ms[0].ID != b.ID {
		t.Fatalf("by template: %+v", ms)
	}
	if ms, _ := st.Messages(ctx, mail.Filter{Limit: 1, Skip: 2}); len(ms) != 1 || ms[0].ID != c.ID {
		t.Fatalf("paged: %+v", ms)
	}
	if _, err := st.Message(ctx, "nope"); commerce.ErrorCode(err) != commerce.EMailNotFound {
		t.Fatalf("unknown id: %v", err)
	}
	var n int
	err = st.Update(ctx, func(tx mail.Tx) error {
		var err error
		n, err = tx.CountSince(ctx, "ada@example.com", mail.Welcome, now.Add(-3*time.Hour))
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("count: %d, %v; want 1", n, err)
	}
	// a is being sent (claimed) when the customer is removed: its record
	// is then refused, and it stays erased and cancelled.
	claimed, _ := st.Claim(ctx, "A", now, time.Minute, 1)
	if len(claimed) != 1 || claimed[0].ID != a.ID {
		t.Fatalf("claim: %+v", claimed)
	}
	if err := st.Update(ctx, func(tx mail.Tx) error { return tx.EraseCustomer(ctx, "c1") }); err != nil {
		t.Fatal(err)
	}
	sent := now
	if ok, _ := st.Record(ctx, "A", mail.Result{ID: a.ID, Status: mail.Sent, SentAt: &sent}); ok {
		t.Errorf("a record after the erasure counted")
	}
	for _, id := range []string{a.ID, b.ID} {
		m, _ := st.Message(ctx, id)
		if m.Status != mail.Cancelled || m.To != mail.Erased || m.Text != mail.Erased || m.HTML != mail.Erased || m.Secret != "" {
			t.Errorf("erased message: %+v secret %q", m.Full, m.Secret)
		}
	}
	if m, _ := st.Message(ctx, c.ID); m.To != "bob@example.com" || m.Status != mail.Pending {
		t.Errorf("another customer's message changed: %+v", m.Mail)
	}
}
