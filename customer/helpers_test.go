package customer_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
)

const (
	cv1 = "/customer/v1/"
	av1 = "/auth/v1/"
	pw  = "correct horse battery staple"
	pw2 = "another long passphrase 42"
)

// clock is a settable clock for the service (app.Options.Now).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// env is a running service with a settable clock and a captured log.
type env struct {
	*apitest.Server
	clock *clock
	log   *syncBuffer
}

func newEnv(t testing.TB, db *sqldb.DB, opts ...func(*app.Options)) *env {
	t.Helper()
	e := &env{clock: &clock{t: time.Now().UTC()}, log: &syncBuffer{}}
	e.Server = apitest.New(t, db, append([]func(*app.Options){func(o *app.Options) {
		o.Now = e.clock.Now
		o.Logger = slog.New(slog.NewJSONHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}}, opts...)...)
	return e
}

type customerView struct {
	ID           string            `json:"id"`
	Email        string            `json:"email"`
	FirstName    string            `json:"firstName"`
	LastName     string            `json:"lastName"`
	Phone        string            `json:"phone"`
	CustomerType string            `json:"customerType"`
	Addresses    []json.RawMessage `json:"addresses"`
	CreatedAt    time.Time         `json:"createdAt"`
}

type sessionView struct {
	AccessToken  string       `json:"accessToken"`
	TokenType    string       `json:"tokenType"`
	ExpiresIn    int64        `json:"expiresIn"`
	RefreshToken string       `json:"refreshToken"`
	Customer     customerView `json:"customer"`
}

func (e *env) register(t testing.TB, email, password string) customerView {
	t.Helper()
	r := e.Post(t, cv1+"customer.register", e.API, map[string]any{
		"email": email, "password": password, "firstName": "Ada", "lastName": "Lovelace", "phone": "+44 20 7946 0000"}).Must(t)
	var c customerView
	r.Decode(t, "customer", &c)
	return c
}

func (e *env) login(t testing.TB, email, password string) sessionView {
	t.Helper()
	r := e.Post(t, av1+"auth.login", e.API, map[string]any{"email": email, "password": password}).Must(t)
	var s sessionView
	if err := json.Unmarshal(r.Raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// events returns the CUSTOMERS events of a type, in order.
func (e *env) events(t testing.TB, typ string) []event.Event {
	t.Helper()
	r := e.Post(t, "/event/v1/event.list", e.Admin, map[string]any{"channel": "CUSTOMERS", "type": typ, "limit": 1000}).Must(t)
	var evs []event.Event
	r.Decode(t, "data", &evs)
	return evs
}

// noSecrets fails the test when any of the texts holds a password hash or
// one of the secrets.
func noSecrets(t testing.TB, what, text string, secrets ...string) {
	t.Helper()
	if strings.Contains(text, "$argon2") || strings.Contains(text, "argon2id") {
		t.Errorf("%s holds a password hash: %s", what, text)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds a secret (%.6s...)", what, s)
		}
	}
}

// shop creates what a checkout needs: a category, a tax, a product with
// 10 in stock in warehouse W1 and a shipping method to Hawaii. It returns
// the product's id.
func (e *env) shop(t testing.TB) string {
	t.Helper()
	var cat, prod struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).Must(t).Decode(t, "category", &cat)
	e.Post(t, "/tax/v1/tax.create", e.Admin, map[string]any{"code": "default", "class": "default", "title": "Sales tax", "rate": 10}).Must(t)
	e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "F1", "status": "ONLINE", "title": "Fridge", "brand": "Acme",
		"categories": []string{cat.ID}, "stockStatus": 0, "prices": []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}}).
		Must(t).Decode(t, "product", &prod)
	e.Post(t, "/stock/v1/stock.create", e.Admin, map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": 10}).Must(t)
	e.Post(t, "/cart/v1/shipping.create", e.Admin, json.RawMessage(`{"title": "UPS", "active": true, "taxCode": "default",
		"rates": [{"locations": [{"country": "US", "state": "Hawaii"}], "rates": [{"currency": "USD", "amount": 25.00}]}]}`)).Must(t)
	return prod.ID
}

// hawaii is Ada's address in the shop's shipping zone; personal lists
// the personal data it and her account hold.
func hawaii() map[string]any {
	return map[string]any{"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Beach Rd", "address_2": []int{4, 2},
		"postCode": "96815", "city": "Honolulu", "state": "Hawaii", "country": "US", "phone": "+1 808 555 0100", "company": "Engines"}
}

var personal = []string{"Ada", "Lovelace", "Beach", "96815", "Honolulu", "808 555 0100", "Engines", "ada@example.com"}

// checkErased fails the test unless the JSON object raw (an order or a
// cart) holds none of Ada's personal data and has the named addresses,
// each with every field but country and state "[erased]".
func checkErased(t testing.TB, what string, raw json.RawMessage, addresses ...string) {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for _, name := range addresses {
		var a map[string]json.RawMessage
		if err := json.Unmarshal(doc[name], &a); err != nil || len(a) == 0 {
			t.Errorf("%s: %s missing: %s", what, name, raw)
		}
		for k, v := range a {
			want := `"[erased]"`
			switch k {
			case "country":
				want = `"US"`
			case "state":
				want = `"Hawaii"`
			}
			if string(v) != want {
				t.Errorf("%s: %s.%s = %s, want %s", what, name, k, v, want)
			}
		}
	}
	for _, pii := range personal {
		if strings.Contains(string(raw), pii) {
			t.Errorf("%s still holds %q: %s", what, pii, raw)
		}
	}
}
