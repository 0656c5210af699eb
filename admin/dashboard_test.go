package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestDashboardTodaysOrders: the dashboard's card of today's orders counts
// the orders created today (UTC) per currency, cancelled ones too, and
// sums their totals but the cancelled ones'; when the read fails, the card
// says so instead of disappearing.
func TestDashboardTodaysOrders(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		productID := e.storeFixture(t, "DASH-1")
		e.anonymousOrder(t, productID) // yesterday's
		now := e.clock.Now()
		e.clock.Add(time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 1, 0, time.UTC).Sub(now))
		// Signed in after the move to tomorrow, which may be more than a
		// session's 12 hours away (when the test runs before noon UTC).
		b := e.browser(t)
		b.mustSignIn()
		var sum int64
		for range 3 {
			id := e.anonymousOrder(t, productID)
			var o struct {
				Totals struct {
					Total struct {
						Amount int64 `json:"amount"`
					} `json:"total"`
				} `json:"totals"`
			}
			e.Get(t, "/order/v1/order.info?id="+id, e.Admin).Must(t).Decode(t, "order", &o)
			sum += o.Totals.Total.Amount
		}
		cancelled := e.anonymousOrder(t, productID)
		e.Post(t, "/order/v1/order.cancel", e.Admin, map[string]any{"id": cancelled}).Must(t)

		got := b.get("/admin/")
		want := fmt.Sprintf(`<td>USD</td><td>4</td><td id="revenue-USD">%d.%02d USD</td>`, sum/100, sum%100)
		if got.Status != http.StatusOK || !strings.Contains(got.Body, want) {
			t.Fatalf("dashboard: %d, want the line %s\n%s", got.Status, want, got.Body)
		}

		// The read fails (the table is gone): the card says so.
		err := db.Update(context.Background(), func(tx *sqldb.Tx) error {
			_, err := tx.Exec(context.Background(), `ALTER TABLE orders RENAME TO orders_away`)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got = b.get("/admin/")
		if got.Status != http.StatusOK || !strings.Contains(got.Body, `id="orders-error"`) || !strings.Contains(got.Body, "Today's orders could not be read") {
			t.Fatalf("dashboard with today's orders unreadable: %d, want the card's error\n%s", got.Status, got.Body)
		}
		if !strings.Contains(got.Body, `id="active-carts"`) {
			t.Error("the other cards are gone too")
		}
	})
}

// TestDashboardPerRole is generated from the permission table: a
// member's dashboard shows a card (today's orders, active carts, low
// stock, latest events) exactly when their role may read its resource
// (staff.Allowed), and does not even read the others: with the orders,
// carts and events tables gone, a role that may read none of them sees
// no card fail.
func TestDashboardPerRole(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		productID := e.storeFixture(t, "DASH-R")
		e.anonymousOrder(t, productID)
		cards := map[string]string{`id="orders-h"`: "order", `id="carts-h"`: "cart", `id="low-h"`: "stock", `id="ev-h"`: "event"}
		browsers := map[staff.Role]*browser{}
		for _, role := range staff.Roles {
			b, _ := e.member(t, string(role)+"-dash@example.com", role)
			browsers[role] = b
			p := b.get("/admin/")
			if p.Status != http.StatusOK {
				t.Fatalf("%s: dashboard %d", role, p.Status)
			}
			for marker, res := range cards {
				if shown, allowed := strings.Contains(p.Body, marker), staff.Allowed(role, res, false); shown != allowed {
					t.Errorf("%s: card %s shown %v, the role may read %s: %v", role, marker, shown, res, allowed)
				}
			}
			if role == staff.RoleCatalog && (strings.Contains(p.Body, "revenue-") || strings.Contains(p.Body, "USD</td>")) {
				t.Errorf("catalog: the dashboard shows order totals\n%s", p.Body)
			}
		}
		// The reads a role may not make are not made.
		for _, table := range []string{"orders", "carts"} {
			err := db.Update(context.Background(), func(tx *sqldb.Tx) error {
				_, err := tx.Exec(context.Background(), `ALTER TABLE `+table+` RENAME TO `+table+`_away`)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, role := range staff.Roles {
			p := browsers[role].get("/admin/")
			readsOne := staff.Allowed(role, "order", false) || staff.Allowed(role, "cart", false)
			failedCard := strings.Contains(p.Body, "could not be read")
			if p.Status != http.StatusOK || failedCard != readsOne {
				t.Errorf("%s without the orders and carts tables: %d, a card failed %v, want %v", role, p.Status, failedCard, readsOne)
			}
		}
	})
}
