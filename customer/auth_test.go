package customer_test

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

func TestLoginRefreshLogout(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ada := e.register(t, "ada@example.com", pw)
		s := e.login(t, " ADA@example.com", pw)
		if s.TokenType != "Bearer" || s.ExpiresIn != 900 || s.AccessToken == "" || len(s.RefreshToken) < 22 || s.Customer.ID != ada.ID {
			t.Fatalf("session %+v", s)
		}
		cl, err := e.Keys.Verify(s.AccessToken)
		if err != nil || cl.Subject != ada.ID || cl.CustomerID != ada.ID || cl.Country != "" {
			t.Errorf("claims %+v %v", cl, err)
		}
		// The access token is accepted by the existing operations.
		e.Post(t, "/cart/v1/cart.create", s.AccessToken, map[string]any{}).Must(t)

		for _, tc := range []struct {
			name   string
			op     string
			token  string
			body   map[string]any
			status int
			code   string
		}{
			{"wrong password", "auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "wrong password!"}, 401, commerce.EInvalidCredentials},
			{"unknown email", "auth.login", e.API, map[string]any{"email": "nobody@example.com", "password": pw}, 401, commerce.EInvalidCredentials},
			{"no email", "auth.login", e.API, map[string]any{"password": pw}, 400, commerce.EValidation},
			{"no password", "auth.login", e.API, map[string]any{"email": "ada@example.com"}, 400, commerce.EValidation},
			{"login without a token", "auth.login", "", map[string]any{"email": "ada@example.com", "password": pw}, 401, commerce.EInvalidToken},
			{"unknown refresh token", "auth.refresh", e.API, map[string]any{"refreshToken": "nope"}, 401, commerce.EInvalidToken},
			{"no refresh token", "auth.refresh", e.API, map[string]any{}, 400, commerce.EValidation},
			{"refresh without a token", "auth.refresh", "", map[string]any{"refreshToken": s.RefreshToken}, 401, commerce.EInvalidToken},
			{"logout without refresh token", "auth.logout", e.API, map[string]any{}, 400, commerce.EValidation},
			{"logout without a token", "auth.logout", "", map[string]any{"refreshToken": s.RefreshToken}, 401, commerce.EInvalidToken},
			{"reset request without email", "auth.requestPasswordReset", e.API, map[string]any{}, 400, commerce.EValidation},
			{"reset request without a token", "auth.requestPasswordReset", "", map[string]any{"email": "ada@example.com"}, 401, commerce.EInvalidToken},
			{"reset without a token", "auth.resetPassword", "", map[string]any{"token": "x", "password": pw}, 401, commerce.EInvalidToken},
			{"unknown field", "auth.login", e.API, map[string]any{"email": "ada@example.com", "password": pw, "remember": true}, 400, commerce.EValidation},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.Post(t, av1+tc.op, tc.token, tc.body).Expect(t, tc.status, tc.code)
				noSecrets(t, "answer", string(r.Raw), pw)
			})
		}

		// Rotation: each refresh spends the token and gives a new pair.
		r := e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s.RefreshToken}).Must(t)
		var s2 sessionView
		if err := json.Unmarshal(r.Raw, &s2); err != nil || s2.RefreshToken == "" || s2.RefreshToken == s.RefreshToken || s2.AccessToken == "" || s2.Customer.ID != ada.ID {
			t.Fatalf("refreshed: %s", r.Raw)
		}
		r = e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s2.RefreshToken}).Must(t)
		var s3 sessionView
		_ = json.Unmarshal(r.Raw, &s3)
		// Reuse of a spent token ends the whole sign-in: the newest token
		// stops working too.
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s3.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)

		// Another sign-in is not touched by that, and logout ends it.
		other := e.login(t, "ada@example.com", pw)
		third := e.login(t, "ada@example.com", pw)
		e.Post(t, av1+"auth.logout", e.API, map[string]any{"refreshToken": other.RefreshToken}).Must(t)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": other.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)
		e.Post(t, av1+"auth.logout", e.API, map[string]any{"refreshToken": other.RefreshToken}).Must(t) // again: nothing left
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": third.RefreshToken}).Must(t)

		// Expiry: a refresh token is good for 30 days.
		fourth := e.login(t, "ada@example.com", pw)
		e.clock.Add(30*24*time.Hour + time.Second)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": fourth.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)

		// A removed customer's refresh token stops working.
		e.clock.Add(-30*24*time.Hour - time.Second)
		fifth := e.login(t, "ada@example.com", pw)
		e.Post(t, cv1+"customer.remove", fifth.AccessToken, nil).Must(t)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": fifth.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)
		e.Post(t, cv1+"customer.info", fifth.AccessToken, nil).Expect(t, 404, commerce.ECustomerNotFound)
	})
}

