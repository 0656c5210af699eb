package rpc_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

type idemAnswer struct {
	status   int
	replayed string
	raw      []byte
	code     string
}

// idemPost sends a POST with an Idempotency-Key header (none when key is
// nil) and returns the raw answer.
func idemPost(t *testing.T, srv *apitest.Server, path, token string, key *string, body string) idemAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if key != nil {
		req.Header.Set("Idempotency-Key", *key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Error string `json:"error"`
	}
	json.Unmarshal(raw, &env)
	return idemAnswer{res.StatusCode, res.Header.Get("Idempotent-Replayed"), raw, env.Error}
}

func ptr(s string) *string { return &s }

const idemShipping = `{"title": "Post", "rates": [{"locations": [{"country": "DE"}], "rates": [{"currency": "EUR", "amount": 5}]}]}`

func countMethods(t *testing.T, srv *apitest.Server) int {
	t.Helper()
	var data []json.RawMessage
	srv.Get(t, "/cart/v1/shipping.list?limit=1000", srv.API).Must(t).Decode(t, "data", &data)
	return len(data)
}

func TestIdempotencyKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		key := ptr("order-2026-11-23/1")
		first := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, idemShipping)
		if first.status != 200 || first.replayed != "" {
			t.Fatalf("first: %d %q %s", first.status, first.replayed, first.raw)
		}
		// The same arguments, keys in another order, under the other
		// prefix: the stored answer, byte for byte.
		reordered := `{"rates": [{"rates": [{"amount": 5, "currency": "EUR"}], "locations": [{"country": "DE"}]}], "title": "Post"}`
		for _, path := range []string{"/cart/v1/shipping.create", "/services/cart/v1/shipping.create"} {
			for _, body := range []string{idemShipping, reordered} {
				again := idemPost(t, srv, path, srv.Admin, key, body)
				if again.status != 200 || again.replayed != "true" || string(again.raw) != string(first.raw) {
					t.Fatalf("replay on %s: %d %q %s, want %s", path, again.status, again.replayed, again.raw, first.raw)
				}
			}
		}
		// Another process on the same database (or this one restarted)
		// knows the key: it is stored, not in memory.
		other := apitest.New(t, db)
		if again := idemPost(t, other, "/cart/v1/shipping.create", other.Admin, key, idemShipping); again.status != 200 || again.replayed != "true" || string(again.raw) != string(first.raw) {
			t.Fatalf("replay by another process: %d %q %s", again.status, again.replayed, again.raw)
		}
		if n := countMethods(t, srv); n != 1 {
			t.Fatalf("%d methods after replays, want 1", n)
		}
		// Another body or another operation with the key: 422.
		changed := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, strings.Replace(idemShipping, "Post", "Parcel", 1))
		if changed.status != 422 || changed.code != commerce.EIdempotencyKeyReused {
			t.Fatalf("other body: %d %s", changed.status, changed.raw)
		}
		if a := idemPost(t, srv, "/event/v1/webhook.list", srv.Admin, key, `{}`); a.status != 422 || a.code != commerce.EIdempotencyKeyReused {
			t.Fatalf("other operation: %d %s", a.status, a.raw)
		}
		// Another token's subject: the same key is another key.
		admin2 := srv.Token(t, commerce.Claims{Subject: "another-admin", Scopes: []string{commerce.ScopeAdmin}})
		if a := idemPost(t, srv, "/cart/v1/shipping.create", admin2, key, idemShipping); a.status != 200 || a.replayed != "" || string(a.raw) == string(first.raw) {
			t.Fatalf("another subject: %d %q %s", a.status, a.replayed, a.raw)
		}
		if n := countMethods(t, srv); n != 2 {
			t.Fatalf("%d methods, want 2", n)
		}
		// Bad keys: 400, nothing runs.
		for _, k := range []string{"", strings.Repeat("k", 256), "caf\u00e9"} {
			a := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, ptr(k), idemShipping)
			if a.status != 400 || a.code != commerce.EValidation {
				t.Fatalf("key %q: %d %s", k, a.status, a.raw)
			}
		}
		if a := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, ptr(strings.Repeat("~", 255)), idemShipping); a.status != 200 {
			t.Fatalf("255-character key: %d %s", a.status, a.raw)
		}
		if n := countMethods(t, srv); n != 3 {
			t.Fatalf("%d methods, want 3", n)
		}
		// An error answer below 500 is stored too.
		bad := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, ptr("bad"), `{"title": ""}`)
		again := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, ptr("bad"), `{"title": ""}`)
		if bad.status != 400 || again.replayed != "true" || string(again.raw) != string(bad.raw) || again.status != 400 {
			t.Fatalf("stored error: %d, replay %d %q %s", bad.status, again.status, again.replayed, again.raw)
		}
		// GET ignores the key, even a bad one.
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/cart/v1/shipping.list", nil)
		req.Header.Set("Authorization", "Bearer "+srv.API)
		req.Header.Set("Idempotency-Key", "")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("GET with a key: %d", res.StatusCode)
		}
	})
}

