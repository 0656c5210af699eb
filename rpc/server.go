// Package rpc is the JSON-over-HTTP transport: routing of
// /<service>/<version>/<op> (and the same under /services/), the argument
// merge of query string and body, authentication, the {ok, error, data}
// envelope with its HTTP status table, request logs and Prometheus metrics.
// Areas register their operations with Handle; an operation is declared once
// with its service, name, versions, kind and required scope.
package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
)

// MaxBody is the largest request body accepted (413 request_too_large above).
const MaxBody = 1 << 20

// StatusClientClosedRequest is the status counted and logged for a request
// whose client went away before it was answered (nginx's 499): it is not a
// server error. The client is gone, so no one reads it.
const StatusClientClosedRequest = 499

// unknownLabel is the service, version and operation label of a path that
// names no operation (the path itself would be unbounded cardinality).
const unknownLabel = "unknown"

// Op declares an operation.
type Op struct {
	Service  string   // "catalog": the path's first segment
	Name     string   // "product.create"
	Versions []string // default {"v1"}
	Read     bool     // a read operation: GET and POST; otherwise POST only
	Admin    bool     // needs the admin scope; otherwise any valid token

	// What /openapi.json says of the operation besides its argument type
	// (all optional: an operation without them is documented with a
	// free-form result and the transport's error codes).

	Doc    string   // what the operation does, in a sentence or two
	Result any      // a value of the result's type (Partial(v) when the `fields` argument may leave fields out)
	Errors []string // the codes it can return besides the transport's (validation_error, invalid_token, forbidden, request_too_large, internal_error, unavailable)

	// Of an operation registered with HandleRaw (all optional):
	Multipart bool     // its body is multipart/form-data: the arguments as fields, and a file part `file`
	Produces  []string // the content types of its success answer when it is not the JSON envelope (text/csv)
}

type route struct {
	op     Op
	arg    reflect.Type
	fields argFields
	call   func(ctx context.Context, query map[string][]string, body []byte) (any, error)
	// raw serves an operation of HandleRaw once its route, method and
	// token are checked.
	raw RawFunc
}

// RawFunc serves an operation that reads its own request (a multipart
// upload) or streams its own answer (an export), with the caller's claims
// in ctx. It answers the request and returns its status, or returns an
// error before answering anything, which the transport answers in the
// envelope. Args decodes the request's arguments into v as for Handle
// (query string and JSON body merged, shape checked).
type RawFunc func(ctx context.Context, w http.ResponseWriter, r *http.Request, args func(v any, body []byte) error) (int, error)

// HandleRaw registers an operation that reads its own request body or
// writes its own answer (see RawFunc); A is its argument type, for the
// API document and for args.
func HandleRaw[A any](s *Server, op Op, fn RawFunc) {
	if len(op.Versions) == 0 {
		op.Versions = []string{"v1"}
	}
	r := &route{op: op, arg: reflect.TypeFor[A](), fields: fieldsOf(reflect.TypeFor[A]()), raw: fn}
	for _, v := range op.Versions {
		key := op.Service + "/" + v + "/" + op.Name
		if _, dup := s.routes[key]; dup {
			panic("rpc: operation registered twice: " + key)
		}
		s.routes[key] = r
	}
}

