package sqldb_test

import (
	"context"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestEventHeadsAfter: the webhook follower's read gives the events
// EventsAfter gives, in the same order, at the same positions, with the
// payloads of the one channel asked for and no other.
func TestEventHeadsAfter(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			for i, ch := range []string{event.Products, "WEBHOOKS", event.Carts, "WEBHOOKS", event.Products} {
				e, err := event.New(ch, event.Create, time.Now(), map[string]any{"n": i})
				if err != nil {
					return err
				}
				tx.Emit(e)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		all, err := db.EventsAfter(ctx, sqldb.Position{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		after := all[0].Pos
		want, err := db.EventsAfter(ctx, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.EventHeadsAfter(ctx, after, 100, "WEBHOOKS")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 || len(want) != 4 {
			t.Fatalf("got %d events, EventsAfter %d, want 4", len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Pos != w.Pos || g.ID != w.ID || g.Channel != w.Channel || g.Type != w.Type || !g.Date.Equal(w.Date) {
				t.Errorf("event %d: got %+v, want %+v", i, g, w)
			}
			switch {
			case g.Channel == "WEBHOOKS" && string(g.Payload) != string(w.Payload):
				t.Errorf("event %d (WEBHOOKS): payload %s, want %s", i, g.Payload, w.Payload)
			case g.Channel != "WEBHOOKS" && len(g.Payload) != 0:
				t.Errorf("event %d (%s): payload %s, want none", i, g.Channel, g.Payload)
			}
		}
	})
}
