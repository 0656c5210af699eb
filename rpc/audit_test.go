package rpc_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

func auditEntries(t *testing.T, s *apitest.Server, query string) []audit.Entry {
	t.Helper()
	var l audit.List
	r := s.Get(t, "/audit/v1/audit.list?limit=100"+query, s.Admin).Must(t)
	if err := json.Unmarshal(r.Raw, &l); err != nil {
		t.Fatal(err)
	}
	return l.Data
}

// TestAuditLog: every admin change writes exactly one entry in its
// transaction, with the actor, role, action, target, changes and ip; a
// failed one writes none; secrets are never recorded; audit.list filters;
// entries cannot be changed (no operation does, and the database refuses).
func TestAuditLog(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := apitest.New(t, db)
		cat := s.Token(t, commerce.Claims{Subject: "cat-bot", Scopes: []string{commerce.ScopeAdmin}, Role: "catalog"})
		if n := len(auditEntries(t, s, "")); n != 0 {
			t.Fatalf("%d entries before any change", n)
		}
		var c struct{ ID string }
		s.Post(t, "/catalog/v1/category.create", cat, map[string]any{"title": "Audit", "slug": "audit"}).Must(t).Decode(t, "category", &c)
		if n := len(auditEntries(t, s, "")); n != 1 {
			t.Fatalf("after category.create: %d entries, want 1", n)
		}
		product := func(sku, title string) map[string]any {
			return map[string]any{"sku": sku, "status": "DRAFT", "title": title, "categories": []string{c.ID}, "stockStatus": 0}
		}
		// A change: one entry.
		r := s.Post(t, "/catalog/v1/product.create", cat, product("AUD-1", "Audited")).Must(t)
		var p struct {
			ID string `json:"id"`
		}
		r.Decode(t, "product", &p)
		got := auditEntries(t, s, "&action=product.create")
		if len(got) != 1 {
			t.Fatalf("after product.create: %d entries, want 1: %+v", len(got), got)
		}
		e := got[0]
		if e.Actor != "cat-bot" || e.Role != "catalog" || e.Action != "product.create" || e.Target != (audit.Target{Kind: "product", ID: p.ID}) ||
			e.IP == "" || e.Changes["title"].After != "Audited" {
			t.Errorf("entry %+v", e)
		}
		// A failed change: none.
		s.Post(t, "/catalog/v1/product.create", cat, product("AUD-1", "Again")).Expect(t, http.StatusConflict, commerce.EDuplicateKey)
		s.Post(t, "/catalog/v1/product.update", cat, map[string]any{"id": "nope", "title": "X"}).Expect(t, http.StatusNotFound, commerce.EProductNotFound)
		// A read: none.
		s.Get(t, "/catalog/v1/product.list", cat).Must(t)
		if n := len(auditEntries(t, s, "")); n != 2 {
			t.Fatalf("after a failed change and a read: %d entries, want 2", n)
		}
		// An update records before and after.
		s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": p.ID, "title": "Renamed"}).Must(t)
		got = auditEntries(t, s, "&action=product.update")
		if len(got) != 1 || got[0].Actor != "admin-user" || got[0].Role != "admin" || got[0].Changes["title"].Before != "Audited" || got[0].Changes["title"].After != "Renamed" {
			t.Errorf("product.update entry: %+v", got)
		}
		// A change without an event (client.create): one entry, no secret.
		r = s.Post(t, "/customer/v1/client.create", s.Admin, map[string]any{"name": "ERP", "scope": "admin", "role": "orders"}).Must(t)
		secret := string(r.Body["clientSecret"])
		got = auditEntries(t, s, "&action=client.create")
		if len(got) != 1 || got[0].Changes["role"].After != "orders" || got[0].Changes["secret"].After != audit.Redacted {
			t.Errorf("client.create entry: %+v", got)
		}
		raw := string(s.Get(t, "/audit/v1/audit.list?limit=100", s.Admin).Must(t).Raw)
		if secret == "" || strings.Contains(raw, strings.Trim(secret, `"`)) {
			t.Errorf("the client's secret %s is in the log (or was not answered): %s", secret, raw)
		}
		if n := len(auditEntries(t, s, "")); n != 4 {
			t.Errorf("%d entries after 4 changes, want 4", n)
		}
		// Filters.
		if got := auditEntries(t, s, "&actor=cat-bot"); len(got) != 2 {
			t.Errorf("actor filter: %d entries, want 2", len(got))
		}
		if got := auditEntries(t, s, "&target=product:"+p.ID); len(got) != 2 {
			t.Errorf("target filter: %d entries, want 2", len(got))
		}
		if got := auditEntries(t, s, "&from=2999-01-01T00:00:00Z"); len(got) != 0 {
			t.Errorf("from filter: %d entries, want 0", len(got))
		}
		s.Get(t, "/audit/v1/audit.list?from=yesterday", s.Admin).Expect(t, http.StatusBadRequest, commerce.EValidation)
		// Entries cannot be changed: no operation, and the database refuses.
		for _, op := range []string{"audit.update", "audit.remove"} {
			s.BadInput().Post(t, "/audit/v1/"+op, s.Admin, map[string]any{}).Expect(t, http.StatusNotFound, commerce.EOperationNotFound)
		}
		for _, q := range []string{`UPDATE audit_log SET actor = 'someone else'`, `DELETE FROM audit_log`} {
			err := db.Update(context.Background(), func(tx *sqldb.Tx) error { _, err := tx.Exec(context.Background(), q); return err })
			if err == nil {
				t.Errorf("%s: no error, want the database to refuse", q)
			}
		}
		if n := len(auditEntries(t, s, "&actor=cat-bot")); n != 2 {
			t.Errorf("after the refused statements: %d entries of cat-bot, want 2", n)
		}
	})
}
