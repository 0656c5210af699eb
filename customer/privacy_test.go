package customer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	mailfile "github.com/commercekit/commerce/mail/file"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// zenobia is the person whose data the privacy tests follow; each value
// is rare enough that finding it anywhere means it was kept.
var zenobia = struct {
	email, orderEmail, first, last, phone, newPhone string
	street, billStreet, city, postCode, company     string
}{"zenobia.q@example.org", "zq.orders@example.org", "Zenobia", "Quintrell", "+1 808 555 0199", "+1 808 555 0142",
	"77 Quillfeather Lane", "9 Marrowbone Row", "Kapaauville", "96799-ZQ", "Quintrell Looms"}

// zenobiaTraces are the strings no byte of the store may hold once her
// account is removed.
func zenobiaTraces() []string {
	z := zenobia
	return []string{z.email, z.orderEmail, z.first, z.last, z.phone, z.newPhone, z.street, z.billStreet, z.city, z.postCode,
		"Quillfeather", "Marrowbone"}
}

func zenobiaAddress(street string) map[string]any {
	z := zenobia
	return map[string]any{"firstName": z.first, "lastName": z.last, "address_1": street, "address_2": "Flat " + z.last,
		"postCode": z.postCode, "city": z.city, "state": "Hawaii", "country": "US", "phone": z.phone, "company": z.company,
		"instructions": "ask for " + z.first}
}

// hooks records the bodies a webhook endpoint receives, by event id.
type hooks struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string][][]byte
}

