package admin_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
	"github.com/commercekit/commerce/testkit/testdb"
)

// postImport posts the import form with a file, as the browser does.
func (b *browser) postImport(csrf, name, file string, fields map[string]string) page {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", csrf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write([]byte(file))
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, b.base+"/admin/imports", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

const importCSV = "sku,status,title,categories,price.USD,stock.main\n" +
	"IMP-1,ONLINE,Imported one,Imports,10.50,3\n" +
	"IMP-2,ONLINE,Imported two,Imports,\"12,50\",1\n" +
	"IMP-3,DRAFT,Imported three,Imports,7,\n"

var jobLinkRE = regexp.MustCompile(`^/admin/imports/([^/?#]+)$`)

// TestImportPageRoles: the import page is the roles' that may import
// products (owner, admin, catalog: staff.Exceptions["product.import"]),
// linked in their menu; orders and support may neither open it, post a
// file to it nor open a job's page (403), and their menu has no link. A
// catalog member's upload starts a job whose page shows its counts and
// its error with line and column; the file is checked as a whole first
// (a missing file, an unknown column: the form again with the error,
// nothing started).
func TestImportPageRoles(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		cat, _ := e.member(t, "cat@example.com", staff.RoleCatalog)
		csrf := cat.csrf("/admin/")
		if p := cat.get("/admin/imports"); p.Status != http.StatusOK || !strings.Contains(p.Body, `id="import-form"`) {
			t.Fatalf("catalog GET /admin/imports: %d", p.Status)
		}
		if dash := cat.get("/admin/").Body; !strings.Contains(dash, `href="/admin/imports"`) {
			t.Errorf("the catalog role's menu has no import link")
		}
		p := cat.postImport(csrf, "products.csv", importCSV, nil)
		m := jobLinkRE.FindStringSubmatch(p.Location)
		if p.Status != http.StatusSeeOther || m == nil {
			t.Fatalf("catalog POST /admin/imports: %d %q\n%s", p.Status, p.Location, p.Body)
		}
		jobPage := p.Location
		deadline := time.Now().Add(30 * time.Second)
		for {
			p = cat.get(jobPage)
			if p.Status != http.StatusOK {
				t.Fatalf("GET %s: %d", jobPage, p.Status)
			}
			if !strings.Contains(p.Body, `hx-trigger="every 1s"`) {
				break // the job has ended: the page stops asking
			}
			if time.Now().After(deadline) {
				t.Fatalf("the job is still running:\n%s", p.Body)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, want := range []string{`id="job-status">DONE<`, `id="count-created">2<`, `id="count-rejected">1<`,
			`data-label="Line">3<`, `data-label="SKU">IMP-2<`, `data-label="Column">price.USD<`, `<code>validation_error</code>`,
			"Must be an amount in major units with a dot"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the job's page has no %s", want)
			}
		}

		// Refused as a whole: the form again, with the error.
		for name, c := range map[string]struct{ file, name, want string }{
			"no file":        {"", "", "File"},
			"unknown column": {"sku,colour\nA,red\n", "bad.csv", "colour"},
		} {
			p := cat.postImport(csrf, c.name, c.file, nil)
			if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, `data-code="validation_error"`) || !strings.Contains(p.Body, c.want) {
				t.Errorf("%s: %d, want 400 with the form's error naming %s\n%s", name, p.Status, c.want, p.Body)
			}
		}

		for _, role := range []staff.Role{staff.RoleOrders, staff.RoleSupport} {
			b, _ := e.member(t, string(role)+"@example.com", role)
			csrf := b.csrf("/admin/")
			if dash := b.get("/admin/").Body; strings.Contains(dash, `href="/admin/imports"`) {
				t.Errorf("%s: the menu links the import page", role)
			}
			for _, path := range []string{"/admin/imports", jobPage} {
				if p := b.get(path); p.Status != http.StatusForbidden {
					t.Errorf("%s GET %s: %d, want 403", role, path, p.Status)
				}
			}
			if p := b.postImport(csrf, "products.csv", importCSV, nil); p.Status != http.StatusForbidden {
				t.Errorf("%s POST /admin/imports: %d, want 403", role, p.Status)
			}
		}
	})
}
