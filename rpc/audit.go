package rpc

import (
	"context"

	"github.com/commercekit/commerce/audit"
)

// RegisterAudit registers audit.list under /audit/v1/ (docs/api.md
// section 28): owners and admins only (staff.Resources' row "audit"), read
// (GET or POST). There is no operation that changes or removes an entry.
func RegisterAudit(s *Server, svc *audit.Service) {
	Handle(s, Op{Service: "audit", Name: "audit.list", Read: true, Admin: true, Result: audit.List{},
		Doc: "The audit log, newest first: who (actor, role) changed what (action, target, changes; secrets never) from where (ip), filtered by actor, target, action and time."},
		func(ctx context.Context, a *audit.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
}
