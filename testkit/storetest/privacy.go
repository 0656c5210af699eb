package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
)

// privacy runs the conformance suite of the erasure of the event log and
// of the export's snapshot (customer.Tx.EraseEvents, Store.Held).
func privacy(t *testing.T, open Opener) {
	t.Run("erase events by owner", func(t *testing.T) { privacyErase(t, open(t)) })
	t.Run("held about a customer", func(t *testing.T) { privacyHeld(t, open(t)) })
}

func privacyErase(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	ev := func(owner, payload string) event.Event {
		return event.NewEncoded(event.Customers, event.Update, time.Now(), []byte(payload)).Owned(owner)
	}
	evs := []event.Event{
		ev("c1", `{"customer":{"id":"c1","email":"a@b.c"}}`),
		ev("k1", `{"new":{"id":"k1","shippingAddress":{"city":"X","country":"US"}}}`),
		ev("k1", `{"new":{"id":"k1"}}`), // nothing to erase
		ev("c2", `{"customer":{"id":"c2","email":"keep@b.c"}}`),
		ev("", `{"email":"no owner"}`),
	}
	if err := db.Append(ctx, evs); err != nil {
		t.Fatal(err)
	}
	var seen [][]byte
	var n int
	err := s.Update(ctx, func(tx customer.Tx) error {
		seen = nil
		var err error
		n, err = tx.EraseEvents(ctx, []string{"c1", "k1", ""}, func(doc []byte) ([]byte, bool, error) {
			seen = append(seen, bytes.Clone(doc))
			return customer.ErasePersonal(doc)
		})
		return err
	})
	if err != nil || n != 2 || len(seen) != 3 {
		t.Fatalf("erased %d (%v), looked at %d payloads, want 2 of 3", n, err, len(seen))
	}
	want := map[string]string{
		evs[0].ID: `{"customer":{"id":"c1","email":"[erased]"}}`,
		evs[1].ID: `{"new":{"id":"k1","shippingAddress":{"city":"[erased]","country":"US"}}}`,
		evs[2].ID: `{"new":{"id":"k1"}}`,
		evs[3].ID: `{"customer":{"id":"c2","email":"keep@b.c"}}`,
		evs[4].ID: `{"email":"no owner"}`,
	}
	list, err := db.List(ctx, event.Filter{Channel: event.Customers, Limit: 10})
	if err != nil || len(list) != len(evs) {
		t.Fatalf("events: %d %v", len(list), err)
	}
	for i, e := range list {
		if e.ID != evs[i].ID || string(e.Payload) != want[e.ID] {
			t.Errorf("event %d: %s %s, want %s %s", i, e.ID, e.Payload, evs[i].ID, want[evs[i].ID])
		}
	}
}

func privacyHeld(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	ada := fixtureCustomer("ada@example.com", "B2C")
	insertCustomers(t, s, ada, fixtureCustomer("bob@example.com", "B2C"))
	err := s.Update(ctx, func(tx customer.Tx) error {
		if err := tx.InsertRefresh(ctx, customer.RefreshToken{Hash: "h1", Family: "f1", CustomerID: ada.ID, ExpiresAt: customerT0.Add(time.Hour)}); err != nil {
			return err
		}
		if err := tx.InsertReset(ctx, customer.ResetToken{Hash: "r1", CustomerID: ada.ID, ExpiresAt: customerT0.Add(2 * time.Hour)}); err != nil {
			return err
		}
		return tx.SetFailures(ctx, ada.Email, []time.Time{customerT0})
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Held(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	if h.Customer.ID != ada.ID || len(h.Carts) != 0 || len(h.Orders) != 0 ||
		len(h.RefreshTokens) != 1 || !h.RefreshTokens[0].ExpiresAt.Equal(customerT0.Add(time.Hour)) || h.RefreshTokens[0].Hash != "" ||
		len(h.ResetTokens) != 1 || !h.ResetTokens[0].ExpiresAt.Equal(customerT0.Add(2*time.Hour)) || h.ResetTokens[0].Hash != "" ||
		len(h.LoginFailures) != 1 || !h.LoginFailures[0].Equal(customerT0) {
		t.Errorf("held: %+v", h)
	}
	if _, err := s.Held(ctx, "nobody"); err == nil {
		t.Error("held about nobody: no error")
	}
}