func TestGuestCartAdoption(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ada := e.register(t, "ada@example.com", pw)
		e.register(t, "bob@example.com", pw2)
		bob := e.login(t, "bob@example.com", pw2)
		cartOf := func(token string) string {
			var c struct {
				ID string `json:"id"`
			}
			e.Post(t, "/cart/v1/cart.create", token, map[string]any{}).Must(t).Decode(t, "cart", &c)
			return c.ID
		}
		guest, bobs := cartOf(e.API), cartOf(bob.AccessToken)
		for _, id := range []string{guest, bobs, "no-such-cart", guest} {
			e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": pw, "cartId": id}).Must(t)
		}
		s := e.login(t, "ada@example.com", pw)
		var c struct {
			CustomerID string `json:"customerId"`
		}
		e.Post(t, "/cart/v1/cart.info", s.AccessToken, map[string]any{"cartId": guest}).Must(t).Decode(t, "cart", &c)
		if c.CustomerID != ada.ID {
			t.Errorf("adopted cart's customerId %q, want %q", c.CustomerID, ada.ID)
		}
		// Now it is hers: the storefront token no longer sees it.
		e.Post(t, "/cart/v1/cart.info", e.API, map[string]any{"cartId": guest}).Expect(t, 404, commerce.ECartNotFound)
		// Bob's cart was not taken.
		e.Post(t, "/cart/v1/cart.info", s.AccessToken, map[string]any{"cartId": bobs}).Expect(t, 404, commerce.ECartNotFound)
		e.Post(t, "/cart/v1/cart.info", bob.AccessToken, map[string]any{"cartId": bobs}).Must(t)
		// The adoption is a change of the cart: one CARTS UPDATE, without
		// the login's password.
		r := e.Post(t, "/event/v1/event.list", e.Admin, map[string]any{"channel": "CARTS", "type": "UPDATE", "limit": 100}).Must(t)
		var evs []struct {
			Payload struct {
				Operation string            `json:"operation"`
				Data      map[string]string `json:"data"`
				New       struct {
					ID         string `json:"id"`
					CustomerID string `json:"customerId"`
				} `json:"new"`
			} `json:"payload"`
		}
		r.Decode(t, "data", &evs)
		if len(evs) != 1 || evs[0].Payload.Operation != "auth.login" || evs[0].Payload.Data["cartId"] != guest ||
			len(evs[0].Payload.Data) != 1 || evs[0].Payload.New.ID != guest || evs[0].Payload.New.CustomerID != ada.ID {
			t.Errorf("CARTS UPDATE events: %s", r.Raw)
		}
		noSecrets(t, "CARTS events", string(r.Raw), pw)
	})
}

