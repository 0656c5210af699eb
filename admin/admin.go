// Package admin is the admin app at /admin/: server-rendered pages
// (html/template) with a little htmx, its assets embedded, for staff to run
// the store from a browser.
//
// The pages call the service's operations in process (rpc.Server.Call) as
// the signed-in staff member (an admin whose subject is "staff:<id>"), so
// every rule, check and error is the API's own; the context also carries
// the staff member as the actor that the events of their changes record
// (event.WithActor). Staff sign in with a cookie session (package staff);
// every form carries an anti-forgery token tied to the session. The
// session cookie is only ever read here: the API stays bearer-only.
package admin

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/transfer"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// HTMXVersion and HTMXSHA256 identify the vendored htmx.min.js: the file
// of the npm package htmx.org at that version (dist/htmx.min.js), checked
// by TestVendoredHTMX.
const (
	HTMXVersion = "2.0.4"
	HTMXSHA256  = "e209dda5c8235479f3166defc7750e1dbcd5a5c1808b7792fc2e6733768fb447"
)

// Options configure the admin app.
type Options struct {
	RPC    *rpc.Server
	Staff  *staff.Service
	DB     *sqldb.DB
	Logger *slog.Logger
	Now    func() time.Time
	// RefundQuote computes what return.refund would give back (the
	// orders area's order.Service.RefundQuote), shown before staff
	// confirm a return's refund; without it the page shows no amount.
	RefundQuote func(ctx context.Context, returnID string, shipping bool) (order.RefundPlan, error)
	// Media is the product images area: the product page shows, uploads,
	// orders and removes a product's images (none without it).
	Media *media.Service
	// Locales are the store's languages, the default first (--locales):
	// the product and category pages edit the translations of the others.
	Locales commerce.Locales
	// Transfer is the catalog's import: the imports page uploads a file
	// and follows its job (no page without it).
	Transfer *transfer.Service
}

// Handler is the admin app.
type Handler struct {
	opts  Options
	mux   *http.ServeMux
	pages map[string]*template.Template
	// partials are layout.html's templates alone: the shared pieces
	// (formerror, productchoices, ...) that an htmx answer may be.
	partials *template.Template
	reads    *sqldb.AdminReads
	// features are the optional areas whose pages are served (orders,
	// customers, webhooks: those whose operations are registered).
	features map[string]bool
	// dashboardHooks add cards to the dashboard.
	dashboardHooks []func(h *Handler, r *http.Request, data map[string]any)
}

// New returns the admin app, to be served under /admin/.
func New(opts Options) (*Handler, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), pages: map[string]*template.Template{},
		reads: sqldb.NewAdminReads(opts.DB), features: map[string]bool{}}
	partials, err := template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("admin: template layout.html: %w", err)
	}
	h.partials = partials
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("admin: template %s: %w", n, err)
		}
		h.pages[base] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.mux.Handle("GET /admin/static/", http.StripPrefix("/admin/static/", staticHandler(static)))
	h.mux.HandleFunc("GET /admin/signin", h.signInPage)
	h.mux.HandleFunc("POST /admin/signin", h.signIn)
	h.routes()
	return h, nil
}

