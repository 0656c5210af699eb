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
	"github.com/commercekit/commerce/internal/apitest"
	"github.com/commercekit/commerce/sqldb"
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
