package admin_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/internal/password"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/apitest"
)

// fastHash keeps the tests quick; the parameters are stored in each hash.
var fastHash = password.Params{Memory: 1024, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

const (
	staffEmail    = "boss@example.com"
	staffPassword = "correct horse battery"
)

// clock is a settable test clock.
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

// env is a running service with one staff account.
type env struct {
	*apitest.Server
	staff staff.Staff
	clock *clock
}

func newEnv(t *testing.T, db *sqldb.DB, opts ...func(*app.Options)) *env {
	t.Helper()
	c := &clock{t: time.Now().UTC()}
	s := apitest.New(t, db, append([]func(*app.Options){func(o *app.Options) {
		o.StaffParams = &fastHash
		o.Now = c.Now
		o.WebhookAllowPrivate = true
	}}, opts...)...)
	st, err := s.App.Staff.Add(t.Context(), staffEmail, staffPassword, "owner")
	if err != nil {
		t.Fatal(err)
	}
	return &env{Server: s, staff: st, clock: c}
}

// browser is an HTTP client with cookies that does not follow redirects.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (e *env) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: e.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type page struct {
	Status   int
	Location string
	Body     string
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return page{Status: res.StatusCode, Location: res.Header.Get("Location"), Body: string(body)}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+path, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the anti-forgery token of a page's forms.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	p := b.get(path)
	m := csrfRE.FindStringSubmatch(p.Body)
	if m == nil {
		b.t.Fatalf("GET %s: no csrf field (status %d)", path, p.Status)
	}
	return m[1]
}

// signIn signs in and returns the answer to the form.
func (b *browser) signIn(email, pw string) page {
	b.t.Helper()
	tok := b.csrf("/admin/signin")
	return b.post("/admin/signin", url.Values{"csrf": {tok}, "email": {email}, "password": {pw}})
}

func (b *browser) mustSignIn() {
	b.t.Helper()
	if p := b.signIn(staffEmail, staffPassword); p.Status != http.StatusSeeOther || p.Location != "/admin/" {
		b.t.Fatalf("sign in: %d %s\n%s", p.Status, p.Location, p.Body)
	}
}

// cookie returns the value of the browser's cookie of that name.
func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.base + "/admin/")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}
