package rpc_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// pathOpWrites says which operations of paths of their own
// (rpc.Server.PathOps, which have no Op) change anything.
var pathOpWrites = map[string]bool{"media.upload": true, "media.get": false, "oauth.token": false}

// auditRows returns every entry of the log by id, as JSON (to compare).
func auditRows(t *testing.T, db *sqldb.DB) map[string]string {
	t.Helper()
	es, _, err := sqldb.NewAuditStore(db).Entries(context.Background(), audit.Filter{Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(es))
	for _, e := range es {
		b, _ := json.Marshal(e)
		out[e.ID] = string(b)
	}
	return out
}

// TestAuditEveryOperation is generated from the registry of operations
// (rpc.Server.Ops and PathOps) and the permission table's notion of a
// change (staff.ReadOps): every operation has an example
// (auditExamples, audit_examples_test.go; an operation without one fails
// here, by name). Run by an admin token, an operation that changes
// anything writes exactly one entry (its action, the token's subject and
// role, a target), one that only reads writes none; the example's
// refused arguments write none; and no operation changes or removes an
// entry written before it (there is no audit.update or audit.remove:
// audit.list is the one operation on the log).
func TestAuditEveryOperation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		w := newWorld(t, db)
		type opRef struct {
			name, path string
			writes     bool
		}
		var ops []opRef
		for _, op := range w.s.App.RPC().Ops() {
			ops = append(ops, opRef{name: op.Name, path: "/" + op.Service + "/" + op.Versions[len(op.Versions)-1] + "/" + op.Name,
				writes: !op.Read && !staff.ReadOps[op.Name]})
			if staff.Resource(op.Name) == "audit" && op.Name != "audit.list" {
				t.Errorf("%s: an operation on the audit log besides audit.list", op.Name)
			}
		}
		for _, name := range w.s.App.RPC().PathOps() {
			writes, ok := pathOpWrites[name]
			if !ok {
				t.Errorf("%s: an operation of its own path that pathOpWrites does not classify", name)
			}
			ops = append(ops, opRef{name: name, writes: writes})
		}
		if len(ops) < 90 {
			t.Fatalf("only %d operations", len(ops))
		}
		names := map[string]bool{}
		writes := 0
		for _, op := range ops {
			names[op.name] = true
			if op.writes {
				writes++
			}
		}
		for name := range auditExamples {
			if !names[name] {
				t.Errorf("auditExamples has %s, which is no registered operation", name)
			}
		}
		if writes < 50 {
			t.Fatalf("only %d changing operations", writes)
		}
		call := func(ex auditExample, op opRef, args any, bad bool) apitest.Response {
			if ex.call != nil {
				return ex.call(w, args)
			}
			s := w.s
			if bad && ex.offDoc {
				s = s.BadInput()
			}
			return s.Post(t, op.path, s.Admin, args)
		}
		for _, op := range ops {
			ex, ok := auditExamples[op.name]
			if !ok {
				t.Errorf("%s: no example in auditExamples (rpc/audit_examples_test.go): every operation needs one", op.name)
				continue
			}
			for _, bad := range []bool{false, true} {
				var args any
				if bad {
					args = ex.bad(w)
				} else {
					args = ex.good(w)
				}
				before := auditRows(t, db)
				res := call(ex, op, args, bad)
				after := auditRows(t, db)
				switch {
				case !bad && (!res.OK || res.Status != http.StatusOK):
					t.Errorf("%s: the example failed: %d %s", op.name, res.Status, res.Raw)
					continue
				case bad && res.OK:
					t.Errorf("%s: the refused example succeeded: %s", op.name, res.Raw)
					continue
				case bad && res.Status >= 500:
					t.Errorf("%s: the refused example: %d %s, want a client error", op.name, res.Status, res.Raw)
				}
				for id, row := range before {
					if after[id] != row {
						t.Errorf("%s: the entry %s changed: %s, now %q", op.name, id, row, after[id])
					}
				}
				var added []audit.Entry
				for id, row := range after {
					if _, ok := before[id]; !ok {
						var e audit.Entry
						_ = json.Unmarshal([]byte(row), &e)
						added = append(added, e)
					}
				}
				want := 0
				if op.writes && !bad {
					want = 1
				}
				if len(added) != want {
					t.Errorf("%s (refused %v): %d entries written, want %d: %+v", op.name, bad, len(added), want, added)
					continue
				}
				if want == 1 {
					e := added[0]
					if e.Action != op.name || e.Actor != "admin-user" || e.Role != string(staff.RoleAdmin) || e.Target.Kind == "" ||
						e.Target.ID == "" || e.IP == "" {
						t.Errorf("%s: entry %+v, want its action, the admin's subject and role, a target and the address", op.name, e)
					}
				}
			}
		}
	})
}
