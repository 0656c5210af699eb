package customer_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// tokenCall posts a form to /oauth/token, with Basic credentials when id
// is not empty, and returns the status, the JSON body and the headers.
func tokenCall(t *testing.T, e *env, method string, form url.Values, id, secret string) (int, map[string]any, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, e.URL+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id != "" {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("not JSON (%d): %s", res.StatusCode, raw)
	}
	return res.StatusCode, body, res.Header
}

func TestOAuthClients(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ada := e.register(t, "ada@example.com", pw)
		adaTok := e.login(t, "ada@example.com", pw).AccessToken

		// Only admin tokens manage clients.
		for _, tok := range []string{e.API, adaTok} {
			e.Post(t, cv1+"client.create", tok, map[string]any{"name": "erp", "scope": "api"}).Expect(t, 403, commerce.EForbidden)
			e.Post(t, cv1+"client.list", tok, nil).Expect(t, 403, commerce.EForbidden)
			e.Post(t, cv1+"client.remove", tok, map[string]any{"id": "x"}).Expect(t, 403, commerce.EForbidden)
		}
		for _, tc := range []struct {
			name string
			body map[string]any
			want string
		}{
			{"no name", map[string]any{"scope": "api"}, "name: required"},
			{"bad scope", map[string]any{"name": "erp", "scope": "root"}, "scope: must be"},
			{"no scope", map[string]any{"name": "erp"}, "scope: must be"},
			{"id given", map[string]any{"name": "erp", "scope": "api", "id": "mine"}, "id"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.Post(t, cv1+"client.create", e.Admin, tc.body).Expect(t, 400, commerce.EValidation)
				if !strings.Contains(string(r.Data), tc.want) {
					t.Errorf("data %s, want %s", r.Data, tc.want)
				}
			})
		}
		create := func(name, scope string) (string, string) {
			r := e.Post(t, cv1+"client.create", e.Admin, map[string]any{"name": name, "scope": scope}).Must(t)
			var c struct {
				ID, Name, Scope, CreatedAt string
			}
			r.Decode(t, "client", &c)
			var secret string
			r.Decode(t, "clientSecret", &secret)
			if c.ID == "" || c.Name != name || c.Scope != scope || c.CreatedAt == "" || len(secret) < 22 {
				t.Fatalf("client.create: %s", r.Raw)
			}
			noSecrets(t, "client.create", strings.ReplaceAll(string(r.Raw), secret, ""), secret)
			return c.ID, secret
		}
		erpID, erpSecret := create("erp", "admin")
		shopID, shopSecret := create("shop", "api")
		list := e.Post(t, cv1+"client.list", e.Admin, nil).Must(t)
		if !strings.Contains(string(list.Raw), erpID) || !strings.Contains(string(list.Raw), shopID) {
			t.Errorf("client.list: %s", list.Raw)
		}
		noSecrets(t, "client.list", string(list.Raw), erpSecret, shopSecret, commercekitHash(erpSecret))

		grant := url.Values{"grant_type": {"client_credentials"}}
		withForm := func(id, secret string) url.Values {
			return url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
		}
		for _, tc := range []struct {
			name       string
			method     string
			form       url.Values
			id, secret string // Basic
			status     int
			err        string
			scope      string // of the token issued
		}{
			{"basic", "POST", grant, erpID, erpSecret, 200, "", "admin"},
			{"form fields", "POST", withForm(shopID, shopSecret), "", "", 200, "", "api"},
			{"own scope asked", "POST", url.Values{"grant_type": {"client_credentials"}, "scope": {"api"}}, shopID, shopSecret, 200, "", "api"},
			{"other scope asked", "POST", url.Values{"grant_type": {"client_credentials"}, "scope": {"admin"}}, shopID, shopSecret, 400, "invalid_scope", ""},
			{"wrong secret", "POST", grant, erpID, shopSecret, 401, "invalid_client", ""},
			{"wrong secret in the form", "POST", withForm(erpID, "nope"), "", "", 401, "invalid_client", ""},
			{"unknown client", "POST", grant, "nobody", erpSecret, 401, "invalid_client", ""},
			{"no credentials", "POST", grant, "", "", 401, "invalid_client", ""},
			{"both ways", "POST", withForm(erpID, erpSecret), erpID, erpSecret, 400, "invalid_request", ""},
			{"password grant", "POST", url.Values{"grant_type": {"password"}}, erpID, erpSecret, 400, "unsupported_grant_type", ""},
			{"no grant type", "POST", url.Values{}, erpID, erpSecret, 400, "invalid_request", ""},
			{"GET", "GET", nil, erpID, erpSecret, 405, "invalid_request", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body, h := tokenCall(t, e, tc.method, tc.form, tc.id, tc.secret)
				if h.Get("Cache-Control") != "no-store" {
					t.Errorf("Cache-Control %q", h.Get("Cache-Control"))
				}
				if status != tc.status || (tc.err != "" && body["error"] != tc.err) {
					t.Fatalf("got %d %v, want %d %s", status, body, tc.status, tc.err)
				}
				if tc.err != "" {
					if status == 401 && h.Get("WWW-Authenticate") == "" {
						t.Error("401 without WWW-Authenticate")
					}
					return
				}
				tok, _ := body["access_token"].(string)
				if body["token_type"] != "Bearer" || body["expires_in"] != float64(900) || tok == "" {
					t.Fatalf("answer %v", body)
				}
				cl, err := e.Keys.Verify(tok)
				if err != nil || !cl.HasScope(tc.scope) || len(cl.Scopes) != 1 || cl.CustomerID != "" {
					t.Errorf("claims %+v %v", cl, err)
				}
				// The token works on the operations of its scope.
				if tc.scope == "admin" {
					e.Post(t, cv1+"customer.info", tok, map[string]any{"id": ada.ID}).Must(t)
				} else {
					e.Post(t, cv1+"customer.list", tok, nil).Expect(t, 403, commerce.EForbidden)
				}
			})
		}

		e.Post(t, cv1+"client.remove", e.Admin, map[string]any{"id": erpID}).Must(t)
		e.Post(t, cv1+"client.remove", e.Admin, map[string]any{"id": erpID}).Expect(t, 404, commerce.EClientNotFound)
		if status, body, _ := tokenCall(t, e, "POST", grant, erpID, erpSecret); status != 401 || body["error"] != "invalid_client" {
			t.Errorf("a removed client got %d %v", status, body)
		}
		noSecrets(t, "log", e.log.String(), erpSecret, shopSecret)
	})
}

