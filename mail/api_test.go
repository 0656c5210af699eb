package mail_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestOrderMail: each order event sends its message, in the order's
// messages, with the shop, the order number and the lines; the file is
// an RFC 5322 multipart/alternative message with the Message-ID fixed at
// queueing; MAILS SENT events follow.
func TestOrderMail(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o := s.checkout(s.API, "Ada@Example.com")
		m := s.wait("template=order_confirmation", 1, mail.Sent)[0]
		if m.To != "ada@example.com" || m.Subject != "Acme Shop: order "+o.Number+" confirmed" || m.Locale != "en" || m.Attempts != 1 ||
			m.EventID == nil || m.SentAt == nil {
			t.Fatalf("confirmation: %+v", m)
		}
		f := s.eml(m.ID)
		for h, want := range map[string]string{"Subject": m.Subject, "From": `"Acme Shop" <orders@shop.example>`, "To": "<ada@example.com>",
			"Message-Id": "<" + m.ID + "@shop.example>", "X-Commerce-Template": mail.OrderConfirmation} {
			if got := f.Header.Get(h); got != want {
				t.Errorf("%s: %q, want %q", h, got, want)
			}
		}
		for _, want := range []string{"Fridge", "1 Main St", o.Number, "https://shop.example/orders/" + o.ID} {
			if !strings.Contains(f.Text, want) || !strings.Contains(f.HTML, want) {
				t.Errorf("%q missing from a part:\n%s", want, f.Text)
			}
		}
		full := s.info(m.ID)
		if crlf(full.Text) != crlf(f.Text) || crlf(full.HTML) != crlf(f.HTML) {
			t.Errorf("mail.info's bodies differ from what was sent")
		}

		s.Post(t, "/order/v1/order.capture", s.Admin, map[string]any{"id": o.ID}).Must(t)
		s.Post(t, "/order/v1/order.fulfill", s.Admin, map[string]any{"id": o.ID, "carrier": "UPS", "trackingNumber": "1Z999"}).Must(t)
		s.Post(t, "/order/v1/order.refund", s.Admin, map[string]any{"id": o.ID, "amount": 10, "reason": "scratched"}).Must(t)
		shipped := s.wait("template=order_shipped", 1, mail.Sent)[0]
		if f := s.eml(shipped.ID); !strings.Contains(f.Text, "1Z999") || !strings.Contains(shipped.Subject, o.Number) {
			t.Errorf("shipped: %s\n%s", shipped.Subject, f.Text)
		}
		refunded := s.wait("template=order_refunded", 1, mail.Sent)[0]
		if f := s.eml(refunded.ID); !strings.Contains(f.Text, "$10.00") || !strings.Contains(f.Text, "scratched") {
			t.Errorf("refunded:\n%s", f.Text)
		}
		o2 := s.checkout(s.API, "bob@example.com")
		s.Post(t, "/order/v1/order.cancel", s.Admin, map[string]any{"id": o2.ID}).Must(t)
		cancelled := s.wait("template=order_cancelled", 1, mail.Sent)[0]
		if cancelled.To != "bob@example.com" || !strings.Contains(cancelled.Subject, o2.Number) {
			t.Errorf("cancelled: %+v", cancelled)
		}
		// A guest order without an email sends nothing.
		s.checkout(s.API, "")
		s.wait("template=order_confirmation", 2, mail.Sent)

		var evs []event.Event
		s.Get(t, "/event/v1/event.list?channel=MAILS&limit=100", s.Admin).Must(t).Decode(t, "data", &evs)
		if len(evs) != 5 {
			t.Fatalf("%d MAILS events, want 5", len(evs))
		}
		var p map[string]string
		if err := json.Unmarshal(evs[0].Payload, &p); err != nil || evs[0].Type != mail.EventSent || p["id"] != m.ID ||
			p["template"] != mail.OrderConfirmation || p["to"] != "ada@example.com" || len(p) != 3 {
			t.Errorf("first MAILS event: %s %s", evs[0].Type, evs[0].Payload)
		}
	})
}

// crlf returns s with the line ends of a message (CRLF) as the stored
// text's (LF).
func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// resetToken is the token of a reset link.
var resetToken = regexp.MustCompile(`reset-password\?token=([A-Za-z0-9_-]+)`)

