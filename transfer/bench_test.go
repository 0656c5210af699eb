package transfer_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

// TestImportSpeed imports COMMERCE_IMPORT_ROWS rows (a generated commerce
// CSV: 20 categories, a price, stock in a warehouse) into each store, then
// imports them again (every row unchanged), and exports them; it logs the
// times and the process's peak RSS (BENCHMARKS.md). It runs only when
// COMMERCE_IMPORT_ROWS is set: go test ./transfer -run TestImportSpeed -v
// with COMMERCE_IMPORT_ROWS=100000.
func TestImportSpeed(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("COMMERCE_IMPORT_ROWS"))
	if n <= 0 {
		t.Skip("set COMMERCE_IMPORT_ROWS to run the import benchmark")
	}
	path := filepath.Join(t.TempDir(), "products.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "sku,status,title,description,brand,categories,price.USD,stockStatus,images,stock.main")
	for i := range n {
		fmt.Fprintf(w, "SKU-%07d,ONLINE,Product %d,\"A product, number %d, with a description of some length.\",Brand %d,Catalog > Group %d,%d.%02d,0,https://img.example.com/%d.jpg,%d\n",
			i, i, i, i%50, i%20, 1+i%900, i%100, i, i%30)
	}
	w.Flush()
	f.Close()
	st, _ := os.Stat(path)
	file, _ := os.ReadFile(path)
	for _, store := range testdb.Stores {
		t.Run(store.Name, func(t *testing.T) {
			srv := apitest.New(t, store.Open(t))
			for _, pass := range []string{"import", "re-import"} {
				start, cpu0 := time.Now(), cpuTime()
				j := importFile(t, srv, string(file), nil)
				cpu := cpuTime() - cpu0
				d := time.Since(start)
				if j.Status != transfer.JobDone || j.Rejected != 0 || j.Processed != n {
					t.Fatalf("%s: %+v", pass, j)
				}
				job := j.FinishedAt.Sub(j.StartedAt)
				t.Logf("%s: %d rows (%d MB): job %v (%.0f rows/s), with the upload %v (process CPU %v); created %d, unchanged %d; peak RSS %s",
					pass, n, st.Size()>>20, job.Round(time.Millisecond), float64(n)/job.Seconds(), d.Round(time.Millisecond), cpu.Round(time.Millisecond), j.Created, j.Unchanged, peakRSS())
			}
			start := time.Now()
			code, _, body := get(t, srv, "/catalog/v1/product.export", srv.Admin)
			d := time.Since(start)
			if code != 200 || strings.Count(body, "\n") != n+1 {
				t.Fatalf("export: %d, %d lines", code, strings.Count(body, "\n"))
			}
			t.Logf("export: %d products in %v: %.0f products/s; peak RSS %s", n, d.Round(time.Millisecond), float64(n)/d.Seconds(), peakRSS())
		})
	}
}

// peakRSS is the process's peak resident set size (VmHWM), as Linux
// reports it.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
