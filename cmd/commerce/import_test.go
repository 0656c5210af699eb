package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestImportCommand uploads a file to a running service, follows the job
// with a progress bar and reports each rejected row; a refused file and a
// token without the admin scope are errors.
func TestImportCommand(t *testing.T) {
	srv := apitest.New(t, testdb.SQLite(t))
	dir := t.TempDir()
	file := filepath.Join(dir, "products.csv")
	os.WriteFile(file, []byte("sku,status,title,categories,price.USD\nA-1,ONLINE,First,Things,1.50\nA-2,ONLINE,Second,Things,\"1,50\"\n"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("sku,colour\nA,red\n"), 0o644)
	run1 := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"import"}, args...), func(string) string { return "" }, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	out, errOut, err := run1(file, "--url", srv.URL, "--token", srv.Admin)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, ": 2 rows: 1 created, 0 updated, 0 unchanged, 1 rejected\n") ||
		!strings.Contains(out, `line 3 A-2: validation_error ["price.USD: must be an amount`) {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(errOut, "] 2/2 rows") {
		t.Errorf("no progress bar: %q", errOut)
	}
	out, _, err = run1("--dry-run", "--url", srv.URL, "--token", srv.Admin, file)
	if err != nil || !strings.Contains(out, "dry run (nothing written)") || !strings.Contains(out, "0 created, 0 updated, 1 unchanged, 1 rejected") {
		t.Errorf("dry run: %v\n%s", err, out)
	}
	if _, _, err := run1(bad, "--url", srv.URL, "--token", srv.Admin); err == nil || !strings.Contains(err.Error(), `unknown column`) {
		t.Errorf("bad file: %v", err)
	}
	if _, _, err := run1(file, "--url", srv.URL, "--token", srv.API); err == nil || !strings.Contains(err.Error(), "403 forbidden") {
		t.Errorf("api token: %v", err)
	}
	if _, _, err := run1("--url", srv.URL); err == nil || !strings.Contains(err.Error(), "want one FILE") {
		t.Errorf("no file: %v", err)
	}
	if _, _, err := run1(file, "--format", "shopify", "--url", srv.URL, "--token", srv.Admin); err == nil || !strings.Contains(err.Error(), "Handle column is required") {
		t.Errorf("shopify format of a commerce file: %v", err)
	}
}