func staticHandler(static fs.FS) http.Handler {
	fsrv := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fsrv.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the app, with headers that keep its pages private and
// out of frames, and scripts only from itself.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	if !strings.HasPrefix(r.URL.Path, "/admin/static/") {
		hd.Set("Cache-Control", "no-store")
	}
	if r.URL.Path == "/admin" {
		http.Redirect(w, r, "/admin/", http.StatusMovedPermanently)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// page is what every page template gets (as a pointer: its methods
// ErrorIn, FieldError and Invalid place the error, errors.go).
type page struct {
	Title  string
	Nav    string
	Staff  staff.Staff
	CSRF   string
	Form   url.Values
	Error  *formError
	Notice string
	Data   map[string]any
	// Features are the optional areas served (orders, customers, webhooks).
	Features map[string]bool
	// Content is the page's content, rendered before the layout (so that
	// the layout knows whether the form that failed showed the error).
	Content template.HTML
	// errorShown: a form of the content showed the error (ErrorIn).
	errorShown bool
}

// ErrorShown reports whether a form of the page shows the error; if not,
// the layout shows it at the top.
func (p *page) ErrorShown() bool { return p.errorShown }

// signedIn is the context of a request of a signed-in staff member.
type signedIn struct {
	staff     staff.Staff
	sessionID string
}

type signedInKey struct{}

func who(r *http.Request) signedIn {
	s, _ := r.Context().Value(signedInKey{}).(signedIn)
	return s
}

// call runs an operation as the signed-in staff member and decodes its
// answer (json.Number for numbers).
func (h *Handler) call(r *http.Request, path string, args any) (map[string]any, error) {
	return h.callKey(r, path, args, "")
}

// OnceField is the form field of a form's one-time token: a fresh random
// key in each form rendered (the template "once"), the idempotency key of
// the operation the form runs.
const OnceField = "once"

// OnceWait is how long a form sent again while its first sending still
// runs waits for the first one's answer.
const OnceWait = 30 * time.Second

// callOnce is call under the form's one-time token as the idempotency key
// (rpc.Server.CallOnce): the same form sent twice (a double click, a
// resend) runs the operation once, and the second sending gets the
// first's answer, waiting for it (at most OnceWait) while it runs. A form
// without the token runs as call.
func (h *Handler) callOnce(r *http.Request, path string, args any) (map[string]any, error) {
	key := r.PostForm.Get(OnceField)
	deadline := time.Now().Add(OnceWait)
	for {
		res, err := h.callKey(r, path, args, key)
		if commerce.ErrorCode(err) != commerce.EIdempotencyKeyInUse || time.Now().After(deadline) {
			return res, err
		}
		select {
		case <-r.Context().Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (h *Handler) callKey(r *http.Request, path string, args any, key string) (map[string]any, error) {
	s := who(r)
	ctx := audit.WithCaller(event.WithActor(r.Context(), s.staff.Actor()), s.staff.Email, clientIP(r))
	raw, err := h.opts.RPC.CallOnce(ctx, s.staff.Claims(), path, args, key)
	if err != nil {
		if commerce.ErrorCode(err) == commerce.EInternal {
			h.opts.Logger.Error("admin: internal error", "operation", path, "err", err)
		}
		return nil, err
	}
	return decode(raw)
}

func decode(raw []byte) (map[string]any, error) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, commerce.Errorf(commerce.EInternal, "decode an answer: %w", err)
	}
	return m, nil
}

// render writes a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	t := h.pages[name]
	if t == nil {
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	s := who(r)
	p.Staff = s.staff
	p.Features = h.features
	if s.sessionID != "" {
		p.CSRF = staff.CSRFToken(s.sessionID)
	}
	if p.Form == nil {
		p.Form = url.Values{}
	}
	if p.Data == nil {
		p.Data = map[string]any{}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	out, err := execute(t, r, &p)
	if err != nil {
		h.opts.Logger.Error("admin: render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(out))
}

// execute renders a page: its content first, then the layout around it
// (or only the fragment an htmx request for one asks for).
func execute(t *template.Template, r *http.Request, p *page) (string, error) {
	var buf strings.Builder
	if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") != "" && t.Lookup("fragment") != nil {
		err := t.ExecuteTemplate(&buf, "fragment", p)
		return buf.String(), err
	}
	if err := t.ExecuteTemplate(&buf, "content", p); err != nil {
		return "", err
	}
	p.Content = template.HTML(buf.String())
	buf.Reset()
	err := t.ExecuteTemplate(&buf, "layout", p)
	return buf.String(), err
}

// statusOf is the HTTP status of a page showing err: the API's.
func statusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	return rpc.Status(commerce.ErrorCode(err))
}

// fail renders a page with the error of its form spec describes (the
// page's own for formSpec{}).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, name string, p page, spec formSpec, err error) {
	p.failed(spec, err)
	h.render(w, r, statusOf(err), name, p)
}

// seeOther redirects after a successful form.
func seeOther(w http.ResponseWriter, r *http.Request, to string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// pageArgs reads limit and skip of a table's page (25 rows by default).
func pageArgs(q url.Values) (limit, skip int) {
	limit, skip = 25, 0
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && n <= 200 {
		limit = n
	}
	if n, err := strconv.Atoi(q.Get("skip")); err == nil && n > 0 {
		skip = n
	}
	return limit, skip
}

// pager is the paging of a table.
type pager struct {
	Limit, Skip      int
	Prev, Next       string
	HasPrev, HasNext bool
	From, To         int
}

func newPager(q url.Values, limit, skip, got int) pager {
	p := pager{Limit: limit, Skip: skip, From: skip + 1, To: skip + got}
	if got == 0 {
		p.From = skip
	}
	link := func(s int) string {
		v := url.Values{}
		for k, vs := range q {
			if k != "skip" {
				v[k] = vs
			}
		}
		v.Set("skip", strconv.Itoa(s))
		return "?" + v.Encode()
	}
	if skip > 0 {
		p.HasPrev, p.Prev = true, link(max(0, skip-limit))
	}
	if got >= limit {
		p.HasNext, p.Next = true, link(skip+limit)
	}
	return p
}

// list returns the "data" array of a list answer.
func list(m map[string]any) []any {
	if d, ok := m["data"].([]any); ok {
		return d
	}
	return nil
}

// opt returns a pointer to the trimmed value, or nil when it is empty.
func opt(v url.Values, key string) *string {
	s := strings.TrimSpace(v.Get(key))
	if s == "" {
		return nil
	}
	return &s
}

// number is a form value as a JSON number when it is one, else as the
// string given (for the API to refuse with its own message).
func number(s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		var n json.Number
		if json.Unmarshal([]byte(s), &n) == nil {
			return n
		}
	}
	return s
}

// rawJSON is a form value as JSON when it is valid, else as the string
// given (for the API to refuse with its own message).
func rawJSON(s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

// MaxUpload bounds a multipart form (an image upload): the media area
// refuses a file over its own limit (--media-max-bytes) with 413.
const MaxUpload = 64 << 20

// parseForm reads a posted form of at most rpc.MaxBody bytes, or a
// multipart one (an image upload) of at most MaxUpload bytes, its files
// kept in memory up to 8 MB and in temporary files beyond.
func parseForm(r *http.Request) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		r.Body = http.MaxBytesReader(nil, r.Body, MaxUpload)
		if err := r.ParseMultipartForm(8 << 20); err != nil {
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				return commerce.NewError(commerce.ERequestTooLarge, nil)
			}
			return commerce.Invalid("form: could not be read")
		}
		return nil
	}
	r.Body = http.MaxBytesReader(nil, r.Body, rpc.MaxBody)
	if err := r.ParseForm(); err != nil {
		return commerce.Invalid("form: could not be read")
	}
	return nil
}
