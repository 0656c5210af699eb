package testdb_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestEventOwnerBackfill: migration 0028 gives the events written before
// it (owner ”) their owner from their payload: the customer's id on
// CUSTOMERS (in {customer}, {customerId} or {id}), the cart's on CARTS
// ({new}) and ORDERS ({order}'s cartId); other events keep none. The
// migration's UPDATE is run again here, on rows written without owner.
func TestEventOwnerBackfill(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		dir := map[string]string{"sqlite": "../../sqlite/migration/", "postgres": "../../postgres/migration/"}[db.Dialect().Name()]
		sqlText, err := os.ReadFile(dir + "0028_event_owner.sql")
		if err != nil {
			t.Fatal(err)
		}
		s := string(sqlText)
		i := strings.Index(s, "UPDATE events")
		j := strings.Index(s[i:], ";")
		if i < 0 || j < 0 {
			t.Fatalf("no UPDATE in the migration: %s", s)
		}
		backfill := s[i : i+j]

		ctx := context.Background()
		want := map[string]string{}
		var evs []event.Event
		add := func(channel, typ, payload, owner string) {
			e := event.NewEncoded(channel, typ, time.Now(), []byte(payload))
			evs = append(evs, e)
			want[e.ID] = owner
		}
		add(event.Customers, event.Create, `{"customer":{"id":"c1","email":"a@b.c"}}`, "c1")
		add(event.Customers, "PASSWORD_RESET", `{"customerId":"c1","email":"a@b.c"}`, "c1")
		add(event.Customers, event.Remove, `{"id":"c1"}`, "c1")
		add(event.Carts, event.Update, `{"data":{"cartId":"k1"},"new":{"id":"k1"},"operation":"cart.addToCart"}`, "k1")
		add(event.Orders, "CREATE", `{"order":{"id":"o1","cartId":"k1"}}`, "k1")
		add(event.Products, event.Viewed, `{"productId":"p1","userId":"c1"}`, "")
		add(event.Carts, event.Update, `null`, "")
		if err := db.Append(ctx, evs); err != nil {
			t.Fatal(err)
		}
		err = db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE events SET owner = ''`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, backfill)
			return err
		})
		if err != nil {
			t.Fatalf("backfill: %v\n%s", err, backfill)
		}
		for id, owner := range want {
			var got string
			if err := db.QueryRow(ctx, `SELECT owner FROM events WHERE id = ?`, id).Scan(&got); err != nil || got != owner {
				t.Errorf("event %s: owner %q (%v), want %q", id, got, err, owner)
			}
		}
	})
}
