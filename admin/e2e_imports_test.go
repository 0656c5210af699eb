package admin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

// TestAdminImport: in a browser, a job's page follows the job while it
// runs (its progress bar, replaced without a reload once the job has
// ended), then staff upload a CSV with one bad row and see the counts and
// the row's error with its line, column and message.
func TestAdminImport(t *testing.T) {
	chromium(t)
	e := newEnv(t, testdb.SQLite(t))
	u := newUI(t, e.URL)
	u.open("/admin/")
	u.fill("#email", staffEmail, "#password", staffPassword)
	u.submit(`form button[type=submit]`)
	u.run(chromedp.WaitVisible(css("#active-carts")))

	// A job running (in another process: its row, beating now): the page
	// shows its progress and follows it.
	store := sqldb.NewTransferStore(e.DB)
	now := e.clock.Now()
	j := &transfer.Job{ID: "running-job", Status: transfer.JobRunning, Format: transfer.FormatCommerce, Rows: 2500, Processed: 1000,
		Created: 990, Rejected: 10, Errors: []transfer.RowError{}, StartedAt: now, Beat: now}
	if err := store.CreateJob(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	u.open("/admin/imports/running-job")
	u.expect("#job-status", "RUNNING")
	u.expect("#job-progress", "1000 of 2500 rows done")
	if v := get(u, chromedp.Evaluate[float64](`document.querySelector('#job-bar').value`)); v != 1000 {
		t.Errorf("progress bar at %v, want 1000", v)
	}
	u.screenshot("import-running")
	j.Processed, j.Created, j.Updated, j.Status = 2500, 2400, 90, transfer.JobDone
	j.FinishedAt, j.Beat = &now, now
	if err := store.SaveJob(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	u.run(chromedp.Evaluate[chromedp.Void](`document.querySelector('main').setAttribute('data-stale', '')`))
	u.run(chromedp.Poll[chromedp.Void](`document.querySelector('#job-status').textContent === 'DONE'`))
	if stale := get(u, chromedp.Evaluate[bool](`document.querySelector('main').hasAttribute('data-stale')`)); !stale {
		t.Error("the page was reloaded: the job's card should have been replaced in place")
	}
	u.expect("#count-updated", "90")
	if n := get(u, chromedp.Evaluate[int](`document.querySelectorAll('#job-progress').length`)); n != 0 {
		t.Error("the progress bar is still shown after the job's end")
	}

	// An upload with one bad row.
	file := filepath.Join(t.TempDir(), "products.csv")
	os.WriteFile(file, []byte(importCSV), 0o644)
	u.open("/admin/imports")
	u.screenshot("import-form")
	u.run(chromedp.SetUploadFiles(css("#file"), []string{file}))
	u.submit("#start-import")
	u.run(chromedp.Poll[chromedp.Void](`document.querySelector('#job-status').textContent === 'DONE'`))
	u.expect("#count-created", "2")
	u.expect("#count-rejected", "1")
	u.expect("#import-errors tbody tr", "3")
	u.expect("#import-errors tbody tr", "IMP-2")
	u.expect("#import-errors tbody tr", "price.USD")
	u.expect("#import-errors tbody tr", "Must be an amount in major units with a dot")
	u.screenshot("import-done")

	// Refused as a whole: the error next to the form.
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("sku,colour\nA,red\n"), 0o644)
	u.open("/admin/imports")
	u.run(chromedp.SetUploadFiles(css("#file"), []string{bad}))
	u.submit("#start-import")
	u.expect("#import-form .error", "colour")
	u.screenshot("import-refused")
}