// Server serves the registered operations, /healthz, /readyz and /metrics.
type Server struct {
	keys   *auth.Keys
	logger *slog.Logger
	ready  func(context.Context) error
	routes map[string]*route // "service/version/name"
	paths  map[string]*pathRoute
	idem   IdempotencyStore // nil: Idempotency-Key is ignored
	// idemNow is the clock of idempotency keys (SetIdempotency).
	idemNow func() time.Time

	docOnce sync.Once
	doc     []byte // the OpenAPI document, built by Document

	// mediaWidths are the widths of GET /media/ (RegisterMedia), nil
	// when the images are not served: the document describes them then.
	mediaWidths []int

	doc30Once sync.Once
	doc30     []byte // its OpenAPI 3.0.3 rendering, built by Document30

	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewServer returns a server verifying tokens with keys and reporting
// readiness with ready (storage reachable).
//
// Its metrics are commerce_requests_total and
// commerce_request_duration_seconds, labelled by service, version,
// operation and HTTP status (499 for a client that went away; "unknown"
// service, version and operation for a path that names no operation;
// version "" for a path of HandlePath), plus the Go runtime and process
// collectors.
func NewServer(keys *auth.Keys, logger *slog.Logger, ready func(context.Context) error) *Server {
	s := &Server{keys: keys, logger: logger, ready: ready, routes: map[string]*route{}, registry: prometheus.NewRegistry()}
	labels := []string{"service", "version", "operation", "status"}
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "commerce_requests_total", Help: "RPC requests by service, version, operation and HTTP status.",
	}, labels)
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "commerce_request_duration_seconds", Help: "RPC request latency by service, version, operation and HTTP status.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, labels)
	s.registry.MustRegister(s.requests, s.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return s
}

// Registry returns the server's Prometheus registry, for other collectors.
func (s *Server) Registry() *prometheus.Registry { return s.registry }

// Handle registers an operation whose arguments decode into A. fn returns
// the response's properties as a struct or map (marshaled next to "ok").
func Handle[A any](s *Server, op Op, fn func(ctx context.Context, args *A) (any, error)) {
	if len(op.Versions) == 0 {
		op.Versions = []string{"v1"}
	}
	r := &route{op: op, arg: reflect.TypeFor[A](), fields: fieldsOf(reflect.TypeFor[A]())}
	r.call = func(ctx context.Context, query map[string][]string, body []byte) (any, error) {
		var args A
		if err := decodeArgs(&args, r.fields, query, body); err != nil {
			return nil, err
		}
		return fn(ctx, &args)
	}
	for _, v := range op.Versions {
		key := op.Service + "/" + v + "/" + op.Name
		if _, dup := s.routes[key]; dup {
			panic("rpc: operation registered twice: " + key)
		}
		s.routes[key] = r
	}
}

// ServeHTTP routes a request. Every response carries
// X-Content-Type-Options: nosniff; every answer to a request that carries
// an Authorization header, errors included, carries Cache-Control:
// no-store (it may be private to the caller).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("Authorization") != "" {
		h.Set("Cache-Control", "no-store")
	}
	switch r.URL.Path {
	case "/healthz":
		writeJSON(w, http.StatusOK, []byte(`{"ok":true}`))
		return
	case "/readyz":
		if err := s.ready(r.Context()); err != nil {
			s.logger.Error("not ready", "err", err)
			writeJSON(w, http.StatusServiceUnavailable, []byte(`{"ok":false,"error":"unavailable"}`))
			return
		}
		writeJSON(w, http.StatusOK, []byte(`{"ok":true}`))
		return
	case "/metrics":
		promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}).ServeHTTP(w, r)
		return
	case "/openapi.json":
		writeJSON(w, http.StatusOK, s.Document())
		return
	case "/openapi-3.0.json":
		writeJSON(w, http.StatusOK, s.Document30())
		return
	case "/docs", "/docs/":
		serveDocs(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/docs/") {
		serveDocs(w, r)
		return
	}
	if p := s.pathRoute(r.URL.Path); p != nil {
		s.servePath(w, r, p)
		return
	}
	s.serveOp(w, r)
}

// pathRoute finds the PathHandler of a path: the one of the path itself,
// else the one of its first segment registered with a trailing slash
// ("/media/" serves "/media/abc.jpg").
func (s *Server) pathRoute(path string) *pathRoute {
	if p := s.paths[path]; p != nil {
		return p
	}
	if len(path) > 1 {
		if i := strings.IndexByte(path[1:], '/'); i >= 0 {
			return s.paths[path[:i+2]]
		}
	}
	return nil
}

