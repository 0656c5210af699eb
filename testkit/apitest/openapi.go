package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/commercekit/commerce/rpc"
)

// The document the server publishes (GET /openapi.json) checks every
// request that reaches a test server and every response it gives, whoever
// sends it (Server.Do, a test's own http.Client, a browser): the API tests
// are the proof that the document describes the service. The document is
// the same for every server of a test binary (it is built from the
// registered operations), so it is read and parsed once.
var doc struct {
	once sync.Once
	raw  []byte
	v    validator.Validator
	err  error
}

// Document returns /openapi.json as served by s and its validator.
func (s *Server) Document(t testing.TB) ([]byte, validator.Validator) {
	t.Helper()
	raw, v, err := document(s.App.Handler())
	if err != nil {
		t.Fatal(err)
	}
	return raw, v
}

func document(h http.Handler) ([]byte, validator.Validator, error) {
	doc.once.Do(func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
		if rec.Code != http.StatusOK {
			doc.err = fmt.Errorf("GET /openapi.json: status %d", rec.Code)
			return
		}
		doc.raw = rec.Body.Bytes()
		d, err := libopenapi.NewDocument(doc.raw)
		if err != nil {
			doc.err = fmt.Errorf("parse /openapi.json: %w", err)
			return
		}
		// Formats (date-time, uri) are asserted: the document states
		// them as constraints, not as hints.
		v, errs := validator.NewValidator(d, config.WithFormatAssertions())
		if len(errs) > 0 {
			doc.err = fmt.Errorf("validator of /openapi.json: %v", errs)
			return
		}
		doc.v = v
	})
	return doc.raw, doc.v, doc.err
}

// badInputHeader marks a request of BadInput; the middleware removes it
// before the service sees the request.
const badInputHeader = "X-Apitest-Bad-Input"

// BadInput returns s for requests that deliberately break the document
// (a wrong type, an unknown field): the document must reject such a
// request (else the test fails: the document is looser than the
// service), and the service must refuse it, as for any request the
// document rejects; its response is checked like every other. A request
// the document rejects fails a test only when the service accepts it, so
// tests of bad input need not be marked; marking one also proves that
// the document describes the constraint.
func (s *Server) BadInput() *Server {
	c := *s
	c.badInput = true
	return &c
}

// unchecked reports whether a path is outside the API the document
// describes: the admin app's pages and the assets of /docs.
func unchecked(path string) bool {
	return path == "/admin" || strings.HasPrefix(path, "/admin/") || strings.HasPrefix(path, "/docs/")
}

// Checking returns h checked as the test servers of New are: for a test
// that serves an app's handler itself. Without the app's operations it
// cannot merge arguments split between the query string and the body (see
// checkExchange): such requests must not be sent through it.
func Checking(t testing.TB, h http.Handler) http.Handler { return checking(t, h, nil) }

// argumentsFunc returns the argument object of a request to an operation,
// as the transport merges its query string and body (rpc.Server.Arguments).
type argumentsFunc func(path string, query url.Values, body []byte) ([]byte, bool)

// checking is the middleware of test servers: it passes every request to
// h and fails the test when the exchange does not match the document (see
// checkExchange).
func checking(t testing.TB, h http.Handler, args argumentsFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unchecked(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("%s %s: read the request body: %v", r.Method, r.URL.Path, err)
		}
		r.Body.Close()
		bad := r.Header.Get(badInputHeader) != ""
		r.Header.Del(badInputHeader)
		sent := r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &rpc.Recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.Status == 0 {
			rec.Status = http.StatusOK
		}
		_, v, err := document(h)
		if err != nil {
			t.Error(err)
			return
		}
		if msg := checkExchange(v, args, sent, body, bad, rec.Status, w.Header(), rec.Body.Bytes()); msg != "" {
			t.Error(msg)
		}
	})
}