func newHooks(t *testing.T) *hooks {
	h := &hooks{hits: map[string][][]byte{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.hits[r.Header.Get("webhook-id")] = append(h.hits[r.Header.Get("webhook-id")], body)
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// bodies returns the bodies received for the event id.
func (h *hooks) bodies(id string) [][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.hits[id])
}

// withHooks lets the test service call webhooks on the loopback address,
// retrying after 50 ms.
func withHooks(o *app.Options) {
	o.WebhookKey = []byte(apitest.Secret)
	o.WebhookAllowPrivate = true
	o.WebhookRetry = []time.Duration{50 * time.Millisecond}
}

// keyed sends a POST with an Idempotency-Key (its answer is stored) and
// fails the test unless it is ok.
func keyed(t *testing.T, e *env, path, token, key string, body any) []byte {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.URL+path, strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("%s: %d %s", path, res.StatusCode, raw)
	}
	return raw
}

// TestErasureLeavesNoTrace: Zenobia registers, fills a guest cart with her
// address, signs in with it, adds addresses, changes her phone, asks for a
// password reset, mistypes her password, checks out (the order captured
// and shipped), with idempotency keys on the way, and a webhook receives
// every event. After customer.remove, a dump of the whole database (every
// table's every row, as an outside auditor reads it) holds none of her
// email, names, phone or streets, while another customer's data is still
// there; her events keep their shape with the personal fields
// "[erased]", and a webhook redelivery sends the erased payload.
//
// With mail on, the messages sent to her (welcome, reset, her order's)
// and the MAILS events naming her address are erased too.
func TestErasureLeavesNoTrace(t *testing.T) {
	t.Run("mail off", func(t *testing.T) {
		testdb.Each(t, func(t *testing.T, db *sqldb.DB) { erasureLeavesNoTrace(t, db, false) })
	})
	t.Run("mail on", func(t *testing.T) {
		testdb.Each(t, func(t *testing.T, db *sqldb.DB) { erasureLeavesNoTrace(t, db, true) })
	})
}

func erasureLeavesNoTrace(t *testing.T, db *sqldb.DB, mailOn bool) {
	opts := []func(*app.Options){withHooks}
	if mailOn {
		sender, err := mailfile.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, func(o *app.Options) { o.MailSender, o.MailPoll = sender, 20*time.Millisecond })
	}
	e := newEnv(t, db, opts...)
	h := newHooks(t)
	var hook struct{ ID string }
	e.Post(t, "/event/v1/webhook.create", e.Admin, map[string]any{"url": h.URL, "channels": []string{"CUSTOMERS", "CARTS", "ORDERS"}}).
		Must(t).Decode(t, "webhook", &hook)
	prod := e.shop(t)
	z := zenobia

	var me customerView
	raw := keyed(t, e, cv1+"customer.register", e.API, "reg-1", map[string]any{"email": z.email, "password": pw,
		"firstName": z.first, "lastName": z.last, "phone": z.phone})
	var reg struct{ Customer customerView }
	_ = json.Unmarshal(raw, &reg)
	me = reg.Customer
	var guest struct{ ID string }
	e.Post(t, "/cart/v1/cart.create", e.API, map[string]any{}).Must(t).Decode(t, "cart", &guest)
	e.Post(t, "/cart/v1/cart.addToCart", e.API, map[string]any{"cartId": guest.ID,
		"items": []map[string]any{{"productId": prod, "quantity": 1, "warehouseId": "W1"}}}).Must(t)
	keyed(t, e, "/cart/v1/cart.setShippingAddress", e.API, "guest-addr", map[string]any{"cartId": guest.ID, "shippingAddress": zenobiaAddress(z.street)})
	e.Post(t, av1+"auth.login", e.API, map[string]any{"email": z.email, "password": "not her password"}).Expect(t, 401, "invalid_credentials")
	r := e.Post(t, av1+"auth.login", e.API, map[string]any{"email": z.email, "password": pw, "cartId": guest.ID}).Must(t)
	var s sessionView
	_ = json.Unmarshal(r.Raw, &s)
	keyed(t, e, cv1+"customer.addAddress", s.AccessToken, "addr-1", map[string]any{"address": zenobiaAddress(z.street)})
	e.Post(t, cv1+"customer.update", s.AccessToken, map[string]any{"phone": z.newPhone}).Must(t)
	e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": z.email}).Must(t)
	raw = keyed(t, e, "/cart/v1/cart.checkout", s.AccessToken, "checkout-1", map[string]any{"cartId": guest.ID, "email": z.orderEmail,
		"billingAddress": zenobiaAddress(z.billStreet), "paymentId": "manual", "paymentData": map[string]any{"method": "cash"}})
	var placed struct{ Order struct{ ID string } }
	_ = json.Unmarshal(raw, &placed)
	e.Post(t, "/order/v1/order.capture", e.Admin, map[string]any{"id": placed.Order.ID}).Must(t)
	e.Post(t, "/order/v1/order.fulfill", e.Admin, map[string]any{"id": placed.Order.ID, "carrier": "UPS"}).Must(t)

	// Another customer, whose data stays.
	bob := map[string]any{"firstName": "Bartholomew", "address_1": "5 Controlling Street", "postCode": "96815", "city": "Honolulu",
		"state": "Hawaii", "country": "US"}
	e.Post(t, cv1+"customer.register", e.API, map[string]any{"email": "bob.control@example.org", "password": pw2, "firstName": "Bartholomew"}).Must(t)
	bobTok := e.login(t, "bob.control@example.org", pw2).AccessToken
	keyed(t, e, cv1+"customer.addAddress", bobTok, "addr-1", map[string]any{"address": bob})

	if mailOn {
		// Her four messages sent, and nothing left to send (so that
		// no event comes after the list below).
		testdb.Eventually(t, "her messages sent", "order_confirmation order_shipped password_reset welcome", func() string {
			var ms []struct{ Template, Status string }
			e.Get(t, "/mail/v1/mail.list?limit=100", e.Admin).Must(t).Decode(t, "data", &ms)
			var sent []string
			for _, m := range ms {
				if m.Status != "SENT" {
					return "pending: " + m.Template
				}
				sent = append(sent, m.Template)
			}
			slices.Sort(sent)
			return strings.Join(slices.Compact(sent), " ")
		})
	}

	// Every event so far reached the webhook, with her data.
	var evs []struct {
		ID, Channel, Type string
		Payload           json.RawMessage
	}
	e.Post(t, "/event/v1/event.list", e.Admin, map[string]any{"limit": 1000}).Must(t).Decode(t, "data", &evs)
	var hers []int
	for i, ev := range evs {
		if slices.ContainsFunc(zenobiaTraces(), func(s string) bool { return strings.Contains(string(ev.Payload), s) }) {
			hers = append(hers, i)
			if ev.Channel == "MAILS" {
				continue // not a channel of the webhook
			}
			testdb.Eventually(t, "delivery of "+ev.Channel+" "+ev.Type, true, func() bool { return len(h.bodies(ev.ID)) > 0 })
		}
	}
	kinds := map[string]bool{}
	for _, i := range hers {
		kinds[evs[i].Channel+" "+evs[i].Type] = true
	}
	// (PASSWORD_RESET holds her email where no mailer sends it: not
	// required here.)
	want := []string{"CUSTOMERS CREATE", "CUSTOMERS UPDATE", "CARTS UPDATE",
		"CARTS CHECKOUT", "ORDERS CREATE", "ORDERS CAPTURE", "ORDERS FULFILL"}
	if mailOn {
		want = append(want, "MAILS SENT")
	}
	for _, k := range want {
		if !kinds[k] {
			t.Errorf("no %s event holds her data (the test's set-up is wrong): %v", k, kinds)
		}
	}
	before := testdb.Dump(t, db)
	for _, trace := range zenobiaTraces() {
		if !strings.Contains(before, trace) {
			t.Fatalf("the dump does not hold %q before the removal: the dump is blind", trace)
		}
	}

	e.Post(t, cv1+"customer.remove", s.AccessToken, nil).Must(t)

	dump := testdb.Dump(t, db)
	for _, trace := range zenobiaTraces() {
		if i := strings.Index(dump, trace); i >= 0 {
			line := dump[strings.LastIndexByte(dump[:i], '\n')+1:]
			t.Errorf("the database still holds %q: %.300s", trace, line)
		}
	}
	for _, kept := range []string{"bob.control@example.org", "5 Controlling Street", "Bartholomew", "[erased]", me.ID} {
		if !strings.Contains(dump, kept) {
			t.Errorf("the dump lost %q, which is not hers to erase", kept)
		}
	}

	// Her events keep their ids, order and shape; the personal
	// fields are "[erased]".
	var after []struct {
		ID, Channel, Type string
		Payload           json.RawMessage
	}
	e.Post(t, "/event/v1/event.list", e.Admin, map[string]any{"limit": 1000}).Must(t).Decode(t, "data", &after)
	if len(after) != len(evs)+1 || after[len(after)-1].Channel != "CUSTOMERS" || after[len(after)-1].Type != "REMOVE" {
		t.Fatalf("%d events after the removal, want %d and REMOVE last", len(after), len(evs)+1)
	}
	for _, i := range hers {
		was, is := evs[i], after[i]
		if was.ID != is.ID || !sameShape(t, was.Payload, is.Payload) {
			t.Errorf("%s %s changed shape:\n%s\n%s", was.Channel, was.Type, was.Payload, is.Payload)
		}
		if !strings.Contains(string(is.Payload), `"[erased]"`) {
			t.Errorf("%s %s has nothing erased: %s", is.Channel, is.Type, is.Payload)
		}
	}

	// Redelivering her CUSTOMERS CREATE sends the erased payload.
	var created string
	for _, i := range hers {
		if evs[i].Channel == "CUSTOMERS" && evs[i].Type == "CREATE" {
			created = evs[i].ID
		}
	}
	var ds []struct{ ID, EventID string }
	e.Post(t, "/event/v1/webhook.deliveries", e.Admin, map[string]any{"webhookId": hook.ID, "limit": 1000}).Must(t).Decode(t, "data", &ds)
	i := slices.IndexFunc(ds, func(d struct{ ID, EventID string }) bool { return d.EventID == created })
	if i < 0 {
		t.Fatalf("no delivery of event %s in %v", created, ds)
	}
	e.Post(t, "/event/v1/webhook.redeliver", e.Admin, map[string]any{"deliveryId": ds[i].ID}).Must(t)
	testdb.Eventually(t, "the redelivery", 2, func() int { return len(h.bodies(created)) })
	got := h.bodies(created)
	first, again := string(got[0]), string(got[1])
	if !strings.Contains(first, z.email) || !strings.Contains(again, `"email":"[erased]"`) || !strings.Contains(again, `"firstName":"[erased]"`) {
		t.Errorf("delivered, then redelivered:\n%s\n%s", first, again)
	}
	for _, trace := range zenobiaTraces() {
		if strings.Contains(again, trace) {
			t.Errorf("the redelivery holds %q: %s", trace, again)
		}
	}
}