func TestPasswordReset(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ada := e.register(t, "ada@example.com", pw)
		s := e.login(t, "ada@example.com", pw)
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "nobody@example.com"}).Must(t)
		if evs := e.events(t, "PASSWORD_RESET"); len(evs) != 0 {
			t.Fatalf("an unknown email got a reset: %+v", evs)
		}
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "Ada@Example.com"}).Must(t)
		evs := e.events(t, "PASSWORD_RESET")
		if len(evs) != 1 {
			t.Fatalf("PASSWORD_RESET events: %+v", evs)
		}
		var p struct {
			CustomerID string    `json:"customerId"`
			Email      string    `json:"email"`
			Token      string    `json:"token"`
			ExpiresAt  time.Time `json:"expiresAt"`
		}
		if err := json.Unmarshal(evs[0].Payload, &p); err != nil || p.CustomerID != ada.ID || p.Email != "ada@example.com" ||
			len(p.Token) < 22 || p.ExpiresAt.Sub(e.clock.Now()) > time.Hour || p.ExpiresAt.Sub(e.clock.Now()) < 59*time.Minute {
			t.Fatalf("payload %s", evs[0].Payload)
		}
		for _, tc := range []struct {
			name, token, password string
			status                int
			code                  string
		}{
			{"unknown token", "nope", pw2, 400, commerce.EInvalidResetToken},
			{"no token", "", pw2, 400, commerce.EInvalidResetToken},
			{"weak password (token kept)", p.Token, "short", 400, commerce.EValidation},
			{"password is the email", p.Token, "ADA@example.com", 400, commerce.EValidation},
			{"common password", p.Token, "iloveyou123", 400, commerce.EValidation},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": tc.token, "password": tc.password}).Expect(t, tc.status, tc.code)
			})
		}
		e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": p.Token, "password": pw2}).Must(t)
		// Once only; the old sign-in is over; the new password works.
		e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": p.Token, "password": "yet another passphrase"}).Expect(t, 400, commerce.EInvalidResetToken)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s.RefreshToken}).Expect(t, 401, commerce.EInvalidToken)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": pw}).Expect(t, 401, commerce.EInvalidCredentials)
		e.login(t, "ada@example.com", pw2)

		// A token older than an hour is refused.
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "ada@example.com"}).Must(t)
		evs = e.events(t, "PASSWORD_RESET")
		_ = json.Unmarshal(evs[len(evs)-1].Payload, &p)
		e.clock.Add(time.Hour + time.Second)
		e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": p.Token, "password": "yet another passphrase"}).Expect(t, 400, commerce.EInvalidResetToken)
		e.login(t, "ada@example.com", pw2)
	})
}

func TestLockout(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		e.register(t, "ada@example.com", pw)
		for i := range 5 {
			e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "wrong password " + string(rune('a'+i))}).Expect(t, 401, commerce.EInvalidCredentials)
		}
		// Locked, even with the right password; the answer says for how long.
		r := e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ADA@example.com", "password": pw}).Expect(t, 429, commerce.ETooManyAttempts)
		var d struct {
			RetryAfter int `json:"retryAfter"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil || d.RetryAfter < 890 || d.RetryAfter > 900 {
			t.Errorf("data %s", r.Data)
		}
		// Other emails are not locked; unknown emails count too.
		for range 5 {
			e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ghost@example.com", "password": pw}).Expect(t, 401, commerce.EInvalidCredentials)
		}
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ghost@example.com", "password": pw}).Expect(t, 429, commerce.ETooManyAttempts)
		// Until the window passes.
		e.clock.Add(10 * time.Minute)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": pw}).Expect(t, 429, commerce.ETooManyAttempts)
		e.clock.Add(5*time.Minute + time.Second)
		e.login(t, "ada@example.com", pw)
		// A success forgets the failures.
		for range 4 {
			e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "wrong password"}).Expect(t, 401, commerce.EInvalidCredentials)
		}
		e.login(t, "ada@example.com", pw)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "wrong password"}).Expect(t, 401, commerce.EInvalidCredentials)
		e.login(t, "ada@example.com", pw)
	})
}

// TestCurrentPasswordLockout: wrong currentPassword guesses of
// customer.update count in the email's login failures: after 5 (of either
// kind) both answer 429 too_many_attempts {retryAfter}, even with the right
// password, until the window passes; a right one forgets them.
func TestCurrentPasswordLockout(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		e.register(t, "ada@example.com", pw)
		tok := e.login(t, "ada@example.com", pw).AccessToken
		change := func(current, next string) apitest.Response {
			return e.Post(t, cv1+"customer.update", tok, map[string]any{"password": next, "currentPassword": current})
		}
		// Three wrong guesses here and two wrong logins: five failures.
		for i := range 3 {
			change("wrong password "+string(rune('a'+i)), pw2).Expect(t, 401, commerce.EInvalidCredentials)
		}
		for range 2 {
			e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "wrong password"}).Expect(t, 401, commerce.EInvalidCredentials)
		}
		// A bad new password or no current password is no guess: not counted, not refused.
		change(pw, "short").Expect(t, 400, commerce.EValidation)
		e.Post(t, cv1+"customer.update", tok, map[string]any{"password": pw2}).Expect(t, 401, commerce.EInvalidCredentials)
		// Locked: the right current password and the right login alike.
		r := change(pw, pw2).Expect(t, 429, commerce.ETooManyAttempts)
		var d struct {
			RetryAfter int `json:"retryAfter"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil || d.RetryAfter < 890 || d.RetryAfter > 900 {
			t.Errorf("data %s", r.Data)
		}
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": pw}).Expect(t, 429, commerce.ETooManyAttempts)
		// The password did not change.
		e.clock.Add(15*time.Minute + time.Second)
		e.login(t, "ada@example.com", pw)
		// After the window: four wrong guesses, then the right one changes
		// it and forgets them (four more wrong logins are still judged).
		for range 4 {
			change("wrong password", pw2).Expect(t, 401, commerce.EInvalidCredentials)
		}
		change(pw, pw2).Must(t)
		for range 4 {
			e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ada@example.com", "password": "wrong password"}).Expect(t, 401, commerce.EInvalidCredentials)
		}
		e.login(t, "ada@example.com", pw2)
	})
}