// checkExchange returns why an exchange does not match the document: its
// response does not, or the document rejects a request that the service
// accepts (a request that both refuse is a deliberate bad input), or
// accepts one marked as bad input. A request to a path that the document
// does not list must get 404 operation_not_found, and one with a method
// that it does not list for the path 405 (method_not_allowed for an
// operation). It returns "" when all is well.
//
// The transport merges the query string and the body into one argument
// object (docs/api.md section 2); the document describes a POST's
// arguments as its body and a GET's as its query parameters. A request
// whose arguments are split between the two (POST x.update?id=... with
// the changes in the body), or a GET with a body, that the document
// rejects as sent is checked again as the POST of the argument object
// that args (the app's own merge) makes of it: the form the document
// describes.
func checkExchange(v validator.Validator, args argumentsFunc, sent *http.Request, body []byte, bad bool, status int, header http.Header, raw []byte) string {
	req := func() *http.Request {
		r := sent.Clone(sent.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.RequestURI = ""
		return r
	}
	where := sent.Method + " " + sent.URL.RequestURI()
	ok, errs := v.ValidateHttpRequestSync(req())
	if !ok && !missing(errs) && args != nil {
		split := (sent.Method == http.MethodPost && sent.URL.RawQuery != "") ||
			(sent.Method == http.MethodGet && len(bytes.TrimSpace(body)) > 0)
		if merged, known := args(sent.URL.Path, sent.URL.Query(), body); split && known {
			r := sent.Clone(sent.Context())
			r.Method = http.MethodPost
			r.Header = sent.Header.Clone()
			r.Header.Set("Content-Type", "application/json")
			r.Body = io.NopCloser(bytes.NewReader(merged))
			r.ContentLength = int64(len(merged))
			r.RequestURI = ""
			if mergedOK, _ := v.ValidateHttpRequestSync(r); mergedOK {
				ok, errs = true, nil
			}
		}
	}
	if ok && bad {
		return fmt.Sprintf("%s: marked as bad input, but /openapi.json accepts it: the document does not describe the constraint\nbody: %s",
			where, truncate(body))
	}
	if !ok {
		for _, e := range errs {
			if e.IsPathMissingError() || e.IsOperationMissingError() {
				var env struct {
					OK    *bool  `json:"ok"`
					Error string `json:"error"`
				}
				isEnv := json.Unmarshal(raw, &env) == nil && env.OK != nil && !*env.OK
				switch {
				case e.IsPathMissingError() && status == 404 && isEnv && env.Error == "operation_not_found":
				case e.IsOperationMissingError() && status == 405 && (!isEnv || env.Error == "method_not_allowed"):
					// Another method of a listed path: 405 (in the
					// envelope for operations; /oauth/token answers in
					// RFC 6749's form).
				default:
					return fmt.Sprintf("%s: not in /openapi.json, yet answered %d: %s", where, status, truncate(raw))
				}
				return "" // nothing in the document to check the answer against
			}
		}
		if status == http.StatusOK {
			return fmt.Sprintf("%s: /openapi.json rejects a request the service accepts (status 200):\n%s\nbody: %s",
				where, describe(errs), truncate(body))
		}
		// The document and the service agree that the request is bad: a
		// deliberate bad-input test.
	}
	r := req()
	res := &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(raw)), Request: r}
	if ok, errs := v.ValidateHttpResponse(r, res); !ok {
		return fmt.Sprintf("%s: the response (status %d) does not match /openapi.json:\n%s\nresponse: %s",
			where, status, describe(errs), truncate(raw))
	}
	return ""
}

// missing reports whether the document has no such path or method.
func missing(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.IsPathMissingError() || e.IsOperationMissingError() {
			return true
		}
	}
	return false
}

func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  - %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n      %s at %s", f.Reason, f.FieldPath)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func truncate(b []byte) string {
	if len(b) > 500 {
		return string(b[:500]) + "..."
	}
	return string(b)
}
