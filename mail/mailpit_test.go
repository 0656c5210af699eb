package mail_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/mail/smtp"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/mailpit"
	"github.com/commercekit/commerce/testkit/testdb"
)

// mailpitShop is a shop whose mail goes to a Mailpit, retried every
// 100ms for a few seconds.
func mailpitShop(t *testing.T, db *sqldb.DB, mp *mailpit.Server) *shop {
	sender, err := smtp.New("smtp://"+mp.SMTP, smtp.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := &shop{Server: apitest.New(t, db, withMail(sender), func(o *app.Options) {
		o.MailRetry = nil
		for range 40 {
			o.MailRetry = append(o.MailRetry, 100*time.Millisecond)
		}
	}), t: t}
	s.setup()
	return s
}

// TestMailpit: through a real SMTP server, an order confirmation arrives
// with its Message-ID and both parts; the password-reset link read from
// the received mail resets the password; with the server down, messages
// wait and every one arrives once it is back.
func TestMailpit(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		mp := mailpit.Start(t)
		s := mailpitShop(t, db, mp)

		o := s.checkout(s.API, "ada@example.com")
		m := s.wait("template=order_confirmation", 1, mail.Sent)[0]
		got := mp.Wait(t, 1)
		msg := mp.Message(t, got[0].ID)
		if msg.MessageID != m.ID+"@shop.example" || msg.Subject != "Acme Shop: order "+o.Number+" confirmed" ||
			!strings.Contains(msg.Text, "Fridge") || !strings.Contains(msg.HTML, "<!DOCTYPE html>") || !strings.Contains(msg.HTML, o.Number) {
			t.Fatalf("received %+v", msg.Summary)
		}

		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "bob@example.com", "password": "correct horse battery",
			"firstName": "Bob"}).Must(t)
		s.Post(t, "/auth/v1/auth.requestPasswordReset", s.API, map[string]any{"email": "bob@example.com"}).Must(t)
		var reset mailpit.Message
		for _, sum := range mp.Wait(t, 3) {
			if strings.Contains(sum.Subject, "reset your password") {
				reset = mp.Message(t, sum.ID)
			}
		}
		tok := resetToken.FindStringSubmatch(reset.Text)
		if tok == nil || reset.To[0].Address != "bob@example.com" || !strings.Contains(reset.HTML, tok[0]) {
			t.Fatalf("reset mail: %+v\n%s", reset.Summary, reset.Text)
		}
		s.Post(t, "/auth/v1/auth.resetPassword", s.API, map[string]any{"token": tok[1], "password": "a brand new secret"}).Must(t)
		s.Post(t, "/auth/v1/auth.login", s.API, map[string]any{"email": "bob@example.com", "password": "a brand new secret"}).Must(t)

		// The server goes away: messages wait, and arrive once it is back.
		mp.Stop()
		var numbers []string
		for range 5 {
			numbers = append(numbers, s.checkout(s.API, "carol@example.com").Number)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			ms := s.list("to=carol@example.com")
			failing := 0
			for _, m := range ms {
				if m.Status == mail.Pending && m.Attempts >= 1 && m.LastError != nil {
					failing++
				}
			}
			if failing == 5 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("messages while the server is down: %+v", ms)
			}
			time.Sleep(50 * time.Millisecond)
		}
		mp.Restart(t)
		s.wait("to=carol@example.com", 5, mail.Sent)
		subjects := map[string]int{}
		for _, sum := range mp.Wait(t, 8) {
			subjects[sum.Subject]++
		}
		for _, n := range numbers {
			if subjects["Acme Shop: order "+n+" confirmed"] != 1 {
				t.Errorf("order %s: %d confirmations received, want 1", n, subjects["Acme Shop: order "+n+" confirmed"])
			}
		}
	})
}

// TestTwoProcesses: two services on one database, both sending to one
// Mailpit: each message is claimed by one of them and arrives once.
func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		mp := mailpit.Start(t)
		s := mailpitShop(t, a, mp)
		sender, err := smtp.New("smtp://"+mp.SMTP, smtp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		other := apitest.New(t, b, withMail(sender))
		const n = 30
		var wg sync.WaitGroup
		numbers := make(chan string, n)
		for i := range n {
			wg.Go(func() {
				srv := s
				if i%2 == 1 {
					srv = &shop{Server: other, t: t, product: s.product}
				}
				numbers <- srv.checkout(srv.API, fmt.Sprintf("p%d@example.com", i)).Number
			})
		}
		wg.Wait()
		close(numbers)
		s.wait("template=order_confirmation", n, mail.Sent)
		got := map[string]int{}
		for _, m := range mp.Wait(t, n) {
			got[m.Subject]++
		}
		for number := range numbers {
			if k := got["Acme Shop: order "+number+" confirmed"]; k != 1 {
				t.Errorf("order %s: %d confirmations, want 1", number, k)
			}
		}
		if len(got) != n {
			t.Errorf("%d distinct messages, want %d", len(got), n)
		}
	})
}
