package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// The document the server publishes (GET /openapi.json) checks every
// request and every response of Server.Do: the API tests are the proof that
// the document describes the service. The document is the same for every
// server of a test binary (it is built from the registered operations), so
// it is read and parsed once.
var doc struct {
	once sync.Once
	raw  []byte
	v    validator.Validator
	err  error
}

// Document returns /openapi.json as served by s and its validator.
func (s *Server) Document(t testing.TB) ([]byte, validator.Validator) {
	t.Helper()
	doc.once.Do(func() {
		rec := httptest.NewRecorder()
		s.App.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
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
		v, errs := validator.NewValidator(d)
		if len(errs) > 0 {
			doc.err = fmt.Errorf("validator of /openapi.json: %v", errs)
			return
		}
		doc.v = v
	})
	if doc.err != nil {
		t.Fatal(doc.err)
	}
	return doc.raw, doc.v
}

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

// checkExchange fails the test when the response does not match the
// document, or when the document rejects a request that the service
// accepts (a request that both refuse is a deliberate bad input). A request to a path or
// with a method that the document does not list must get 404
// operation_not_found or 405 method_not_allowed.
func (s *Server) checkExchange(t testing.TB, method, path, token string, body []byte, status int, header http.Header, raw []byte) {
	t.Helper()
	_, v := s.Document(t)
	req := func() *http.Request {
		r, err := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	ok, errs := v.ValidateHttpRequestSync(req())
	if ok && s.badInput {
		t.Fatalf("%s %s: marked as bad input, but /openapi.json accepts it: the document does not describe the constraint\nbody: %s",
			method, path, truncate(body))
	}
	if !ok {
		for _, e := range errs {
			if e.IsPathMissingError() || e.IsOperationMissingError() {
				var env struct {
					OK    *bool  `json:"ok"`
					Error string `json:"error"`
				}
				if json.Unmarshal(raw, &env) != nil || env.OK == nil || *env.OK ||
					!(status == 404 && env.Error == "operation_not_found" || status == 405 && env.Error == "method_not_allowed") {
					t.Fatalf("%s %s: not in /openapi.json, yet answered %d: %s", method, path, status, raw)
				}
				return // nothing in the document to check the answer against
			}
		}
		if status == http.StatusOK {
			t.Fatalf("%s %s: /openapi.json rejects a request the service accepts (status 200):\n%s\nbody: %s",
				method, path, describe(errs), truncate(body))
		}
		// The document and the service agree that the request is bad: a
		// deliberate bad-input test.
	}
	res := &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(raw))}
	r := req()
	res.Request = r
	if ok, errs := v.ValidateHttpResponse(r, res); !ok {
		t.Fatalf("%s %s: the response (status %d) does not match /openapi.json:\n%s\nresponse: %s",
			method, path, status, describe(errs), truncate(raw))
	}
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
