package customer_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	mailfile "github.com/commercekit/commerce/mail/file"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestExportEmailsAndReturns: with mail on, customer.export lists the
// messages sent to the customer (her order's confirmation and shipping
// mails, her welcome and password reset) and her return, and none of another
// customer's.
func TestExportEmailsAndReturns(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		sender, err := mailfile.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, func(o *app.Options) {
			o.MailSender = sender
			o.MailPoll = 20 * time.Millisecond
		})
		prod := e.shop(t)
		z := zenobia
		me := e.register(t, z.email, pw)
		s := e.login(t, z.email, pw)
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": z.email}).Must(t)
		bob := e.register(t, "bob.control@example.org", pw2)
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "bob.control@example.org"}).Must(t)
		var c struct{ ID string }
		e.Post(t, "/cart/v1/cart.create", s.AccessToken, map[string]any{}).Must(t).Decode(t, "cart", &c)
		e.Post(t, "/cart/v1/cart.addToCart", s.AccessToken, map[string]any{"cartId": c.ID,
			"items": []map[string]any{{"productId": prod, "quantity": 2, "warehouseId": "W1"}}}).Must(t)
		var o struct {
			ID    string `json:"id"`
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			Fulfillments []struct {
				ID string `json:"id"`
			} `json:"fulfillments"`
		}
		e.Post(t, "/cart/v1/cart.checkout", s.AccessToken, map[string]any{"cartId": c.ID, "shippingAddress": zenobiaAddress(z.street),
			"paymentId": "manual", "paymentData": map[string]any{"method": "cash"}}).Must(t).Decode(t, "order", &o)
		e.Post(t, "/order/v1/order.capture", e.Admin, map[string]any{"id": o.ID}).Must(t)
		e.Post(t, "/order/v1/order.fulfill", e.Admin, map[string]any{"id": o.ID}).Must(t).Decode(t, "order", &o)
		e.Post(t, "/order/v1/order.deliver", e.Admin, map[string]any{"id": o.ID, "fulfillmentId": o.Fulfillments[0].ID}).Must(t)
		var ret struct{ ID string }
		e.Post(t, "/order/v1/return.request", s.AccessToken, map[string]any{"orderId": o.ID,
			"items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}}).Must(t).Decode(t, "return", &ret)

		type mailView struct{ To, Template string }
		var x struct {
			Emails  []mailView
			Returns []struct{ ID, OrderID string }
		}
		want := []string{"order_confirmation", "order_shipped", "password_reset", "return_update", "welcome"}
		var got []string
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			e.Post(t, cv1+"customer.export", s.AccessToken, map[string]any{}).Must(t).Decode(t, "data", &x)
			got = got[:0]
			for _, m := range x.Emails {
				if m.To != z.email {
					t.Fatalf("an email to %q in %s's export", m.To, z.email)
				}
				if !slices.Contains(got, m.Template) {
					got = append(got, m.Template)
				}
			}
			slices.Sort(got)
			if slices.Equal(got, want) || time.Now().After(deadline) {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("templates of the exported emails: %v, want %v", got, want)
		}
		if len(x.Returns) != 1 || x.Returns[0].ID != ret.ID || x.Returns[0].OrderID != o.ID {
			t.Errorf("returns %+v, want the return %s of order %s", x.Returns, ret.ID, o.ID)
		}
		// Bob's export holds his reset, not hers.
		var bx struct{ Emails []mailView }
		bobTok := e.login(t, "bob.control@example.org", pw2).AccessToken
		e.Post(t, cv1+"customer.export", bobTok, map[string]any{}).Must(t).Decode(t, "data", &bx)
		var bobs []string
		for _, m := range bx.Emails {
			if m.To != "bob.control@example.org" {
				t.Errorf("an email to %q in bob's export", m.To)
			}
			bobs = append(bobs, m.Template)
		}
		if slices.Sort(bobs); !slices.Equal(bobs, []string{"password_reset", "welcome"}) {
			raw, _ := json.Marshal(bx.Emails)
			t.Errorf("bob's (%s) emails: %s, want his password reset and welcome", bob.ID, raw)
		}
		if me.ID == bob.ID {
			t.Fatal("two registrations, one id")
		}
	})
}