// TestIdempotencyConcurrent: 20 requests at once with one key: exactly one
// runs; each other one is 409 idempotency_key_in_use or the replay.
func TestIdempotencyConcurrent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		var wg sync.WaitGroup
		answers := make([]idemAnswer, 20)
		for i := range answers {
			wg.Go(func() {
				answers[i] = idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, ptr("same"), idemShipping)
			})
		}
		wg.Wait()
		var ran []idemAnswer
		for _, a := range answers {
			switch {
			case a.status == 200 && a.replayed == "":
				ran = append(ran, a)
			case a.status == 200 && a.replayed == "true":
			case a.status == 409 && a.code == commerce.EIdempotencyKeyInUse:
			default:
				t.Fatalf("answer %d %q %s", a.status, a.replayed, a.raw)
			}
		}
		if len(ran) != 1 {
			t.Fatalf("%d requests ran, want 1", len(ran))
		}
		for _, a := range answers {
			if a.replayed == "true" && string(a.raw) != string(ran[0].raw) {
				t.Fatalf("replay %s differs from %s", a.raw, ran[0].raw)
			}
		}
		if n := countMethods(t, srv); n != 1 {
			t.Fatalf("%d methods, want 1", n)
		}
	})
}

// TestIdempotencyStore: a running key is in use until released (Abort,
// as for a 5xx answer, which is not stored) or its hold ends; a key older
// than 24 hours is new again, and swept.
func TestIdempotencyStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		st := sqldb.NewIdempotencyStore(db)
		now := time.Now()
		if s, _, err := st.Begin(ctx, "u", "k", "fp", now); s != 0 || err != nil {
			t.Fatalf("begin: %d %v", s, err)
		}
		if _, _, err := st.Begin(ctx, "u", "k", "fp", now); commerce.ErrorCode(err) != commerce.EIdempotencyKeyInUse {
			t.Fatalf("while running: %v", err)
		}
		if _, _, err := st.Begin(ctx, "u", "k", "other", now); commerce.ErrorCode(err) != commerce.EIdempotencyKeyReused {
			t.Fatalf("other fingerprint: %v", err)
		}
		// A 5xx: released, the retry runs.
		if err := st.Abort(ctx, "u", "k"); err != nil {
			t.Fatal(err)
		}
		if s, _, err := st.Begin(ctx, "u", "k", "fp", now); s != 0 || err != nil {
			t.Fatalf("after abort: %d %v", s, err)
		}
		// Past the hold (a crashed first request): runs again.
		if s, _, err := st.Begin(ctx, "u", "k", "fp", now.Add(sqldb.IdempotencyHold+time.Second)); s != 0 || err != nil {
			t.Fatalf("after the hold: %d %v", s, err)
		}
		if err := st.Finish(ctx, "u", "k", 200, []byte(`{"ok":true}`)); err != nil {
			t.Fatal(err)
		}
		if s, b, err := st.Begin(ctx, "u", "k", "fp", now); s != 200 || string(b) != `{"ok":true}` || err != nil {
			t.Fatalf("replay: %d %s %v", s, b, err)
		}
		// 24 hours later the key is new, even with another fingerprint.
		later := now.Add(sqldb.IdempotencyKeep + time.Minute)
		if s, _, err := st.Begin(ctx, "u", "k", "other", later); s != 0 || err != nil {
			t.Fatalf("expired key: %d %v", s, err)
		}
		if _, _, err := st.Begin(ctx, "u", "old", "fp", now.Add(-25*time.Hour)); err != nil {
			t.Fatal(err)
		}
		n, err := st.Sweep(ctx, now.Add(-sqldb.IdempotencyKeep))
		if err != nil || n != 1 {
			t.Fatalf("sweep: %d %v, want 1", n, err)
		}
		if s, _, err := st.Begin(ctx, "u", "k", "fp", now); commerce.ErrorCode(err) != commerce.EIdempotencyKeyReused || s != 0 {
			t.Fatalf("unswept key: %d %v", s, err)
		}
	})
}