// TestPasswordResetMail: with mail on, the reset token is only in the
// email (the event carries {customerId}, mail.info shows [redacted]); the
// link resets the password; a fourth request within the hour sends
// nothing and still answers ok.
func TestPasswordResetMail(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		var c struct{ ID string }
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "ada@example.com", "password": "correct horse battery",
			"firstName": "Ada"}).Must(t).Decode(t, "customer", &c)
		welcome := s.wait("template=welcome", 1, mail.Sent)[0]
		if f := s.eml(welcome.ID); welcome.Subject != "Welcome to Acme Shop" || !strings.Contains(f.Text, "Hi Ada") {
			t.Errorf("welcome: %q\n%s", welcome.Subject, f.Text)
		}

		s.Post(t, "/auth/v1/auth.requestPasswordReset", s.API, map[string]any{"email": "ada@example.com"}).Must(t)
		m := s.wait("template=password_reset", 1, mail.Sent)[0]
		var evs []event.Event
		s.Get(t, "/event/v1/event.list?channel=CUSTOMERS&type=PASSWORD_RESET", s.Admin).Must(t).Decode(t, "data", &evs)
		if len(evs) != 1 || string(evs[0].Payload) != `{"customerId":"`+c.ID+`"}` || m.EventID == nil || *m.EventID != evs[0].ID {
			t.Fatalf("PASSWORD_RESET events %+v, mail %+v", evs, m)
		}
		f := s.eml(m.ID)
		tok := resetToken.FindStringSubmatch(f.Text)
		if tok == nil || !strings.Contains(f.HTML, tok[0]) {
			t.Fatalf("no reset link in both parts:\n%s", f.Text)
		}
		info := s.info(m.ID)
		if strings.Contains(info.Text+info.HTML, tok[1]) || !strings.Contains(info.Text, "reset-password?token="+mail.Redacted) {
			t.Fatalf("mail.info shows the token or no placeholder:\n%s", info.Text)
		}
		s.Post(t, "/auth/v1/auth.resetPassword", s.API, map[string]any{"token": tok[1], "password": "a brand new secret"}).Must(t)
		s.Post(t, "/auth/v1/auth.login", s.API, map[string]any{"email": "ada@example.com", "password": "a brand new secret"}).Must(t)

		// Resending the reset email sends the same link (the token is
		// spent now, so it no longer works).
		var re mail.Mail
		s.Post(t, "/mail/v1/mail.resend", s.Admin, map[string]any{"id": m.ID}).Must(t).Decode(t, "mail", &re)
		if re.ID == m.ID || re.To != m.To || re.Subject != m.Subject || re.Status != mail.Pending || re.Attempts != 0 {
			t.Errorf("resend: %+v", re)
		}
		s.wait("template=password_reset", 2, mail.Sent)
		if f2 := s.eml(re.ID); crlf(f2.Text) != crlf(f.Text) || f2.Header.Get("Message-Id") == f.Header.Get("Message-Id") {
			t.Errorf("resent message: a new Message-ID with the same content wanted")
		}

		// Throttle: 3 messages per address per hour, the resend counted.
		for range 3 {
			s.Post(t, "/auth/v1/auth.requestPasswordReset", s.API, map[string]any{"email": "ada@example.com"}).Must(t)
		}
		time.Sleep(200 * time.Millisecond)
		if ms := s.list("template=password_reset"); len(ms) != 3 {
			t.Errorf("%d reset messages, want 3 (the throttle)", len(ms))
		}
		s.Get(t, "/event/v1/event.list?channel=CUSTOMERS&type=PASSWORD_RESET", s.Admin).Must(t).Decode(t, "data", &evs)
		if len(evs) != 2 {
			t.Errorf("%d PASSWORD_RESET events, want 2 (none when throttled)", len(evs))
		}
	})
}