// TestLockoutConcurrent sends 20 wrong logins for one email at once, split
// over two service instances with connection pools of their own on one
// database (two processes, as far as the database can tell): exactly 5 are
// judged, the other 15 are too_many_attempts.
func TestLockoutConcurrent(t *testing.T) {
	for _, st := range []string{"sqlite", "postgres"} {
		t.Run(st, func(t *testing.T) {
			var db1, db2 *sqldb.DB
			if st == "postgres" {
				url := testdb.PostgresURL(t)
				db1, db2 = testdb.PostgresAt(t, url), testdb.PostgresAt(t, url)
			} else {
				path := t.TempDir() + "/c.db"
				db1, db2 = testdb.SQLiteAt(t, path), testdb.SQLiteAt(t, path)
			}
			e1, e2 := newEnv(t, db1), apitest.New(t, db2)
			e1.register(t, "ada@example.com", pw)
			codes := make([]string, 20)
			var wg sync.WaitGroup
			for i := range codes {
				wg.Go(func() {
					s := e1.Server
					if i%2 == 1 {
						s = e2
					}
					r := s.Post(t, av1+"auth.login", s.API, map[string]any{"email": "ada@example.com", "password": "wrong password!"})
					codes[i] = r.Error
				})
			}
			wg.Wait()
			sort.Strings(codes)
			n := map[string]int{}
			for _, c := range codes {
				n[c]++
			}
			if n[commerce.EInvalidCredentials] != 5 || n[commerce.ETooManyAttempts] != 15 {
				t.Errorf("answers %v, want 5 invalid_credentials and 15 too_many_attempts", n)
			}
		})
	}
}

