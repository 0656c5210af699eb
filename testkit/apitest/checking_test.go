package apitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/commercekit/commerce/testkit/testdb"
)

// The middleware's own tests: checkExchange, and the checking handler
// around a fake service, must report what does not match /openapi.json
// (else every API test would pass whatever the service answers).

// exchange is a request and the answer a fake service gives it.
type exchange struct {
	name         string
	method, path string
	body         string
	bad          bool // marked as bad input
	status       int
	answer       string
	want         string // a part of the report; "" for none
}

var exchanges = []exchange{
	{name: "a good exchange", method: "POST", path: "/catalog/v1/product.remove", body: `{"id":"p1"}`,
		status: 200, answer: `{"ok":true}`},
	{name: "a declared error", method: "POST", path: "/catalog/v1/product.remove", body: `{"id":"p1"}`,
		status: 404, answer: `{"ok":false,"error":"product_not_found","data":"p1"}`},
	{name: "a missing required argument refused by both", method: "POST", path: "/catalog/v1/product.remove", body: `{}`,
		status: 400, answer: `{"ok":false,"error":"validation_error","data":["id: required"]}`},
	{name: "an undeclared error code", method: "POST", path: "/catalog/v1/product.remove", body: `{"id":"p1"}`,
		status: 404, answer: `{"ok":false,"error":"cart_not_found","data":"p1"}`, want: "does not match"},
	{name: "a declared code with another status", method: "POST", path: "/catalog/v1/product.remove", body: `{"id":"p1"}`,
		status: 400, answer: `{"ok":false,"error":"product_not_found","data":"p1"}`, want: "does not match"},
	{name: "a result of the wrong shape", method: "POST", path: "/tax/v1/tax.info", body: `{"id":"t1"}`,
		status: 200, answer: `{"ok":true,"tax":{"id":5}}`, want: "does not match"},
	{name: "a result missing a required property", method: "POST", path: "/tax/v1/tax.info", body: `{"id":"t1"}`,
		status: 200, answer: `{"ok":true}`, want: "does not match"},
	{name: "a missing required argument accepted", method: "POST", path: "/cart/v1/cart.addToCart",
		body:   `{"items":[{"productId":"p1","warehouseId":"W1","quantity":1}]}`,
		status: 200, answer: `{"ok":true,"cart":{}}`, want: "rejects a request the service accepts"},
	{name: "a missing required item argument accepted", method: "POST", path: "/cart/v1/cart.addToCart",
		body:   `{"cartId":"c1","items":[{"productId":"p1","quantity":1}]}`,
		status: 200, answer: `{"ok":true,"cart":{}}`, want: "rejects a request the service accepts"},
	{name: "a missing required query parameter accepted", method: "GET", path: "/cart/v1/cart.calculateCart",
		status: 200, answer: `{"ok":true,"cart":{}}`, want: "rejects a request the service accepts"},
	{name: "a required argument in the query string of a POST", method: "POST", path: "/catalog/v1/product.remove?id=p1", body: `{}`,
		status: 200, answer: `{"ok":true}`},
	{name: "arguments split between the query string and the body", method: "POST", path: "/tax/v1/tax.update?id=t1", body: `{"rate":1}`,
		status: 200, answer: `{"ok":true,"tax":` + taxJSON + `}`},
	{name: "a GET with its arguments in the body", method: "GET", path: "/tax/v1/tax.info", body: `{"id":"t1"}`,
		status: 200, answer: `{"ok":true,"tax":` + taxJSON + `}`},
	{name: "a required argument neither in the query string nor in the body", method: "POST", path: "/tax/v1/tax.update?rate=1", body: `{}`,
		status: 200, answer: `{"ok":true,"tax":` + taxJSON + `}`, want: "rejects a request the service accepts"},
	{name: "a GET with a body of the wrong type", method: "GET", path: "/tax/v1/tax.info", body: `{"id":5}`,
		status: 200, answer: `{"ok":true,"tax":` + taxJSON + `}`, want: "rejects a request the service accepts"},
	{name: "bad input the document accepts", method: "POST", path: "/catalog/v1/product.remove", body: `{"id":"p1"}`, bad: true,
		status: 404, answer: `{"ok":false,"error":"product_not_found","data":"p1"}`, want: "the document does not describe the constraint"},
	{name: "an unknown path answered", method: "POST", path: "/catalog/v9/product.remove", body: `{"id":"p1"}`,
		status: 200, answer: `{"ok":true}`, want: "not in /openapi.json"},
}

const taxJSON = `{"id":"t1","code":"default","class":"default","title":"VAT","description":"","rate":21,"isPercentage":true}`

func (e exchange) request() *http.Request {
	r := httptest.NewRequest(e.method, e.path, strings.NewReader(e.body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer x")
	return r
}

func checkReport(t *testing.T, e exchange, report string) {
	t.Helper()
	switch {
	case e.want == "" && report != "":
		t.Errorf("%s: reported %q, want nothing", e.name, report)
	case e.want != "" && !strings.Contains(report, e.want):
		t.Errorf("%s: reported %q, want a report containing %q", e.name, report, e.want)
	}
}

// TestCheckExchange: checkExchange reports an undeclared error code, a
// result whose shape the document does not describe, a request missing a
// required argument that the service accepts, and bad input the document
// accepts, and nothing for exchanges that match, those whose arguments the
// transport merges from the query string and the body included.
func TestCheckExchange(t *testing.T) {
	s := New(t, testdb.SQLite(t))
	_, v := s.Document(t)
	for _, e := range exchanges {
		r := e.request()
		report := checkExchange(v, s.App.RPC().Arguments, r, []byte(e.body), e.bad, e.status, http.Header{"Content-Type": {"application/json"}}, []byte(e.answer))
		checkReport(t, e, report)
	}
}

// recordingT records the failures the middleware reports.
type recordingT struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingT) Error(args ...any) { r.add(fmt.Sprint(args...)) }

func (r *recordingT) Errorf(format string, args ...any) { r.add(fmt.Sprintf(format, args...)) }

func (r *recordingT) add(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, msg)
}

// TestCheckingFailsTheTest: the middleware of the test servers fails the
// test (t.Error) when a fake service's exchange does not match the
// document, passes the answer on unchanged, and reports nothing for one
// that matches.
func TestCheckingFailsTheTest(t *testing.T) {
	s := New(t, testdb.SQLite(t))
	s.Document(t) // the document, read once for the test binary
	for _, e := range exchanges {
		rt := &recordingT{TB: t}
		fake := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if string(body) != e.body {
				t.Errorf("%s: the service got body %q, want %q", e.name, body, e.body)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(e.status)
			_, _ = io.WriteString(w, e.answer)
		})
		r := e.request()
		if e.bad {
			r.Header.Set(badInputHeader, "1")
		}
		rec := httptest.NewRecorder()
		checking(rt, fake, s.App.RPC().Arguments).ServeHTTP(rec, r)
		if rec.Code != e.status || rec.Body.String() != e.answer {
			t.Errorf("%s: answered %d %s, want %d %s", e.name, rec.Code, rec.Body, e.status, e.answer)
		}
		checkReport(t, e, strings.Join(rt.errors, "\n"))
	}
}