// PathHandler serves a path outside the operations' envelope (HandlePath).
type PathHandler interface {
	// Serve answers the request and returns the HTTP status it answered
	// with.
	Serve(w http.ResponseWriter, r *http.Request) int
	// Fail answers an internal error in the path's own shape (after a
	// panic of Serve) and returns its status.
	Fail(w http.ResponseWriter, r *http.Request) int
}

// pathRoute is a path served by a PathHandler, with the labels of its metrics.
type pathRoute struct {
	service, operation string
	h                  PathHandler
}

// HandlePath serves the path with h, outside the operations' envelope and
// token check (POST /oauth/token, which has its own of both), with what
// every operation gets: a panic recovered and answered with h.Fail, the
// request metrics (labelled service, version "" as the path names none,
// operation and status) and the request's log line. A path of one segment
// ending in "/" ("/media/") serves every path under it.
func (s *Server) HandlePath(p, service, operation string, h PathHandler) {
	if s.paths == nil {
		s.paths = map[string]*pathRoute{}
	}
	if _, dup := s.paths[p]; dup {
		panic("rpc: path registered twice: " + p)
	}
	s.paths[p] = &pathRoute{service: service, operation: operation, h: h}
}

func (s *Server) servePath(w http.ResponseWriter, r *http.Request, p *pathRoute) {
	start := time.Now()
	status := 0
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("panic", "operation", p.operation, "panic", v)
			status = p.h.Fail(w, r)
		}
		s.observe(r, p.service, "", p.operation, status, start)
	}()
	status = p.h.Serve(w, r)
}

// observe counts a request in the metrics and logs it (no argument is
// logged: they may hold secrets).
func (s *Server) observe(r *http.Request, service, version, operation string, status int, start time.Time) {
	d := time.Since(start)
	st := strconv.Itoa(status)
	s.requests.WithLabelValues(service, version, operation, st).Inc()
	s.latency.WithLabelValues(service, version, operation, st).Observe(d.Seconds())
	s.logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("service", service), slog.String("version", version),
		slog.String("operation", operation), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Duration("duration", d))
}

func (s *Server) serveOp(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	service, version, opName := unknownLabel, unknownLabel, unknownLabel
	status := 0
	var idem *idemRun
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("panic", "operation", opName, "panic", p)
			status = s.writeError(w, r, opName, panicError(p))
		}
		if idem != nil {
			idem.finish(r.Context(), s, status)
		}
		s.observe(r, service, version, opName, status, start)
	}()

	rt, v := s.route(r.URL.Path)
	if rt == nil {
		status = s.writeError(w, r, opName, commerce.NewError(commerce.EOperationNotFound, nil))
		return
	}
	service, version, opName = rt.op.Service, v, rt.op.Name
	if r.Method != http.MethodPost && !(rt.op.Read && r.Method == http.MethodGet) {
		if rt.op.Read {
			w.Header().Set("Allow", "GET, POST")
		} else {
			w.Header().Set("Allow", "POST")
		}
		status = s.writeError(w, r, opName, commerce.NewError(commerce.EMethodNotAllowed, nil))
		return
	}
	claims, err := s.authenticate(r, rt.op)
	if err == nil {
		err = authorize(claims, rt.op)
	}
	if err != nil {
		status = s.writeError(w, r, opName, err)
		return
	}
	if rt.raw != nil {
		args := func(v any, body []byte) error { return decodeArgs(v, rt.fields, r.URL.Query(), body) }
		ctx := audited(commerce.WithClaims(r.Context(), claims), claims, rt.op, remoteIP(r))
		if status, err = rt.raw(ctx, w, r, args); err != nil {
			status = s.writeError(w, r, opName, err)
		}
		return
	}
	body, err := readBody(r)
	if err != nil {
		status = s.writeError(w, r, opName, err)
		return
	}
	run, handled, st := s.beginIdempotent(w, r, rt, claims, body)
	if handled {
		status = st
		return
	}
	base := r.Context()
	if run != nil {
		idem, w = run, run.rec
		// A request with a key runs to its end even when its client
		// gives up (a timeout): the retry then gets its answer.
		var cancel context.CancelFunc
		base, cancel = context.WithTimeout(context.WithoutCancel(base), idempotentRunLimit)
		defer cancel()
	}
	ctx := commerce.WithAcceptLanguage(audited(commerce.WithClaims(base, claims), claims, rt.op, remoteIP(r)), r.Header.Get("Accept-Language"))
	res, err := rt.call(ctx, r.URL.Query(), body)
	if err != nil {
		// A run under a key is detached from the request: its failure is
		// never the client's going away, even when the client has gone.
		status = s.answerError(w, opName, err, run == nil && clientClosed(r, err))
		return
	}
	status = http.StatusOK
	if rf, ok := res.(RawField); ok {
		writeRaw(w, rf)
		return
	}
	out, err := envelope(res)
	if err != nil {
		status = s.writeError(w, r, opName, err)
		return
	}
	writeJSON(w, status, out)
}

