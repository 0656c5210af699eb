package rpc_test

import (
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestProductCacheAcrossProcesses: two services over one database (two
// processes sharing it). A product read (and so cached) by one is changed
// through the other: the first sees the change within a bounded time
// (snapcache.Interval, 500 ms), and the one that made it at once; a
// removal is seen the same way.
func TestProductCacheAcrossProcesses(t *testing.T) {
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		one, two := newCatalogAPI(t, a), newCatalogAPI(t, b)
		cat := one.category(t, map[string]any{"title": "Fridges", "slug": "fridges"})
		id := one.product(t, productBody("cache-1", cat))["id"].(string)
		title := func(srv catalogAPI) (string, int) {
			var p struct{ Title string }
			r := srv.get(t, "product.info", q("id", id))
			if r.Status == 200 {
				r.Decode(t, "product", &p)
			}
			return p.Title, r.Status
		}
		// within polls srv until it answers want, and fails after 3 s.
		within := func(srv catalogAPI, wantTitle string, wantStatus int) time.Duration {
			t.Helper()
			start := time.Now()
			for {
				got, status := title(srv)
				if got == wantTitle && status == wantStatus {
					return time.Since(start)
				}
				if time.Since(start) > 3*time.Second {
					t.Fatalf("after 3s: title %q status %d, want %q %d", got, status, wantTitle, wantStatus)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		// Both cache the product.
		for _, srv := range []catalogAPI{one, two} {
			if got, _ := title(srv); got != "Product cache-1" {
				t.Fatalf("title %q", got)
			}
		}
		two.post(t, "product.update", map[string]any{"id": id, "title": "Renamed"}).Must(t)
		if got, _ := title(two); got != "Renamed" {
			t.Fatalf("the process that renamed it reads %q", got)
		}
		if d := within(one, "Renamed", 200); d > time.Second {
			t.Errorf("the other process saw the rename after %v, want within 1s", d)
		}
		two.post(t, "product.remove", map[string]any{"id": id}).Must(t)
		if _, status := title(two); status != 404 {
			t.Fatalf("the process that removed it answers %d", status)
		}
		if d := within(one, "", 404); d > time.Second {
			t.Errorf("the other process saw the removal after %v, want within 1s", d)
		}
	})
}