// TestSecurity measures an unknown email against a wrong password, and
// checks that no answer, event or log line shows a hash, a password or a
// token.
func TestSecurity(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		e.register(t, "ada@example.com", pw)
		timeLogin := func(email string) time.Duration {
			var ds []time.Duration
			for i := range 4 {
				e.clock.Add(16 * time.Minute) // out of the lock-out's way
				start := time.Now()
				e.Post(t, av1+"auth.login", e.API, map[string]any{"email": email, "password": "wrong password " + string(rune('a'+i))}).Expect(t, 401, commerce.EInvalidCredentials)
				ds = append(ds, time.Since(start))
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			return ds[len(ds)/2]
		}
		timeLogin("ada@example.com") // warm up
		timeLogin("nobody@example.com")
		known, unknown := timeLogin("ada@example.com"), timeLogin("nobody@example.com")
		t.Logf("median login time: wrong password %v, unknown email %v", known, unknown)
		if ratio := float64(max(known, unknown)) / float64(min(known, unknown)); ratio > 5 {
			t.Errorf("wrong password %v vs unknown email %v: a factor of %.1f", known, unknown, ratio)
		}

		// A full round: every answer, event and log line is free of secrets.
		var secrets []string
		var answers []string
		keep := func(raw []byte) { answers = append(answers, string(raw)) }
		s := e.login(t, "ada@example.com", pw)
		secrets = append(secrets, pw, s.RefreshToken, s.AccessToken)
		r := e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s.RefreshToken}).Must(t)
		var s2 sessionView
		_ = json.Unmarshal(r.Raw, &s2)
		secrets = append(secrets, s2.RefreshToken, s2.AccessToken)
		keep(e.Post(t, cv1+"customer.info", s2.AccessToken, nil).Must(t).Raw)
		keep(e.Post(t, cv1+"customer.update", s2.AccessToken, map[string]any{"password": pw2, "currentPassword": pw}).Must(t).Raw)
		keep(e.Post(t, cv1+"customer.list", e.Admin, map[string]any{}).Must(t).Raw)
		keep(e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "ada@example.com"}).Must(t).Raw)
		evs := e.events(t, "PASSWORD_RESET")
		var p struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(evs[0].Payload, &p)
		const pw3 = "third time lucky, surely"
		keep(e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": p.Token, "password": pw3}).Must(t).Raw)
		keep(e.Post(t, av1+"auth.resetPassword", e.API, map[string]any{"token": p.Token, "password": pw3}).Raw)
		keep(e.Post(t, cv1+"customer.register", e.API, map[string]any{"email": "x@example.com", "password": "qwertyuiop", "firstName": "X"}).Raw)
		secrets = append(secrets, pw2, pw3, p.Token)
		for _, a := range answers {
			noSecrets(t, "answer", a, secrets...)
		}
		all := e.Post(t, "/event/v1/event.list", e.Admin, map[string]any{"channel": "CUSTOMERS", "limit": 1000}).Must(t)
		// The reset token is in PASSWORD_RESET on purpose (for the mailer);
		// nothing else is anywhere.
		noSecrets(t, "events", strings.ReplaceAll(string(all.Raw), p.Token, ""), secrets...)
		time.Sleep(50 * time.Millisecond) // the request log of the last answer
		log := e.log.String()
		if !strings.Contains(log, "auth.login") {
			t.Fatalf("the log capture holds no request: %.300s", log)
		}
		noSecrets(t, "log", log, append(secrets, "qwertyuiop")...)
	})
}

// TestSweep: the running service deletes refresh tokens once expired
// (spent ones too, kept until then to recognise their reuse), reset
// tokens once expired, and the login failures of emails whose last
// failure left the 15-minute window; what is live stays.
func TestSweep(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db, func(o *app.Options) { o.CustomerSweep = 20 * time.Millisecond })
		e.register(t, "ada@example.com", pw)
		s := e.login(t, "ada@example.com", pw)
		e.Post(t, av1+"auth.refresh", e.API, map[string]any{"refreshToken": s.RefreshToken}).Must(t) // one spent, one live
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "ada@example.com"}).Must(t)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "ghost@example.com", "password": pw}).Expect(t, 401, commerce.EInvalidCredentials)
		rows := func(table string) func() int {
			return func() int {
				var n int
				if err := db.QueryRow(t.Context(), `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		time.Sleep(100 * time.Millisecond) // several sweeps: nothing is due
		for table, want := range map[string]int{"refresh_tokens": 2, "password_resets": 1, "login_failures": 1} {
			if n := rows(table)(); n != want {
				t.Fatalf("%s: %d rows before anything expired, want %d", table, n, want)
			}
		}
		e.clock.Add(16 * time.Minute)
		testdb.Eventually(t, "login failures after 16 minutes", 0, rows("login_failures"))
		if n := rows("refresh_tokens")(); n != 2 {
			t.Fatalf("refresh tokens after 16 minutes: %d, want 2", n)
		}
		e.clock.Add(time.Hour)
		testdb.Eventually(t, "reset tokens after an hour", 0, rows("password_resets"))
		e.clock.Add(30 * 24 * time.Hour)
		testdb.Eventually(t, "refresh tokens after 30 days", 0, rows("refresh_tokens"))
	})
}
