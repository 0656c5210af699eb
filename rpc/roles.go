package rpc

import (
	"context"
	"net"
	"net/http"
	"sort"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/staff"
)

// writes reports whether an operation changes anything: it is not
// declared Read and is not one of the reads that are POST only
// (staff.ReadOps).
func writes(op Op) bool { return !op.Read && !staff.ReadOps[op.Name] }

// authorize refuses an admin whose role may not run the operation
// (docs/api.md section 28): the one place where the API checks roles,
// against the one table (staff.Allowed), for tokens and clients of scope
// admin over HTTP and for the admin app's calls in process alike. Tokens
// without the admin scope are not concerned: their rights are the
// operations' own.
func authorize(c commerce.Claims, op Op) error {
	if !c.IsAdmin() {
		return nil
	}
	role, ok := staff.ParseRole(c.Role)
	if !ok {
		return commerce.Errorf(commerce.EForbidden, "unknown role %q", c.Role)
	}
	if !staff.Allowed(role, op.Name, writes(op)) {
		return commerce.Errorf(commerce.EForbidden, "the role %s may not run %s", role, op.Name)
	}
	return nil
}

// audited returns ctx with the audit scope of a changing operation run by
// an admin (audit.With): the storage writes its entry in the change's
// transaction. The actor is the caller's (audit.WithCaller: the admin
// app's staff member's email) or the claims' subject (a token's sub, a
// client's id); ip is the request's address when the context has none.
func audited(ctx context.Context, c commerce.Claims, op Op, ip string) context.Context {
	if !c.IsAdmin() || !writes(op) {
		return ctx
	}
	role, _ := staff.ParseRole(c.Role)
	actor, cip := audit.CallerFrom(ctx)
	if actor == "" {
		actor = c.Subject
	}
	if cip != "" {
		ip = cip
	}
	return audit.With(ctx, &audit.Scope{Actor: actor, Role: string(role), Action: op.Name, IP: ip})
}

// remoteIP is the address a request came from: the connection's (a
// header such as X-Forwarded-For could be anyone's).
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Ops returns the registered operations, each once, sorted by name (the
// permission test walks them all).
func (s *Server) Ops() []Op {
	seen := map[string]bool{}
	var out []Op
	for _, rt := range s.routes {
		if !seen[rt.op.Name] {
			seen[rt.op.Name] = true
			out = append(out, rt.op)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PathOps returns the names of the operations served on paths of their
// own (HandlePath: media.upload, media.get), each once, sorted: with
// Ops, every operation the server answers.
func (s *Server) PathOps() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range s.paths {
		if !seen[p.operation] {
			seen[p.operation] = true
			out = append(out, p.operation)
		}
	}
	sort.Strings(out)
	return out
}