// sameShape reports whether two JSON documents have the same keys at the
// same places (values aside), and logs the first difference.
func sameShape(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ka, kb := keyPaths("", x), keyPaths("", y)
	if !slices.Equal(ka, kb) {
		t.Logf("keys %v, then %v", ka, kb)
		return false
	}
	return true
}

func keyPaths(prefix string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			out = append(out, prefix+"."+k)
			if _, ok := c.(map[string]any); ok {
				out = append(out, keyPaths(prefix+"."+k, c)...)
			}
			if arr, ok := c.([]any); ok && k != "address_2" {
				for _, el := range arr {
					out = append(out, keyPaths(prefix+"."+k+"[]", el)...)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestExport: customer.export gives Zenobia everything the store holds
// about her (account, addresses, orders, carts, sign-ins, reset requests,
// login failures; empty lists for returns, emails and consents), never a
// password, token or hash; an admin may export anyone, another customer
// or a storefront token no one (customer_not_found), no token is 401.
func TestExport(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		prod := e.shop(t)
		z := zenobia
		me := e.register(t, z.email, pw)
		s := e.login(t, z.email, pw)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": z.email, "password": "not her password"}).Expect(t, 401, "invalid_credentials")
		e.Post(t, cv1+"customer.addAddress", s.AccessToken, map[string]any{"address": zenobiaAddress(z.street)}).Must(t)
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": z.email}).Must(t)
		var c struct{ ID string }
		e.Post(t, "/cart/v1/cart.create", s.AccessToken, map[string]any{}).Must(t).Decode(t, "cart", &c)
		e.Post(t, "/cart/v1/cart.addToCart", s.AccessToken, map[string]any{"cartId": c.ID,
			"items": []map[string]any{{"productId": prod, "quantity": 1, "warehouseId": "W1"}}}).Must(t)
		e.Post(t, "/cart/v1/cart.checkout", s.AccessToken, map[string]any{"cartId": c.ID, "shippingAddress": zenobiaAddress(z.street),
			"paymentId": "manual", "paymentData": map[string]any{"method": "cash"}}).Must(t)
		var open struct{ ID string }
		e.Post(t, "/cart/v1/cart.create", s.AccessToken, map[string]any{}).Must(t).Decode(t, "cart", &open)
		bob := e.register(t, "bob.control@example.org", pw2)
		bobTok := e.login(t, "bob.control@example.org", pw2).AccessToken

		type export struct {
			Account   struct{ ID, Email, FirstName, Phone string }
			Addresses []struct {
				ID       string `json:"id"`
				Address1 string `json:"address_1"`
			}
			Orders []struct {
				ID, Email, CustomerID string
				ShippingAddress       struct{ City string }
			}
			Carts []struct {
				ID, Status string
				Items      []json.RawMessage
			}
			Returns, Emails, Consents []json.RawMessage
			SignIns                   []struct {
				ExpiresAt time.Time
				Spent     bool
			}
			PasswordResets []struct{ ExpiresAt time.Time }
			LoginFailures  []time.Time
		}
		for _, tc := range []struct {
			name, token string
			body        map[string]any
		}{{"her own token", s.AccessToken, map[string]any{}}, {"her own token, her id", s.AccessToken, map[string]any{"id": me.ID}},
			{"admin", e.Admin, map[string]any{"id": me.ID}}} {
			r := e.Post(t, cv1+"customer.export", tc.token, tc.body).Must(t)
			var x export
			r.Decode(t, "data", &x)
			if x.Account.ID != me.ID || x.Account.Email != z.email || x.Account.FirstName != "Ada" || x.Account.Phone == "" {
				t.Errorf("%s: account %+v", tc.name, x.Account)
			}
			if len(x.Addresses) != 1 || x.Addresses[0].Address1 != z.street || x.Addresses[0].ID == "" {
				t.Errorf("%s: addresses %+v", tc.name, x.Addresses)
			}
			if len(x.Orders) != 1 || x.Orders[0].Email != z.email || x.Orders[0].CustomerID != me.ID || x.Orders[0].ShippingAddress.City != z.city {
				t.Errorf("%s: orders %+v", tc.name, x.Orders)
			}
			carts := map[string]string{}
			for _, ct := range x.Carts {
				carts[ct.ID] = ct.Status + " " + strconv.Itoa(len(ct.Items))
			}
			if len(carts) != 2 || carts[c.ID] != "CHECKED_OUT 1" || carts[open.ID] != "ACTIVE 0" {
				t.Errorf("%s: carts %v", tc.name, carts)
			}
			if x.Returns == nil || len(x.Returns) != 0 || x.Emails == nil || len(x.Emails) != 0 || x.Consents == nil || len(x.Consents) != 0 {
				t.Errorf("%s: returns %v, emails %v, consents %v: want empty lists", tc.name, x.Returns, x.Emails, x.Consents)
			}
			if len(x.SignIns) != 1 || x.SignIns[0].Spent || !x.SignIns[0].ExpiresAt.After(time.Now()) ||
				len(x.PasswordResets) != 1 || len(x.LoginFailures) != 1 {
				t.Errorf("%s: sign-ins %+v, resets %+v, failures %v", tc.name, x.SignIns, x.PasswordResets, x.LoginFailures)
			}
			noSecrets(t, tc.name, string(r.Raw), pw, s.RefreshToken, s.AccessToken)
			for _, word := range []string{"hash", "Hash", "token", "Token", `"password"`} {
				if i := strings.Index(string(r.Raw), word); i >= 0 {
					t.Errorf("%s: the export names %q: ...%.80s", tc.name, word, r.Raw[max(0, i-40):])
				}
			}
		}
		// Nobody else, and an admin names whom.
		e.Post(t, cv1+"customer.export", bobTok, map[string]any{"id": me.ID}).Expect(t, 404, "customer_not_found")
		e.Post(t, cv1+"customer.export", e.API, map[string]any{"id": me.ID}).Expect(t, 404, "customer_not_found")
		e.Post(t, cv1+"customer.export", e.API, nil).Expect(t, 404, "customer_not_found")
		e.Post(t, cv1+"customer.export", e.Admin, nil).Expect(t, 400, "validation_error")
		e.Post(t, cv1+"customer.export", "", map[string]any{"id": me.ID}).Expect(t, 401, "invalid_token")
		e.Get(t, cv1+"customer.export?id="+me.ID, e.Admin).Expect(t, 405, "method_not_allowed")
		r := e.Post(t, cv1+"customer.export", bobTok, nil).Must(t)
		if strings.Contains(string(r.Raw), z.email) || !strings.Contains(string(r.Raw), bob.ID) {
			t.Errorf("Bob's export: %s", r.Raw)
		}
		// Removed: nothing left to export.
		e.Post(t, cv1+"customer.remove", s.AccessToken, nil).Must(t)
		e.Post(t, cv1+"customer.export", e.Admin, map[string]any{"id": me.ID}).Expect(t, 404, "customer_not_found")
	})
}
