package admin_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/app"
	mailfile "github.com/commercekit/commerce/mail/file"
)

// mailOn sends the service's mail to files in a temporary folder.
func mailOn(t *testing.T) func(*app.Options) {
	sender, err := mailfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return func(o *app.Options) {
		o.MailSender = sender
		o.MailPoll = 20 * time.Millisecond
	}
}

// mail finds the order's confirmation among the sent mail, opens it (its
// HTML served to its frame), resends it, and previews a template in
// Spanish with the order.
func (u *ui) mail(t *testing.T, e *env, orderID string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(string(e.Get(t, "/mail/v1/mail.list?template=order_confirmation&status=SENT", e.Admin).Must(t).Raw), `"SENT"`) {
		if time.Now().After(deadline) {
			t.Fatal("the order confirmation was not sent")
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.open("/admin/")
	u.run(chromedp.Click(css(`nav a[href="/admin/mail"]`)), chromedp.WaitVisible(css("#mails")))
	u.expect("#mails", "order_confirmation")
	u.expect("#mails", "ada@example.com")
	u.expect("#mails", "SENT")
	u.screenshot("mails")
	u.run(chromedp.SetValue(css("#f-template"), "order_confirmation"))
	u.submit(`form.filters button[type=submit]`)
	if n := strings.Count(u.text("#mails tbody"), "welcome"); n != 0 {
		t.Errorf("the template filter lists a welcome message")
	}
	// The journey placed several orders (the checkout, a draft, an
	// anonymous order): one confirmation each, derived from the outbox
	// in the background; once they have all been written, the resend
	// adds one.
	before := settledConfirmations(t, e)
	if before == 0 {
		t.Errorf("no confirmation listed under the template filter")
	}
	u.run(chromedp.Click(css(`#mails a[href^="/admin/mail/"]`)), chromedp.WaitVisible(css("#mail-status")))
	u.expect("#mail-status", "SENT")
	u.expect("pre.mailtext", "Thank you for your order")
	// The frame's document: the message's HTML, under a CSP of its own.
	html := get(u, chromedp.Evaluate[string](`fetch(document.querySelector('iframe.mailframe').src).then(async r => r.headers.get('content-security-policy') + '|' + r.status + '|' + await r.text())`,
		chromedp.EvalAwaitPromise))
	if !strings.Contains(html, "sandbox") || !strings.Contains(html, "|200|") || !strings.Contains(html, "Thank you for your order") {
		t.Errorf("the frame's answer: %.200s", html)
	}
	u.screenshot("mail")
	u.submit("#resend")
	u.expect(".notice", "Queued again")
	u.open("/admin/mail?template=order_confirmation")
	if n := strings.Count(u.text("#mails tbody"), "order_confirmation"); n != before+1 {
		t.Errorf("%d confirmations listed after the resend, want %d", n, before+1)
	}
	u.open("/admin/mail/preview?template=order_shipped&locale=es&orderId=" + orderID)
	u.expect("#preview-subject", "está en camino")
	u.expect("pre.mailtext", "1Z999AA10123456784")
	u.screenshot("mail-preview")
}

// settledConfirmations counts the order confirmations once the count has
// not changed for half a second and none is pending.
func settledConfirmations(t *testing.T, e *env) int {
	t.Helper()
	last, same := -1, 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var list []struct {
			Status string `json:"status"`
		}
		e.Get(t, "/mail/v1/mail.list?template=order_confirmation&limit=100", e.Admin).Must(t).Decode(t, "data", &list)
		pending := false
		for _, m := range list {
			pending = pending || m.Status == "PENDING"
		}
		if len(list) == last && !pending {
			if same++; same == 5 {
				return last
			}
			continue
		}
		last, same = len(list), 0
	}
	t.Fatalf("the order confirmations did not settle (last count %d)", last)
	return 0
}
