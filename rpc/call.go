package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/commercekit/commerce"
)

// Call runs the operation at path ("catalog/v1/product.list") in process,
// as the caller with the claims, with args marshaled to JSON as a request
// body: the same argument checks, the same service call and the same
// errors as over HTTP, without a token. The admin app calls the service
// this way, as the signed-in staff member. It returns the answer as the
// HTTP body would hold it ({"ok":true, ...}).
func (s *Server) Call(ctx context.Context, claims commerce.Claims, path string, args any) (out json.RawMessage, err error) {
	return s.CallOnce(ctx, claims, path, args, "")
}

// CallOnce is Call under an idempotency key (docs/api.md section 18), as a
// POST with the Idempotency-Key header runs: the first call with the key
// (scoped to the claims, idemScope) runs and its answer is stored; a later one
// with the same key, operation and arguments gets that answer again (an
// error as the same code and data) without running; the same key with
// other arguments is idempotency_key_reused, and while the first call runs
// idempotency_key_in_use. A call under a key runs to its end even when ctx
// is cancelled. With an empty key, or no idempotency store
// (SetIdempotency), it is Call.
func (s *Server) CallOnce(ctx context.Context, claims commerce.Claims, path string, args any, key string) (out json.RawMessage, err error) {
	rt := s.routes[path]
	if rt == nil {
		return nil, commerce.NewError(commerce.EOperationNotFound, nil)
	}
	if rt.op.Admin && !claims.IsAdmin() {
		return nil, commerce.Errorf(commerce.EForbidden, "%s needs the admin scope", rt.op.Name)
	}
	if err := authorize(claims, rt.op); err != nil {
		return nil, err
	}
	body := []byte("{}")
	if args != nil {
		if body, err = json.Marshal(args); err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "marshal the arguments of %s: %w", path, err)
		}
	}
	if key == "" || s.idem == nil {
		return s.call(ctx, claims, rt, body)
	}
	if key, err = idempotencyKey([]string{key}); err != nil {
		return nil, err
	}
	scope := idemScope(claims, "")
	seal := newIdemSeal(scope, key)
	st, stored, err := s.idem.Begin(ctx, scope, seal.id, seal.fingerprint(fingerprint(rt.op, rt.fields, nil, body)), s.idemNow())
	if err != nil {
		return nil, err
	}
	if st != 0 {
		if stored, err = seal.open(stored); err != nil {
			return nil, err
		}
		return replay(st, stored)
	}
	run := &idemRun{store: s.idem, scope: scope, key: seal.id, seal: seal, rec: &Recorder{}}
	status := http.StatusInternalServerError
	defer func() { run.finish(ctx, s, status) }()
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), idempotentRunLimit)
	defer cancel()
	out, err = s.call(runCtx, claims, rt, body)
	answer := out
	if err != nil {
		var merr error
		if answer, merr = json.Marshal(errorBody{Error: commerce.ErrorCode(err), Data: commerce.ErrorData(err)}); merr != nil {
			return out, err // status stays 500: the key is given up, not stored with no answer
		}
		status = Status(commerce.ErrorCode(err))
	} else {
		status = http.StatusOK
	}
	run.rec.Status = status
	run.rec.Body.Write(answer)
	return out, err
}

// call runs the operation with the JSON body, turning a panic into an
// internal error.
func (s *Server) call(ctx context.Context, claims commerce.Claims, rt *route, body []byte) (out json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("panic", "operation", rt.op.Name, "panic", p)
			out, err = nil, panicError(p)
		}
	}()
	res, err := rt.call(audited(commerce.WithClaims(ctx, claims), claims, rt.op, ""), nil, body)
	if err != nil {
		return nil, err
	}
	return envelope(res)
}

// replay returns a stored answer as CallOnce's: the body of a success, or
// the error of an error answer (its code and data; a validation_error's
// data as the list of problems).
func replay(status int, body []byte) (json.RawMessage, error) {
	if status == http.StatusOK {
		return body, nil
	}
	var e struct {
		Error string          `json:"error"`
		Data  json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		return nil, commerce.Errorf(commerce.EInternal, "idempotency key: stored answer %d is no error body", status)
	}
	var data any
	if len(e.Data) > 0 {
		if e.Error == commerce.EValidation {
			var problems []string
			if json.Unmarshal(e.Data, &problems) == nil {
				data = problems
			}
		}
		if data == nil {
			d := json.NewDecoder(bytes.NewReader(e.Data))
			d.UseNumber()
			_ = d.Decode(&data)
		}
	}
	return nil, commerce.NewError(e.Error, data)
}

// Has reports whether an operation is registered at path
// ("order/v1/order.list").
func (s *Server) Has(path string) bool { return s.routes[path] != nil }