// commercekitHash is how a client secret is stored (its SHA-256 in hex),
// spelled out so the test does not take it from the code under test.
func commercekitHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestSecretsAtRest reads the tables: passwords are argon2id PHC strings
// with OWASP's minimum parameters, refresh tokens, reset tokens and client
// secrets are their SHA-256, none is stored in the clear.
func TestSecretsAtRest(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ada := e.register(t, "ada@example.com", pw)
		s := e.login(t, "ada@example.com", pw)
		r := e.Post(t, cv1+"client.create", e.Admin, map[string]any{"name": "erp", "scope": "api"}).Must(t)
		var secret string
		r.Decode(t, "clientSecret", &secret)
		ctx := t.Context()
		var hash, data string
		if err := db.QueryRow(ctx, `SELECT password_hash, data FROM customers WHERE id = ?`, ada.ID).Scan(&hash, &data); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(hash, pw) || strings.Contains(data, "argon2") {
			t.Errorf("stored password %q, document %s", hash, data)
		}
		var n int
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM refresh_tokens WHERE hash = ?`, commercekitHash(s.RefreshToken)).Scan(&n); err != nil || n != 1 {
			t.Errorf("refresh token by its SHA-256: %d %v", n, err)
		}
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM refresh_tokens WHERE hash = ?`, s.RefreshToken).Scan(&n); err != nil || n != 0 {
			t.Errorf("refresh token in the clear: %d %v", n, err)
		}
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM oauth_clients WHERE secret_hash = ?`, commercekitHash(secret)).Scan(&n); err != nil || n != 1 {
			t.Errorf("client secret by its SHA-256: %d %v", n, err)
		}
		// The reset token the mailer gets is stored as its SHA-256 only.
		e.Post(t, av1+"auth.requestPasswordReset", e.API, map[string]any{"email": "ada@example.com"}).Must(t)
		evs := e.events(t, "PASSWORD_RESET")
		var p struct{ Token string }
		if len(evs) != 1 || json.Unmarshal(evs[0].Payload, &p) != nil || p.Token == "" {
			t.Fatalf("PASSWORD_RESET events: %+v", evs)
		}
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM password_resets WHERE hash = ?`, commercekitHash(p.Token)).Scan(&n); err != nil || n != 1 {
			t.Errorf("reset token by its SHA-256: %d %v", n, err)
		}
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM password_resets WHERE hash = ?`, p.Token).Scan(&n); err != nil || n != 0 {
			t.Errorf("reset token in the clear: %d %v", n, err)
		}
	})
}

// TestOAuthTokenMalformedText: a NUL byte or invalid UTF-8 in the form's
// values (or names, or the Basic credentials) is 400 invalid_request, before
// any store access (PostgreSQL refuses such text: it was 500 server_error).
func TestOAuthTokenMalformedText(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		grant := func(extra ...string) url.Values {
			f := url.Values{"grant_type": {"client_credentials"}}
			for i := 0; i+1 < len(extra); i += 2 {
				f.Set(extra[i], extra[i+1])
			}
			return f
		}
		for _, tc := range []struct {
			name       string
			form       url.Values
			id, secret string // Basic
			want       string // in error_description
		}{
			{"NUL in client_id", grant("client_id", "a\x00", "client_secret", "s"), "", "", "client_id must not contain a NUL byte"},
			{"invalid UTF-8 in client_id", grant("client_id", "a\xff", "client_secret", "s"), "", "", "client_id must be valid UTF-8"},
			{"NUL in client_secret", grant("client_id", "a", "client_secret", "s\x00"), "", "", "client_secret must not contain a NUL byte"},
			{"NUL in grant_type", url.Values{"grant_type": {"client_credentials\x00"}}, "", "", "grant_type must not contain a NUL byte"},
			{"NUL in a parameter name", grant("x\x00", "1", "client_id", "a", "client_secret", "s"), "", "", "a parameter name must not contain a NUL byte"},
			{"NUL in the Basic id", grant(), "a\x00", "s", "client id of HTTP Basic must not contain a NUL byte"},
			{"invalid UTF-8 in the Basic secret", grant(), "a", "s\xff", "client secret of HTTP Basic must be valid UTF-8"},
		} {
			status, body, h := tokenCall(t, e, http.MethodPost, tc.form, tc.id, tc.secret)
			desc, _ := body["error_description"].(string)
			if status != http.StatusBadRequest || body["error"] != "invalid_request" || !strings.Contains(desc, tc.want) || h.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d %v (Cache-Control %q), want 400 invalid_request %q", tc.name, status, body, h.Get("Cache-Control"), tc.want)
			}
		}
	})
}

// TestOAuthTokenMetrics: POST /oauth/token is counted in the request
// metrics as the operations are (service oauth, operation oauth.token, no
// version), by status.
func TestOAuthTokenMetrics(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t))
	var secret string
	var c struct{ ID string }
	r := e.Post(t, cv1+"client.create", e.Admin, map[string]any{"name": "erp", "scope": "api"}).Must(t)
	r.Decode(t, "client", &c)
	r.Decode(t, "clientSecret", &secret)
	grant := url.Values{"grant_type": {"client_credentials"}}
	if st, body, _ := tokenCall(t, e, http.MethodPost, grant, c.ID, secret); st != http.StatusOK {
		t.Fatalf("token: %d %v", st, body)
	}
	for range 2 {
		tokenCall(t, e, http.MethodPost, grant, c.ID, "wrong secret")
	}
	want := []string{
		`commerce_requests_total{operation="oauth.token",service="oauth",status="200",version=""} 1`,
		`commerce_requests_total{operation="oauth.token",service="oauth",status="401",version=""} 2`,
	}
	var m string
	for range 200 { // counted once the answer is sent
		res, err := http.Get(e.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if m = string(b); strings.Contains(m, want[0]) && strings.Contains(m, want[1]) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("metrics lack %q:\n%s", want, m)
}

// TestOAuthTokenTooLarge (issue 27 defect 4): a body over 1 MiB is 413,
// as for every operation, whether its length is announced or not (it was
// 400 "must be application/x-www-form-urlencoded"); a body at the limit is
// read as a form.
func TestOAuthTokenTooLarge(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t))
	form := "grant_type=client_credentials&client_id=a&client_secret=s&pad="
	for _, tc := range []struct {
		name    string
		size    int
		chunked bool
		status  int
		code    string
	}{
		{"announced", rpc.MaxBody + 1, false, http.StatusRequestEntityTooLarge, "invalid_request"},
		{"chunked", rpc.MaxBody + 1, true, http.StatusRequestEntityTooLarge, "invalid_request"},
		{"at the limit", rpc.MaxBody, false, http.StatusUnauthorized, "invalid_client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := form + strings.Repeat("x", tc.size-len(form))
			var rd io.Reader = strings.NewReader(body)
			if tc.chunked {
				rd = io.MultiReader(rd) // no length known: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, e.URL+"/oauth/token", rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var got map[string]any
			if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.status || got["error"] != tc.code || res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("got %d %v (Cache-Control %q), want %d %s", res.StatusCode, got, res.Header.Get("Cache-Control"), tc.status, tc.code)
			}
		})
	}
}