// writeRaw answers 200 with the envelope of rf, as envelope writes it,
// without copying rf's JSON into it (a cart is several kilobytes) and
// with its length, so that the answer is not sent in chunks.
func writeRaw(w http.ResponseWriter, rf RawField) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	tail := rf.tail()
	h.Set("Content-Length", strconv.Itoa(len(`{"ok":true,"":`)+len(rf.Name)+len(rf.JSON)+len(tail)))
	w.WriteHeader(http.StatusOK)
	// A failed write means the client is gone; there is no one to tell.
	_, _ = io.WriteString(w, `{"ok":true,"`+rf.Name+`":`)
	_, _ = w.Write(rf.JSON)
	_, _ = io.WriteString(w, tail)
}

// panicError is the internal error of an operation that panicked with p,
// with p in its chain when p is an error.
func panicError(p any) error {
	if perr, ok := p.(error); ok {
		return commerce.Errorf(commerce.EInternal, "panic: %w", perr)
	}
	return commerce.Errorf(commerce.EInternal, "panic: %v", p)
}

// route finds the operation of a path, with or without /services, and the
// version the path names.
func (s *Server) route(path string) (*route, string) {
	path = strings.TrimPrefix(path, "/services")
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return nil, ""
	}
	rt := s.routes[rest]
	if rt == nil {
		return nil, ""
	}
	_, rest, _ = strings.Cut(rest, "/")
	version, _, _ := strings.Cut(rest, "/")
	return rt, version
}

func (s *Server) authenticate(r *http.Request, op Op) (commerce.Claims, error) {
	token := bearerToken(r)
	if token == "" {
		return commerce.Claims{}, commerce.Errorf(commerce.EInvalidToken, "missing bearer token")
	}
	c, err := s.keys.Verify(token)
	if err != nil {
		return commerce.Claims{}, err
	}
	if op.Admin && !c.IsAdmin() {
		return commerce.Claims{}, commerce.Errorf(commerce.EForbidden, "%s needs the admin scope", op.Name)
	}
	if !c.IsAdmin() && !c.HasScope(commerce.ScopeAPI) {
		return commerce.Claims{}, commerce.Errorf(commerce.EForbidden, "token has neither the api nor the admin scope")
	}
	return c, nil
}

// bearerToken returns the token of the request's Authorization: Bearer
// header, "" when it has none.
func bearerToken(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxBody {
		return nil, commerce.NewError(commerce.ERequestTooLarge, nil)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		e := commerce.Invalid("body: could not be read")
		e.Err = err
		if cerr := r.Context().Err(); cerr != nil {
			// The connection broke off during the upload (net/http
			// cancels the request's context on a failed read): the
			// client went away, it did not send a bad body.
			e.Err = errors.Join(err, cerr)
		}
		return nil, e
	}
	if len(b) > MaxBody {
		return nil, commerce.NewError(commerce.ERequestTooLarge, nil)
	}
	return b, nil
}