// TestIdempotencySecretsNotStoredInClear: answers can carry secrets (the
// clientSecret of client.create, the tokens of auth.login), and
// arguments passwords. The stored row must not hold the key, the answer
// or a plain hash of the arguments: someone reading the database must not
// learn the secret, yet the replay is byte for byte.
func TestIdempotencySecretsNotStoredInClear(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		key := ptr("client-create-secret-probe")
		first := idemPost(t, srv, "/customer/v1/client.create", srv.Admin, key, `{"name": "erp", "scope": "api"}`)
		var got struct {
			ClientSecret string `json:"clientSecret"`
		}
		if err := json.Unmarshal(first.raw, &got); err != nil || first.status != 200 || got.ClientSecret == "" {
			t.Fatalf("client.create: %d %s", first.status, first.raw)
		}
		again := idemPost(t, srv, "/customer/v1/client.create", srv.Admin, key, `{"scope": "api", "name": "erp"}`)
		if again.status != 200 || again.replayed != "true" || string(again.raw) != string(first.raw) {
			t.Fatalf("replay: %d %q %s, want %s", again.status, again.replayed, again.raw, first.raw)
		}
		err := db.View(context.Background(), func(tx *sqldb.Tx) error {
			rows, err := tx.Query(context.Background(), `SELECT idem_key, fingerprint, body FROM idempotency_keys`)
			if err != nil {
				return err
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var k, fp string
				var body []byte
				if err := rows.Scan(&k, &fp, &body); err != nil {
					return err
				}
				n++
				if k == *key || strings.Contains(string(body), got.ClientSecret) || strings.Contains(string(body), `"ok"`) {
					t.Errorf("stored in clear: key %q, body %s", k, body)
				}
				if fp == fingerprintOf("customer", "client.create", `{"name":"erp","scope":"api"}`) {
					t.Errorf("stored fingerprint is a plain hash of the arguments")
				}
			}
			if n != 1 {
				t.Errorf("%d stored keys, want 1", n)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// fingerprintOf is a plain SHA-256 of the operation and its canonical
// arguments, as an attacker could compute it for guessed arguments.
func fingerprintOf(service, op, canon string) string {
	h := sha256.Sum256([]byte(service + "\x00" + op + "\x00" + canon))
	return hex.EncodeToString(h[:])
}

// TestIdempotencyServerErrorsNotStored: an answer of 500 or 503 is not
// stored under its key: the retry with the key runs the operation again,
// and the first answer below 500 is the one stored and replayed. The
// panic of an operation (500 too) releases its key the same way.
func TestIdempotencyServerErrorsNotStored(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		keys, err := auth.New([]byte(testSecret))
		if err != nil {
			t.Fatal(err)
		}
		s := rpc.NewServer(keys, slog.New(slog.DiscardHandler), func(context.Context) error { return nil })
		s.SetIdempotency(sqldb.NewIdempotencyStore(db), nil)
		var runs atomic.Int32
		rpc.Handle(s, rpc.Op{Service: "test", Name: "flaky.create"},
			func(ctx context.Context, a *failArgs) (any, error) {
				switch runs.Add(1) {
				case 1:
					return nil, io.ErrUnexpectedEOF // internal_error, 500
				case 2:
					return nil, commerce.NewError(commerce.EUnavailable, nil) // 503
				case 3:
					panic("fixture panic") // 500
				}
				return map[string]any{"run": runs.Load(), "code": a.Code}, nil
			})
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		srv := &apitest.Server{URL: hs.URL}
		tok := token(t, keys, time.Hour, "api")
		const body = `{"code": "x"}`
		for i, want := range []int{500, 503, 500} {
			a := idemPost(t, srv, "/test/v1/flaky.create", tok, ptr("flaky"), body)
			if a.status != want || a.replayed != "" {
				t.Fatalf("attempt %d: %d %q %s, want %d not replayed", i+1, a.status, a.replayed, a.raw, want)
			}
		}
		ran := idemPost(t, srv, "/test/v1/flaky.create", tok, ptr("flaky"), body)
		if ran.status != 200 || ran.replayed != "" || !strings.Contains(string(ran.raw), `"run":4`) {
			t.Fatalf("fourth attempt: %d %q %s, want it to run", ran.status, ran.replayed, ran.raw)
		}
		again := idemPost(t, srv, "/test/v1/flaky.create", tok, ptr("flaky"), body)
		if again.status != 200 || again.replayed != "true" || string(again.raw) != string(ran.raw) {
			t.Fatalf("replay: %d %q %s, want %s", again.status, again.replayed, again.raw, ran.raw)
		}
		if n := runs.Load(); n != 4 {
			t.Fatalf("the operation ran %d times, want 4", n)
		}
	})
}

// TestIdempotencySweep: the service's background sweep deletes the keys
// older than 24 hours; after it, the key is new (another body runs).
func TestIdempotencySweep(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		var mu sync.Mutex
		now := time.Now()
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		srv := apitest.New(t, db, func(o *app.Options) { o.Now = clock; o.IdempotencySweep = 20 * time.Millisecond })
		key := ptr("swept")
		if a := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, idemShipping); a.status != 200 {
			t.Fatalf("first: %d %s", a.status, a.raw)
		}
		keys := func() int {
			var n int
			if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM idempotency_keys`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		time.Sleep(100 * time.Millisecond) // several sweeps: a key younger than 24 hours stays
		if n := keys(); n != 1 {
			t.Fatalf("%d keys before 24 hours, want 1", n)
		}
		if a := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, idemShipping); a.replayed != "true" {
			t.Fatalf("replay before 24 hours: %d %q %s", a.status, a.replayed, a.raw)
		}
		mu.Lock()
		now = now.Add(24*time.Hour + time.Minute)
		mu.Unlock()
		testdb.Eventually(t, "keys after the sweep", 0, keys)
		other := strings.Replace(idemShipping, "Post", "Parcel", 1)
		if a := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, other); a.status != 200 || a.replayed != "" {
			t.Fatalf("the key after the sweep: %d %q %s, want a new run", a.status, a.replayed, a.raw)
		}
	})
}

// TestIdempotencyMergedArguments: the fingerprint is of the arguments as
// the operation gets them (query string and body merged, query values
// converted to their fields' types): `?limit=10` and {"limit": 10} are the
// same arguments, a query parameter the operation ignores changes nothing,
// and the body wins over the query string; another value is 422.
func TestIdempotencyMergedArguments(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		key := ptr("list-10")
		first := idemPost(t, srv, "/cart/v1/shipping.list?limit=10&utm_source=mail", srv.Admin, key, "")
		if first.status != 200 || first.replayed != "" {
			t.Fatalf("first: %d %q %s", first.status, first.replayed, first.raw)
		}
		for _, c := range []struct{ path, body string }{
			{"/cart/v1/shipping.list", `{"limit": 10}`},
			{"/cart/v1/shipping.list?limit=10", ``},
			{"/services/cart/v1/shipping.list?limit=10&utm_source=other", `{}`},
			{"/cart/v1/shipping.list?limit=99", ` {"limit": 10} `},
		} {
			a := idemPost(t, srv, c.path, srv.Admin, key, c.body)
			if a.status != 200 || a.replayed != "true" || string(a.raw) != string(first.raw) {
				t.Errorf("%s %s: %d %q %s, want the replay of %s", c.path, c.body, a.status, a.replayed, a.raw, first.raw)
			}
		}
		for _, c := range []struct{ path, body string }{
			{"/cart/v1/shipping.list", `{"limit": 11}`},
			{"/cart/v1/shipping.list?limit=11", ``},
			{"/cart/v1/shipping.list?limit=10&skip=1", ``},
			{"/cart/v1/shipping.list", `{"limit": "10"}`},
		} {
			if a := idemPost(t, srv, c.path, srv.Admin, key, c.body); a.status != 422 || a.code != commerce.EIdempotencyKeyReused {
				t.Errorf("%s %s: %d %s, want 422 %s", c.path, c.body, a.status, a.raw, commerce.EIdempotencyKeyReused)
			}
		}
	})
}

// TestIdempotencyServiceClock: keys are dated by the service's clock, the
// one its sweep of keys older than 24 hours uses: with the clock a day
// ahead of the wall clock, a key just used is dated then and survives the
// sweeps (dated by the wall clock, the sweep would take it at once).
func TestIdempotencyServiceClock(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		now := time.Now().Add(25 * time.Hour).Truncate(time.Millisecond)
		clock := func() time.Time { return now }
		srv := apitest.New(t, db, func(o *app.Options) { o.Now = clock; o.IdempotencySweep = 20 * time.Millisecond })
		key := ptr("service-clock")
		first := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, idemShipping)
		if first.status != 200 {
			t.Fatalf("first: %d %s", first.status, first.raw)
		}
		var created int64
		if err := db.QueryRow(context.Background(), `SELECT created_at FROM idempotency_keys`).Scan(&created); err != nil {
			t.Fatal(err)
		}
		if created != now.UnixMilli() {
			t.Fatalf("key created at %s, want the service's clock %s", time.UnixMilli(created).UTC(), now.UTC())
		}
		time.Sleep(100 * time.Millisecond) // several sweeps
		if a := idemPost(t, srv, "/cart/v1/shipping.create", srv.Admin, key, idemShipping); a.replayed != "true" || string(a.raw) != string(first.raw) {
			t.Fatalf("replay after the sweeps: %d %q %s", a.status, a.replayed, a.raw)
		}
	})
}

// TestIdempotencyScopedByClaims (issue 27 defect 2): a key is scoped by
// every claim of the token, not by its subject alone. The tokens of
// `commerce token --customer-id X` share the subject "api": customer bob
// sending alice's key and body must not get alice's cart. Tokens without
// a subject do not share a scope either; each keeps its own keys.
func TestIdempotencyScopedByClaims(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		customer := func(id string) string {
			return srv.Token(t, commerce.Claims{Subject: "api", Scopes: []string{commerce.ScopeAPI}, CustomerID: id})
		}
		alice, bob := customer("alice"), customer("bob")
		cartOf := func(a idemAnswer) (id, customer string) {
			t.Helper()
			var env struct {
				Cart struct {
					ID       string `json:"id"`
					Customer string `json:"customerId"`
				}
			}
			if err := json.Unmarshal(a.raw, &env); err != nil || a.status != 200 {
				t.Fatalf("cart.create: %d %s", a.status, a.raw)
			}
			return env.Cart.ID, env.Cart.Customer
		}
		key := ptr("cart-1")
		first := idemPost(t, srv, "/cart/v1/cart.create", alice, key, `{}`)
		aliceCart, owner := cartOf(first)
		if owner != "alice" {
			t.Fatalf("alice's cart belongs to %q", owner)
		}
		if again := idemPost(t, srv, "/cart/v1/cart.create", alice, key, `{}`); again.replayed != "true" || string(again.raw) != string(first.raw) {
			t.Fatalf("alice again: %d %q %s, want her answer replayed", again.status, again.replayed, again.raw)
		}
		byBob := idemPost(t, srv, "/cart/v1/cart.create", bob, key, `{}`)
		bobCart, owner := cartOf(byBob)
		if byBob.replayed != "" || bobCart == aliceCart || owner != "bob" {
			t.Errorf("bob with alice's key and body: replayed %q, cart %s of %q; want a cart of his own (alice's is %s)", byBob.replayed, bobCart, owner, aliceCart)
		}
		// Tokens without a subject, with the same claims otherwise: each
		// its own keys (the same token still gets its replay).
		noSub := func(at time.Time) string {
			tok, err := srv.Keys.Issue(commerce.Claims{Scopes: []string{commerce.ScopeAPI}}, at, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		one, two := noSub(time.Now()), noSub(time.Now().Add(-time.Minute))
		key = ptr("cart-2")
		firstNoSub := idemPost(t, srv, "/cart/v1/cart.create", one, key, `{}`)
		oneCart, _ := cartOf(firstNoSub)
		if again := idemPost(t, srv, "/cart/v1/cart.create", one, key, `{}`); again.replayed != "true" || string(again.raw) != string(firstNoSub.raw) {
			t.Errorf("the same token without a subject again: %d %q, want its answer replayed", again.status, again.replayed)
		}
		other := idemPost(t, srv, "/cart/v1/cart.create", two, key, `{}`)
		if otherCart, _ := cartOf(other); other.replayed != "" || otherCart == oneCart {
			t.Errorf("another token without a subject: replayed %q, cart %s; want a cart of its own (the first is %s)", other.replayed, otherCart, oneCart)
		}
	})
}
