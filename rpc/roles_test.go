package rpc_test

import (
	"net/http"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestRolesPerOperation is generated from the permission table
// (staff.Resources, staff.Exceptions): for every registered operation and
// every role, an admin token of that role is refused 403 forbidden when
// staff.Allowed says no, and is not refused for its role when it says yes
// (the answer may be another error: the arguments are empty). A token
// naming an unknown role is refused everything.
func TestRolesPerOperation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := apitest.New(t, db)
		ops := s.App.RPC().Ops()
		if len(ops) < 50 {
			t.Fatalf("only %d operations registered", len(ops))
		}
		claims := func(r staff.Role) commerce.Claims {
			return commerce.Claims{Subject: "t-" + string(r), Scopes: []string{commerce.ScopeAdmin}, Role: string(r)}
		}
		refused, passed := 0, 0
		for _, op := range ops {
			path := op.Service + "/" + op.Versions[0] + "/" + op.Name
			write := !op.Read && !staff.ReadOps[op.Name]
			if _, ok := staff.Resources[staff.Resource(op.Name)]; !ok {
				if _, ok := staff.Exceptions[op.Name]; !ok {
					t.Errorf("%s: its resource %q has no row in staff.Resources", op.Name, staff.Resource(op.Name))
				}
			}
			for _, r := range staff.Roles {
				// In process, as the admin app calls (the HTTP path runs
				// the same check: see below).
				_, err := s.App.RPC().Call(t.Context(), claims(r), path, map[string]any{})
				if staff.Allowed(r, op.Name, write) {
					passed++
					if commerce.ErrorCode(err) == commerce.EForbidden {
						t.Errorf("%s as %s: forbidden, want it allowed: %v", op.Name, r, err)
					}
				} else {
					refused++
					if commerce.ErrorCode(err) != commerce.EForbidden || rpc.Status(commerce.ErrorCode(err)) != http.StatusForbidden {
						t.Errorf("%s as %s: %v, want 403 forbidden", op.Name, r, err)
					}
				}
			}
		}
		if refused == 0 || passed == 0 {
			t.Fatalf("%d refused, %d passed: the table decides nothing", refused, passed)
		}
		// Over HTTP, with tokens carrying the claim role.
		tok := func(r string) string {
			return s.Token(t, commerce.Claims{Subject: "t-" + r, Scopes: []string{commerce.ScopeAdmin}, Role: r})
		}
		s.Get(t, "/catalog/v1/product.list", tok("catalog")).Must(t)
		s.Get(t, "/order/v1/order.list", tok("catalog")).Expect(t, http.StatusForbidden, commerce.EForbidden)
		s.Post(t, "/catalog/v1/product.create", tok("orders"), map[string]any{"sku": "s1", "title": "T"}).Expect(t, http.StatusForbidden, commerce.EForbidden)
		s.Get(t, "/audit/v1/audit.list", tok("support")).Expect(t, http.StatusForbidden, commerce.EForbidden)
		s.Get(t, "/audit/v1/audit.list", tok("owner")).Must(t)
		s.Get(t, "/audit/v1/audit.list", s.Admin).Must(t) // no role: admin
		bad := s.Token(t, commerce.Claims{Subject: "t-x", Scopes: []string{commerce.ScopeAdmin}, Role: "janitor"})
		s.Get(t, "/catalog/v1/product.list", bad).Expect(t, http.StatusForbidden, commerce.EForbidden)
	})
}