// envelope marshals an operation's result and puts "ok": true in front of
// its properties.
func envelope(res any) ([]byte, error) {
	if res == nil {
		return []byte(`{"ok":true}`), nil
	}
	if rf, ok := res.(RawField); ok {
		out := make([]byte, 0, len(rf.JSON)+len(rf.Name)+16)
		out = append(out, `{"ok":true,"`...)
		out = append(out, rf.Name...)
		out = append(out, `":`...)
		out = append(out, rf.JSON...)
		return append(out, rf.tail()...), nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, commerce.Errorf(commerce.EInternal, "marshal result: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' {
		return nil, commerce.Errorf(commerce.EInternal, "result is not a JSON object")
	}
	out := make([]byte, 0, len(b)+10)
	out = append(out, `{"ok":true`...)
	if inner := bytes.TrimSpace(b[1 : len(b)-1]); len(inner) > 0 {
		out = append(out, ',')
		out = append(out, inner...)
	}
	return append(out, '}'), nil
}

// RawField is a result of one property whose value is JSON encoded
// already (a cached encoding): the envelope writes it as it is, next to
// "ok". Name must need no escaping.
type RawField struct {
	Name string
	JSON []byte
	// Locale, when not "", is written as the answer's "locale" (the
	// language of a read, docs/api.md section 27); it must need no
	// escaping (commerce.Locales are language tags).
	Locale string
}

// tail is what the envelope writes after the field's JSON.
func (rf RawField) tail() string {
	if rf.Locale == "" {
		return "}"
	}
	return `,"locale":"` + rf.Locale + `"}`
}

type errorBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Data  any    `json:"data,omitempty"`
}

// writeError writes the error envelope with the code's status; internal
// errors are logged and sent without details. It returns the status.
//
// An error caused by the request's own cancellation (the client went
// away: clientClosed) is the client's doing, not the server's: it is
// counted as 499 and logged at INFO. Any other error keeps its status, a
// failure its 500 at ERROR, whether or not the client is still there.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, op string, err error) int {
	return s.answerError(w, op, err, clientClosed(r, err))
}

// clientClosed reports whether err is the request's cancellation: the
// request's context is done (its client went away) and its error is in
// err's chain (the operation, the store or the body read stopped because
// of it). A failure that merely happens while the client is gone is not.
func clientClosed(r *http.Request, err error) bool {
	cerr := r.Context().Err()
	return cerr != nil && errors.Is(err, cerr)
}

// answerError is writeError once it is known whether the client closed
// the request.
func (s *Server) answerError(w http.ResponseWriter, op string, err error, closed bool) int {
	code := commerce.ErrorCode(err)
	status := Status(code)
	var data any
	if closed {
		s.logger.Info("client closed the request", "operation", op, "err", err)
		writeJSON(w, StatusClientClosedRequest, []byte(`{"ok":false,"error":"`+code+`"}`))
		return StatusClientClosedRequest
	}
	if code == commerce.EInternal {
		s.logger.Error("internal error", "operation", op, "err", err)
	} else {
		data = commerce.ErrorData(err)
		if code == commerce.EUnavailable {
			s.logger.Error("storage unavailable", "operation", op, "err", err)
			data = nil
		}
	}
	b, merr := json.Marshal(errorBody{Error: code, Data: data})
	if merr != nil {
		s.logger.Error("marshal error body", "err", errors.Join(err, merr))
		b = []byte(`{"ok":false,"error":"internal_error"}`)
		status = 500
	}
	writeJSON(w, status, b)
	return status
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// A failed write means the client is gone; there is no one to tell.
	_, _ = w.Write(b)
}