// TestErase: customer.remove cancels the customer's pending messages and
// erases the address and bodies of all of them; resending one is refused.
func TestErase(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		var c struct{ ID string }
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "ada@example.com", "password": "correct horse battery",
			"firstName": "Ada"}).Must(t).Decode(t, "customer", &c)
		tok := s.customer(c.ID)
		s.checkout(tok, "")
		s.wait("to=ada@example.com", 2, mail.Sent)
		// A message still pending when the customer goes.
		ctx := context.Background()
		err := sqldb.NewMailStore(db).Update(ctx, func(tx mail.Tx) error {
			return tx.Queue(ctx, mail.Message{Full: mail.Full{Mail: mail.Mail{ID: commerce.NewID(), To: "ada@example.com", Template: mail.Welcome,
				Subject: "later", Locale: "en", Status: mail.Pending, CreatedAt: time.Now().Add(time.Hour)}, Text: "t", HTML: "h"},
				MessageID: "x@shop.example", CustomerID: c.ID})
		})
		if err != nil {
			t.Fatal(err)
		}
		s.Post(t, "/customer/v1/customer.remove", s.Admin, map[string]any{"id": c.ID}).Must(t)
		ms := s.list("")
		if len(ms) != 3 {
			t.Fatalf("%d messages, want 3", len(ms))
		}
		for _, m := range ms {
			info := s.info(m.ID)
			want := mail.Sent
			if m.Subject == "later" {
				want = mail.Cancelled
			}
			if m.To != mail.Erased || info.Text != mail.Erased || info.HTML != mail.Erased || m.Status != want {
				t.Errorf("after removal: %+v", info)
			}
		}
		s.Post(t, "/mail/v1/mail.resend", s.Admin, map[string]any{"id": ms[0].ID}).Expect(t, 400, commerce.EValidation)
	})
}

// TestOperations: who may call the operations, their filters, errors and
// previews (each template with a real order or customer, in en and es).
func TestOperations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o := s.checkout(s.API, "ada@example.com")
		m := s.wait("", 1, mail.Sent)[0]
		var c struct{ ID string }
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "bob@example.com", "password": "correct horse battery",
			"firstName": "Bob"}).Must(t).Decode(t, "customer", &c)
		s.wait("", 2, mail.Sent)

		for _, op := range []string{"mail.list", "mail.info", "mail.resend", "mail.preview"} {
			s.Post(t, "/mail/v1/"+op, s.API, map[string]any{}).Expect(t, 403, commerce.EForbidden)
			s.Post(t, "/mail/v1/"+op, "", map[string]any{}).Expect(t, 401, commerce.EInvalidToken)
		}
		s.Get(t, "/mail/v1/mail.info?id=nope", s.Admin).Expect(t, 404, commerce.EMailNotFound)
		s.Post(t, "/mail/v1/mail.resend", s.Admin, map[string]any{"id": "nope"}).Expect(t, 404, commerce.EMailNotFound)
		s.Get(t, "/mail/v1/mail.list?status=SENDING", s.Admin).Expect(t, 400, commerce.EValidation)
		s.Get(t, "/mail/v1/mail.list?limit=0", s.Admin).Expect(t, 400, commerce.EValidation)
		if ms := s.list("to=ADA@example.com&status=SENT&template=order_confirmation"); len(ms) != 1 || ms[0].ID != m.ID {
			t.Errorf("filtered list: %+v", ms)
		}
		if ms := s.list("status=FAILED"); len(ms) != 0 {
			t.Errorf("FAILED: %+v", ms)
		}

		type preview struct{ Subject, Text, HTML string }
		for _, locale := range []string{"en", "es"} {
			for _, tmpl := range mail.Templates {
				body := map[string]any{"template": tmpl, "locale": locale, "orderId": o.ID}
				if tmpl == mail.Welcome || tmpl == mail.PasswordReset {
					body = map[string]any{"template": tmpl, "locale": locale, "customerId": c.ID}
				}
				r := s.Post(t, "/mail/v1/mail.preview", s.Admin, body).Must(t)
				var p preview
				for k, v := range map[string]*string{"subject": &p.Subject, "text": &p.Text, "html": &p.HTML} {
					if err := json.Unmarshal(r.Body[k], v); err != nil {
						t.Fatal(err)
					}
				}
				if !strings.Contains(p.Subject, "Acme Shop") || p.Text == "" || !strings.Contains(p.HTML, `lang="`+locale+`"`) {
					t.Errorf("%s/%s preview: %+v", locale, tmpl, p.Subject)
				}
				if tmpl == mail.OrderConfirmation && locale == "es" && !strings.Contains(p.Subject, "pedido "+o.Number) {
					t.Errorf("es subject %q", p.Subject)
				}
				if tmpl == mail.PasswordReset && !strings.Contains(p.Text, "token="+mail.Redacted) {
					t.Errorf("reset preview shows no placeholder:\n%s", p.Text)
				}
			}
		}
		for _, bad := range []map[string]any{
			{}, {"template": "nope", "orderId": o.ID}, {"template": "order_shipped"}, {"template": "welcome"},
			{"template": "order_shipped", "orderId": o.ID, "locale": "fr"},
		} {
			s.Post(t, "/mail/v1/mail.preview", s.Admin, bad).Expect(t, 400, commerce.EValidation)
		}
		s.Post(t, "/mail/v1/mail.preview", s.Admin, map[string]any{"template": "order_shipped", "orderId": "nope"}).Expect(t, 404, commerce.EOrderNotFound)
		s.Post(t, "/mail/v1/mail.preview", s.Admin, map[string]any{"template": "welcome", "customerId": "nope"}).Expect(t, 404, commerce.ECustomerNotFound)
		if n := len(s.list("")); n != 2 {
			t.Errorf("previews queued messages: %d, want 2", n)
		}
	})
}

