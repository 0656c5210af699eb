package apitest_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestDocsPageOffline renders /docs in headless Chromium that can reach
// nothing but the test server: the page must load only its own assets
// and show every operation of /openapi.json. With
// COMMERCE_ADMIN_SCREENSHOTS set, it saves a screenshot there.
func TestDocsPageOffline(t *testing.T) {
	path := os.Getenv("COMMERCE_CHROMIUM")
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		t.Skip("the /docs page test needs Chromium: apt-get install -y chromium (or set COMMERCE_CHROMIUM); .ci/run installs it")
	}
	s := apitest.New(t, testdb.SQLite(t))
	raw, _ := s.Document(t)
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	ops := 0
	for _, item := range d.Paths {
		delete(item, "servers") // not an operation
		ops += len(item)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800), chromedp.Flag("disable-dev-shm-usage", true),
		// No name resolves, and only the test server's address is reached.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/docs"), chromedp.WaitVisible(chromedp.CSS(".opblock-tag"))); err != nil {
		t.Fatalf("/docs: %v", err)
	}
	// Every operation, under its path and method. The tags start
	// collapsed: open each in turn, read its operations, close it.
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
		const sleep = ms => new Promise(r => setTimeout(r, ms));
		const out = [];
		const count = () => document.querySelectorAll('.opblock-tag').length;
		for (let i = 0; i < count(); i++) {
			const tag = document.querySelectorAll('.opblock-tag')[i];
			const section = tag.closest('.opblock-tag-section');
			tag.click();
			let last = -1;
			for (let n = 0; n < 200; n++) {
				await sleep(50);
				const k = section.querySelectorAll('.opblock').length;
				if (k > 0 && k === last) break;
				last = k;
			}
			for (const b of section.querySelectorAll('.opblock')) {
				out.push((b.querySelector('.opblock-summary-method') || {}).textContent + ' ' + (b.querySelector('[data-path]') || {dataset: {}}).dataset.path);
			}
			tag.click();
			await sleep(50);
		}
		return out;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) < ops {
		t.Errorf("/docs shows %d operations, the document has %d", len(shown), ops)
	}
	seen := map[string]bool{}
	for _, op := range shown {
		seen[op] = true
	}
	for p, item := range d.Paths {
		for m := range item {
			if !seen[strings.ToUpper(m)+" "+p] {
				t.Errorf("/docs does not show %s %s", strings.ToUpper(m), p)
			}
		}
	}
	if auth, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('.btn.authorize')`)); err != nil || !auth {
		t.Errorf("/docs has no Authorize button for the bearer scheme (%v)", err)
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType('resource').map(e => e.name)`))
	if err != nil || len(loaded) < 3 {
		t.Fatalf("resources of /docs: %v %v", loaded, err)
	}
	for _, u := range loaded {
		if !strings.HasPrefix(u, s.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("/docs loaded %s, which the binary does not serve", u)
		}
	}
	if dir := os.Getenv("COMMERCE_ADMIN_SCREENSHOTS"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "docs-1280.png"), png, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
}
