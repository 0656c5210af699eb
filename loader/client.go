package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// APIError is an error answer of the service, {"ok": false, "error": Code,
// "data": Data}, or a problem the loader found in a record before sending
// it (Status 0).
type APIError struct {
	Op     string          // the operation called, e.g. "product.create"
	Status int             // HTTP status; 0 when the loader detected the problem
	Code   string          // the error code, e.g. "validation_error"
	Data   json.RawMessage // the error's data as the service sent it; nil when none
}

// Error implements the error interface.
func (e *APIError) Error() string {
	s := e.Op + ": " + e.Code
	if e.Status != 0 {
		s = fmt.Sprintf("%s: HTTP %d %s", e.Op, e.Status, e.Code)
	}
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " " + string(e.Data)
	}
	return s
}

// Error codes the loader treats specially. invalid_json and
// category_not_found (for an unresolvable categoryIdByTitle reference) are
// also the codes the loader itself reports for records it cannot send.
const (
	codeInvalidToken      = "invalid_token"
	codeForbidden         = "forbidden"
	codeUnavailable       = "unavailable"
	codeOperationNotFound = "operation_not_found"
	codeCategoryNotFound  = "category_not_found"
	codeInvalidJSON       = "invalid_json"
)

// FatalError is a problem that stops the whole load: the service cannot be
// reached or does not answer as the commerce service, the token is refused,
// or the storage is unavailable.
type FatalError struct {
	Err error
}

// Error implements the error interface.
func (e *FatalError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *FatalError) Unwrap() error { return e.Err }

// isFatal reports whether err must stop the load rather than reject one record.
func isFatal(err error) bool {
	var fe *FatalError
	if errors.As(err, &fe) {
		return true
	}
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.Code {
		case codeInvalidToken, codeForbidden, codeUnavailable:
			return true
		}
		return false
	}
	return true // a transport error, a cancelled context
}

// explain turns a fatal error into a message that says what to do.
func explain(err error, base string) error {
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.Code {
		case codeInvalidToken:
			return &FatalError{fmt.Errorf("the service refused the token (%s): check --token or COMMERCE_TOKEN", ae.Code)}
		case codeForbidden:
			return &FatalError{fmt.Errorf("the token lacks the admin scope (%s): loading needs an admin token", ae.Code)}
		case codeUnavailable:
			return &FatalError{fmt.Errorf("the service's storage is unavailable (%s)", ae.Code)}
		}
	}
	var fe *FatalError
	if errors.As(err, &fe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &FatalError{fmt.Errorf("cannot reach the service at %s: %w", base, err)}
}

// client calls the service's operations over HTTP.
type client struct {
	base  string // without a trailing slash
	token string
	http  *http.Client
}

// newClient returns a client of the service at base. A nil hc gets a client
// keeping up to workers idle connections to the host, so a worker pool
// reuses its connections.
func newClient(base, token string, hc *http.Client, workers int) *client {
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = workers + 2
		hc = &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	}
	return &client{base: strings.TrimRight(base, "/"), token: token, http: hc}
}

// call sends the operation at path ("/catalog/v1/category.list") with the
// query and, when body is not nil, a JSON body (POST; GET otherwise). It
// returns the properties of a successful response, an *APIError for an
// error response, and a *FatalError or transport error for anything else.
func (c *client) call(ctx context.Context, path string, query url.Values, body []byte) (map[string]json.RawMessage, error) {
	op := path[strings.LastIndex(path, "/")+1:]
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	method := http.MethodGet
	var rd io.Reader
	if body != nil {
		method = http.MethodPost
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, &FatalError{fmt.Errorf("--url %q: %w", c.base, err)}
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(raw, &env); err != nil || env["ok"] == nil {
		return nil, &FatalError{fmt.Errorf("%s %s: HTTP %d and a body that is not the service's JSON envelope: is %s the commerce service?",
			method, path, res.StatusCode, c.base)}
	}
	if string(env["ok"]) == "true" {
		return env, nil
	}
	ae := &APIError{Op: op, Status: res.StatusCode}
	if err := json.Unmarshal(env["error"], &ae.Code); err != nil || ae.Code == "" {
		ae.Code = fmt.Sprintf("http_%d", res.StatusCode)
	}
	if d := env["data"]; len(d) > 0 && string(d) != "null" {
		ae.Data = d
	}
	return nil, ae
}
