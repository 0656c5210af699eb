package admin_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/admin"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

// pages are the admin pages a test visits; every one needs a session.
var pages = []string{"/admin/", "/admin/products", "/admin/products/new", "/admin/categories", "/admin/promotions",
	"/admin/promotions/new", "/admin/taxes", "/admin/shipping", "/admin/events", "/admin/orders", "/admin/customers", "/admin/webhooks"}

func TestPagesNeedASession(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		for _, p := range append(pages, "/admin/products/x", "/admin/categories/x", "/admin/promotions/x", "/admin/taxes/x", "/admin/orders/x", "/admin/customers/x", "/admin/webhooks/x") {
			got := b.get(p)
			if got.Status != http.StatusSeeOther || !strings.HasPrefix(got.Location, "/admin/signin") {
				t.Errorf("GET %s without a session: %d %q, want 303 to the sign-in page", p, got.Status, got.Location)
			}
		}
		// A forged cookie is no session either.
		u, _ := url.Parse(e.URL + "/admin/")
		b.c.Jar.SetCookies(u, []*http.Cookie{{Name: admin.SessionCookie, Value: "forged", Path: "/admin/"}})
		if got := b.get("/admin/products"); got.Status != http.StatusSeeOther {
			t.Errorf("forged session: %d, want 303", got.Status)
		}
		if got := b.post("/admin/categories", url.Values{"title": {"X"}, "slug": {"x"}}); got.Status != http.StatusSeeOther {
			t.Errorf("POST without a session: %d, want 303", got.Status)
		}
		if got := b.get("/admin/products?title=a"); got.Location != "/admin/signin?next=%2Fadmin%2Fproducts%3Ftitle%3Da" {
			t.Errorf("redirect %q does not come back to the page", got.Location)
		}
		b.mustSignIn()
		for _, p := range pages {
			if got := b.get(p); got.Status != http.StatusOK {
				t.Errorf("GET %s signed in: %d\n%s", p, got.Status, got.Body)
			}
		}
	})
}

func TestCSRF(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		form := url.Values{"title": {"Forged"}, "slug": {"forged"}, "parent": {"ROOT"}}
		if got := b.post("/admin/categories", form); got.Status != http.StatusForbidden {
			t.Fatalf("form without the token: %d, want 403", got.Status)
		}
		form.Set("csrf", "wrong"+b.csrf("/admin/categories"))
		if got := b.post("/admin/categories", form); got.Status != http.StatusForbidden {
			t.Fatalf("form with a wrong token: %d, want 403", got.Status)
		}
		// Another session's token is refused too: tokens are per session.
		other := e.browser(t)
		other.mustSignIn()
		form.Set("csrf", other.csrf("/admin/categories"))
		if got := b.post("/admin/categories", form); got.Status != http.StatusForbidden {
			t.Fatalf("form with another session's token: %d, want 403", got.Status)
		}
		res := e.Get(t, "/catalog/v1/category.list?slug=forged", e.Admin).Must(t)
		if strings.Contains(string(res.Raw), "Forged") {
			t.Fatalf("a refused form created the category: %s", res.Raw)
		}
		form.Set("csrf", b.csrf("/admin/categories"))
		if got := b.post("/admin/categories", form); got.Status != http.StatusSeeOther {
			t.Fatalf("form with the token: %d, want 303\n%s", got.Status, got.Body)
		}
		// The sign-in form is protected too.
		fresh := e.browser(t)
		if got := fresh.post("/admin/signin", url.Values{"email": {staffEmail}, "password": {staffPassword}}); got.Status != http.StatusForbidden {
			t.Fatalf("sign-in without the token: %d, want 403", got.Status)
		}
		// Sign-out is a form: without the token it is refused and the session lives.
		if got := b.post("/admin/signout", nil); got.Status != http.StatusForbidden {
			t.Fatalf("sign-out without the token: %d, want 403", got.Status)
		}
		if got := b.get("/admin/"); got.Status != http.StatusOK {
			t.Fatalf("session ended by a forged sign-out: %d", got.Status)
		}
	})
}

func TestSessionCookieIsNoAPIToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		sid := b.cookie(admin.SessionCookie)
		if sid == "" {
			t.Fatal("no session cookie")
		}
		body := `{"title":"Via cookie","slug":"via-cookie","parent":"ROOT"}`
		for name, set := range map[string]func(*http.Request){
			"bearer": func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+sid) },
			"cookie": func(r *http.Request) { r.AddCookie(&http.Cookie{Name: admin.SessionCookie, Value: sid}) },
		} {
			req, _ := http.NewRequest(http.MethodPost, e.URL+"/catalog/v1/category.create", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			set(req)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Error string `json:"error"`
			}
			_ = json.NewDecoder(res.Body).Decode(&env)
			res.Body.Close()
			if res.StatusCode != http.StatusUnauthorized || env.Error != "invalid_token" {
				t.Errorf("%s: %d %q, want 401 invalid_token", name, res.StatusCode, env.Error)
			}
		}
	})
}

func TestLockOut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		for i := range staff.MaxFailures {
			if got := b.signIn(staffEmail, "wrong password "+string(rune('a'+i))); got.Status != http.StatusUnauthorized ||
				!strings.Contains(got.Body, "invalid_credentials") {
				t.Fatalf("failure %d: %d, want 401 invalid_credentials", i+1, got.Status)
			}
		}
		got := b.signIn(staffEmail, staffPassword)
		if got.Status != http.StatusTooManyRequests || !strings.Contains(got.Body, `data-code="too_many_attempts"`) ||
			!strings.Contains(got.Body, "Too many failed sign-ins for this email. Try again in 15 minutes.") {
			t.Fatalf("right password after 5 failures: %d, want 429 too_many_attempts\n%s", got.Status, got.Body)
		}
		if !strings.Contains(got.Body, `value="`+staffEmail+`"`) {
			t.Error("the sign-in form lost the email typed")
		}
		// Another email is not locked; an unknown one counts as well.
		for range staff.MaxFailures {
			b.signIn("nobody@example.com", "whatever-password")
		}
		if got := b.signIn("nobody@example.com", "whatever-password"); got.Status != http.StatusTooManyRequests {
			t.Fatalf("unknown email after 5 failures: %d, want 429", got.Status)
		}
		e.clock.Add(staff.Window + time.Second)
		b.mustSignIn()
	})
}

// TestLockOutParallel: parallel wrong guesses are counted one after the
// other, so no more than MaxFailures passwords are ever checked.
func TestLockOutParallel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[string]int{}
		for i := range 16 {
			wg.Go(func() {
				_, _, _, err := e.App.Staff.SignIn(t.Context(), staffEmail, "guess "+string(rune('a'+i)), "192.0.2.9")
				mu.Lock()
				codes[errCode(err)]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if codes[commerce.EInvalidCredentials] != staff.MaxFailures || codes[commerce.ETooManyAttempts] != 16-staff.MaxFailures {
			t.Fatalf("answers %v, want %d invalid_credentials and the rest too_many_attempts", codes, staff.MaxFailures)
		}
	})
}

func errCode(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.IndexByte(s, ':'); i > 0 {
		return s[:i]
	}
	return s
}

func TestSignOut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		sid := b.cookie(admin.SessionCookie)
		tok := b.csrf("/admin/")
		if got := b.post("/admin/signout", url.Values{"csrf": {tok}}); got.Status != http.StatusSeeOther {
			t.Fatalf("sign out: %d", got.Status)
		}
		// The old cookie no longer opens a page, even when replayed.
		replay := e.browser(t)
		u, _ := url.Parse(e.URL + "/admin/")
		replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: admin.SessionCookie, Value: sid, Path: "/admin/"}})
		if got := replay.get("/admin/products"); got.Status != http.StatusSeeOther {
			t.Fatalf("signed-out session: %d, want 303", got.Status)
		}
		// Sessions expire.
		b.mustSignIn()
		e.clock.Add(staff.SessionTTL + time.Minute)
		if got := b.get("/admin/"); got.Status != http.StatusSeeOther {
			t.Fatalf("expired session: %d, want 303", got.Status)
		}
	})
}

func TestFormsKeepValuesAndShowAPIErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		form := url.Values{"csrf": {b.csrf("/admin/products/new")}, "sku": {"sku-typed"}, "title": {"Title typed <b>"},
			"status": {"ONLINE"}, "stockStatus": {"0"}, "price_amount": {"12.345"}, "price_currency": {"USD"}}
		got := b.post("/admin/products/new", form)
		// The API's answer to this product: price_invalid (status 400).
		res := e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "sku-typed", "title": "Title typed <b>",
			"status": "ONLINE", "stockStatus": 0, "categories": []string{}, "prices": []any{map[string]any{"amount": json.Number("12.345"), "currency": "USD"}}})
		if res.OK || got.Status != res.Status || !strings.Contains(got.Body, res.Error) {
			t.Fatalf("admin answered %d, API %d %s\n%s", got.Status, res.Status, res.Error, got.Body)
		}
		for _, want := range []string{`value="sku-typed"`, `value="Title typed &lt;b&gt;"`, `value="12.345"`} {
			if !strings.Contains(got.Body, want) {
				t.Errorf("the form lost %s", want)
			}
		}
		// A missing title: the API's validation problems are listed.
		form.Set("title", "")
		form.Set("price_amount", "12.34")
		got = b.post("/admin/products/new", form)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "validation_error") || !strings.Contains(got.Body, "title") {
			t.Fatalf("no title: %d\n%s", got.Status, got.Body)
		}
	})
}

func TestStaffActionsInEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		form := url.Values{"csrf": {b.csrf("/admin/categories")}, "title": {"Fridges"}, "slug": {"fridges"}, "parent": {"ROOT"}}
		if got := b.post("/admin/categories", form); got.Status != http.StatusSeeOther {
			t.Fatalf("create category: %d\n%s", got.Status, got.Body)
		}
		// And one through the API, which has no actor.
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Ovens", "slug": "ovens", "parent": "ROOT"}).Must(t)
		res := e.Get(t, "/event/v1/event.list?channel=CATEGORIES&type=CREATE", e.Admin).Must(t)
		var evs []struct {
			Actor   string          `json:"actor"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(res.Data, &evs); err != nil || len(evs) != 2 {
			t.Fatalf("events: %v %s", err, res.Raw)
		}
		if evs[0].Actor != "staff:"+e.staff.ID || !strings.Contains(string(evs[0].Payload), "Fridges") {
			t.Errorf("admin's event: actor %q, want staff:%s", evs[0].Actor, e.staff.ID)
		}
		if evs[1].Actor != "" || strings.Contains(string(res.Raw[strings.LastIndex(string(res.Raw), "Ovens")-200:]), `"actor"`) {
			t.Errorf("API's event has an actor: %q", evs[1].Actor)
		}
		if got := b.get("/admin/events?channel=CATEGORIES"); !strings.Contains(got.Body, "staff:"+e.staff.ID) {
			t.Error("the events page does not show the staff id")
		}
	})
}

func TestVendoredHTMX(t *testing.T) {
	b, err := os.ReadFile("static/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != admin.HTMXSHA256 {
		t.Fatalf("static/htmx.min.js has sha256 %s, want %s (htmx.org@%s dist/htmx.min.js)", got, admin.HTMXSHA256, admin.HTMXVersion)
	}
	if !strings.Contains(string(b), "version:\""+admin.HTMXVersion+"\"") {
		t.Errorf("static/htmx.min.js does not say version %s", admin.HTMXVersion)
	}
}

// TestSessionCookieAttributes: the cookies are HttpOnly, SameSite=Lax and
// limited to /admin/, and Secure when the request came over TLS, to the
// service or to a proxy in front of it that says so.
func TestSessionCookieAttributes(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t))
	h := e.App.Handler()
	for _, tc := range []struct {
		name   string
		url    string
		header map[string]string
		secure bool
	}{
		{"plain HTTP", "http://shop.example/admin/signin", nil, false},
		{"TLS", "https://shop.example/admin/signin", nil, true},
		{"X-Forwarded-Proto", "http://shop.example/admin/signin", map[string]string{"X-Forwarded-Proto": "https"}, true},
		{"Forwarded", "http://shop.example/admin/signin", map[string]string{"Forwarded": `for=192.0.2.1;proto="https"`}, true},
		{"proxy over HTTP", "http://shop.example/admin/signin", map[string]string{"X-Forwarded-Proto": "http"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			send := func(req *http.Request) *httptest.ResponseRecorder {
				for k, v := range tc.header {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			check := func(c *http.Cookie) {
				t.Helper()
				if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tc.secure || c.Path != "/admin/" {
					t.Errorf("cookie %s: HttpOnly %v, SameSite %v, Secure %v, Path %q; want true, Lax, %v, /admin/",
						c.Name, c.HttpOnly, c.SameSite, c.Secure, c.Path, tc.secure)
				}
			}
			page := send(httptest.NewRequest(http.MethodGet, tc.url, nil))
			m := csrfRE.FindStringSubmatch(page.Body.String())
			cookies := page.Result().Cookies()
			if m == nil || len(cookies) != 1 {
				t.Fatalf("sign-in page: %d cookies, token %v", len(cookies), m)
			}
			check(cookies[0])
			form := url.Values{"csrf": {m[1]}, "email": {staffEmail}, "password": {staffPassword}}
			req := httptest.NewRequest(http.MethodPost, tc.url, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(cookies[0])
			res := send(req)
			if res.Code != http.StatusSeeOther {
				t.Fatalf("sign in: %d\n%s", res.Code, res.Body)
			}
			var session *http.Cookie
			for _, c := range res.Result().Cookies() {
				check(c)
				if c.Name == admin.SessionCookie {
					session = c
				}
			}
			if session == nil || session.Value == "" || session.MaxAge <= 0 {
				t.Fatalf("no session cookie: %v", res.Result().Cookies())
			}
		})
	}
}

// TestTablesPageAndFilterOnTheServer: a table shows one page of rows, the
// filters are the API's (product.list's), and the pager links carry the
// filters.
func TestTablesPageAndFilterOnTheServer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		var cat struct{ ID string }
		e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Lamps", "slug": "lamps", "parent": "ROOT"}).
			Must(t).Decode(t, "category", &cat)
		for i := range 12 {
			status := "ONLINE"
			if i%3 == 0 {
				status = "DRAFT"
			}
			e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": fmt.Sprintf("P-%02d", i), "title": fmt.Sprintf("Lamp %02d", i),
				"status": status, "stockStatus": 0, "categories": []string{cat.ID}}).Must(t)
		}
		b := e.browser(t)
		b.mustSignIn()
		rows := func(p page) int { return strings.Count(p.Body, `data-label="SKU"><a href="/admin/products/`) }
		// 8 ONLINE products (DRAFT ones only when asked for), 5 a page.
		first := b.get("/admin/products?title=Lamp&limit=5")
		if n := rows(first); n != 5 || !strings.Contains(first.Body, `rel="next"`) || strings.Contains(first.Body, `rel="prev"`) ||
			!strings.Contains(first.Body, "skip=5") || !strings.Contains(first.Body, "title=Lamp") {
			t.Fatalf("first page: %d rows, want 5 and a link to the next page keeping the filter\n%s", n, first.Body)
		}
		second := b.get("/admin/products?title=Lamp&limit=5&skip=5")
		if n := rows(second); n != 3 || strings.Contains(second.Body, `rel="next"`) || !strings.Contains(second.Body, `rel="prev"`) {
			t.Fatalf("second page: %d rows, want 3 and only a link back\n%s", n, second.Body)
		}
		drafts := b.get("/admin/products?status=DRAFT")
		if n := rows(drafts); n != 4 || strings.Count(drafts.Body, `data-label="Status">DRAFT</td>`) != 4 {
			t.Errorf("status=DRAFT: %d rows, want the 4 drafts", n)
		}
		if one := b.get("/admin/products?sku=P-07"); rows(one) != 1 || !strings.Contains(one.Body, "Lamp 07") {
			t.Errorf("sku=P-07: %d rows", rows(one))
		}
	})
}