// TestReturnAndInvite: a RETURNS event (docs/api.md section 24) sends
// return_update to the order's address; a staff invitation queued through
// the Go API sends staff_invite with its token only in the message.
func TestReturnAndInvite(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o := s.checkout(s.API, "ada@example.com")
		ret := map[string]any{"return": map[string]any{"id": "ret1", "number": "R1001", "orderId": o.ID, "status": "REFUNDED",
			"items":  []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1, "reason": "DAMAGED"}},
			"refund": map[string]any{"amount": map[string]any{"amount": 12100, "currency": "USD", "precision": 2}, "shipping": false}}}
		e, _ := event.New(event.Returns, "REFUND", time.Now(), ret)
		if err := db.Append(context.Background(), []event.Event{e}); err != nil {
			t.Fatal(err)
		}
		r := s.wait("template=return_update", 1, mail.Sent)[0]
		if f := s.eml(r.ID); r.To != "ada@example.com" || !strings.Contains(r.Subject, "R1001") || !strings.Contains(f.Text, "$121.00") ||
			!strings.Contains(f.Text, "Fridge") {
			t.Errorf("return_update %q:\n%s", r.Subject, f.Text)
		}

		token := "inviteToken_0123456789abcdef"
		err := s.App.Mail.SendInvite(context.Background(), mail.Invite{To: "New@Staff.example", URL: "https://admin.example/invite?token=" + token,
			Token: token, ExpiresAt: time.Now().Add(72 * time.Hour), Locale: "es"})
		if err != nil {
			t.Fatal(err)
		}
		inv := s.wait("template=staff_invite", 1, mail.Sent)[0]
		f := s.eml(inv.ID)
		if inv.To != "new@staff.example" || inv.Locale != "es" || !strings.Contains(f.Text, "invite?token="+token) {
			t.Errorf("invite %+v:\n%s", inv, f.Text)
		}
		if info := s.info(inv.ID); strings.Contains(info.Text+info.HTML, token) {
			t.Errorf("mail.info shows the invitation token")
		}
		if err := s.App.Mail.SendInvite(context.Background(), mail.Invite{To: "x@example.com", URL: "https://a/b", Token: "short"}); commerce.ErrorCode(err) != commerce.EValidation {
			t.Errorf("a bad invitation: %v", err)
		}
	})
}

// TestRenderFailure: a template that fails with an event's data (not with
// the sample data it was checked with at start) gives a FAILED message
// saying why, and the follower goes on to the next events.
func TestRenderFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "en"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := `{{define "subject"}}Order {{.Order.Number}}{{end}}{{define "content"}}{{if ne .Order.Number "1042"}}{{index .Order.Lines 7}}{{end}}{{end}}`
	if err := os.WriteFile(filepath.Join(dir, "en", "order_confirmation.txt"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newShop(t, testdb.SQLite(t), func(o *app.Options) { o.MailTemplates = dir })
	s.checkout(s.API, "ada@example.com")
	m := s.wait("template=order_confirmation", 1, mail.Failed)[0]
	if m.LastError == nil || !strings.Contains(*m.LastError, "order_confirmation") || m.Attempts != 0 {
		t.Errorf("failed message: %+v", m)
	}
	s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "bob@example.com", "password": "correct horse battery",
		"firstName": "Bob"}).Must(t)
	s.wait("template=welcome", 1, mail.Sent)
}
