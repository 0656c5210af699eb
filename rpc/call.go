package rpc

import (
	"context"
	"encoding/json"

	"github.com/commercekit/commerce"
)

// Call runs the operation at path ("catalog/v1/product.list") in process,
// as the caller with the claims, with args marshaled to JSON as a request
// body: the same argument checks, the same service call and the same
// errors as over HTTP, without a token. The admin app calls the service
// this way, as the signed-in staff member. It returns the answer's
// properties (without "ok") as JSON.
func (s *Server) Call(ctx context.Context, claims commerce.Claims, path string, args any) (out json.RawMessage, err error) {
	rt := s.routes[path]
	if rt == nil {
		return nil, commerce.NewError(commerce.EOperationNotFound, nil)
	}
	if rt.op.Admin && !claims.IsAdmin() {
		return nil, commerce.Errorf(commerce.EForbidden, "%s needs the admin scope", rt.op.Name)
	}
	body := []byte("{}")
	if args != nil {
		if body, err = json.Marshal(args); err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "marshal the arguments of %s: %w", path, err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("panic", "operation", rt.op.Name, "panic", p)
			out, err = nil, panicError(p)
		}
	}()
	res, err := rt.call(commerce.WithClaims(ctx, claims), nil, body)
	if err != nil {
		return nil, err
	}
	return envelope(res)
}

// Has reports whether an operation is registered at path
// ("order/v1/order.list").
func (s *Server) Has(path string) bool { return s.routes[path] != nil }
