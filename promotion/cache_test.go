package promotion_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// countingStore is a real store whose reads by the cache are counted, and
// made to fail while fail is set.
type countingStore struct {
	promotion.Store
	mu       sync.Mutex
	versions int // Version calls
	loads    int // ActivePromotions calls
	fail     error
}

func (c *countingStore) counts() (versions, loads int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.versions, c.loads
}

func (c *countingStore) setFail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail = err
}

func (c *countingStore) ActivePromotions(ctx context.Context) (int64, []promotion.Promotion, error) {
	c.mu.Lock()
	c.loads++
	fail := c.fail
	c.mu.Unlock()
	if fail != nil {
		return 0, nil, fail
	}
	return c.Store.ActivePromotions(ctx)
}

func (c *countingStore) Version(ctx context.Context) (int64, error) {
	c.mu.Lock()
	c.versions++
	fail := c.fail
	c.mu.Unlock()
	if fail != nil {
		return 0, fail
	}
	return c.Store.Version(ctx)
}

// createPromo creates an active promotion of priority 1 through svc.
func createPromo(t testing.TB, svc *promotion.Service, title string, active bool, ifJSON, thenJSON string) promotion.Promotion {
	t.Helper()
	p, err := svc.Create(context.Background(), promotion.CreateInput{
		Title: &title, Class: ptr("default"), Active: &active, Priority: ptr(1),
		If: json.RawMessage(ifJSON), Then: json.RawMessage(thenJSON),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// productPromo creates a promotion taking 1 off each unit of product.
func productPromo(t testing.TB, svc *promotion.Service, title, product string) promotion.Promotion {
	t.Helper()
	return createPromo(t, svc, title, true, `{"product":{"id":"`+product+`","quantity":1}}`, `{"product":{"id":"`+product+`","quantity":1,"discount":{"rate":1}}}`)
}

// countingCatalog puts every product in category "c" and counts calls.
type countingCatalog struct {
	mu    sync.Mutex
	calls [][]string
}

func (c *countingCatalog) CategoryAncestors(_ context.Context, ids []string) (map[string][]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, slices.Clone(ids))
	out := map[string][]string{}
	for _, id := range ids {
		out[id] = []string{"c"}
	}
	return out, nil
}

func fired(res engine.Result) []string {
	var ids []string
	for _, it := range res.ItemDiscounts {
		for _, d := range it.Discounts {
			ids = append(ids, d.PromotionID)
		}
	}
	return ids
}

func TestCacheChecksVersionOncePerInterval(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		// other is another instance sharing the database.
		other := promotion.NewService(sqldb.NewPromotionStore(db), nil, nil)
		first := productPromo(t, other, "first", "p1")
		store := &countingStore{Store: sqldb.NewPromotionStore(db)}
		svc := promotion.NewService(store, nil, nil)
		entries := []engine.Entry{{ID: "e1", ProductID: "p1", Quantity: 1, UnitPrice: 500}, {ID: "e2", ProductID: "p2", Quantity: 1, UnitPrice: 500}}

		// A burst of concurrent evaluations loads once and checks nothing else.
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				for range 20 {
					if res, err := svc.Evaluate(ctx, entries, 2); err != nil || !slices.Equal(fired(res), []string{first.ID}) {
						t.Errorf("got %v, %v; want [%s]", fired(res), err, first.ID)
					}
				}
			})
		}
		wg.Wait()
		if v, l := store.counts(); v != 0 || l != 1 {
			t.Fatalf("after a burst: %d version checks and %d loads, want 0 and 1", v, l)
		}

		// The other instance adds a promotion: not seen until the interval
		// ends.
		second := productPromo(t, other, "second", "p2")
		if res, _ := svc.Evaluate(ctx, entries, 2); !slices.Equal(fired(res), []string{first.ID}) {
			t.Fatalf("within the interval: got %v, want the cached [%s]", fired(res), first.ID)
		}
		time.Sleep(snapcache.Interval)
		if res, _ := svc.Evaluate(ctx, entries, 2); !slices.Equal(fired(res), []string{first.ID, second.ID}) {
			t.Fatalf("after the interval: got %v, want [%s %s]", fired(res), first.ID, second.ID)
		}
		if v, l := store.counts(); v != 1 || l != 2 {
			t.Fatalf("after the interval: %d version checks and %d loads, want 1 and 2", v, l)
		}

		// An unchanged version costs one check and no load.
		time.Sleep(snapcache.Interval)
		svc.Evaluate(ctx, entries, 2)
		if v, l := store.counts(); v != 2 || l != 2 {
			t.Fatalf("unchanged version: %d version checks and %d loads, want 2 and 2", v, l)
		}

		// A storage failure on a due check is reported, not hidden.
		time.Sleep(snapcache.Interval)
		store.setFail(commerce.NewError(commerce.EUnavailable, nil))
		if _, err := svc.Evaluate(ctx, entries, 2); commerce.ErrorCode(err) != commerce.EUnavailable {
			t.Fatalf("got error %v, want unavailable", err)
		}
	})
}

// TestCacheFailedRebuildForcesCheck: a change whose rebuild fails is still
// used by the next evaluation, which checks the version at once.
func TestCacheFailedRebuildForcesCheck(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := &countingStore{Store: sqldb.NewPromotionStore(db)}
		svc := promotion.NewService(store, nil, nil)
		entries := []engine.Entry{{ID: "e1", ProductID: "p1", Quantity: 1, UnitPrice: 500}}
		if res, err := svc.Evaluate(ctx, entries, 2); err != nil || len(fired(res)) != 0 {
			t.Fatalf("got %v, %v; want nothing", fired(res), err)
		}
		store.setFail(errors.New("down"))
		p := productPromo(t, svc, "t", "p1") // the change is committed whatever the rebuild does
		store.setFail(nil)
		if res, err := svc.Evaluate(ctx, entries, 2); err != nil || !slices.Equal(fired(res), []string{p.ID}) {
			t.Fatalf("got %v, %v; want [%s] at once", fired(res), err, p.ID)
		}
	})
}

func TestCatalogLookup(t *testing.T) {
	ctx := context.Background()
	entries := []engine.Entry{
		{ID: "e1", ProductID: "p1", Quantity: 1, UnitPrice: 500},
		{ID: "e2", ProductID: "p2", Quantity: 2, UnitPrice: 500},
		{ID: "e3", ProductID: "p1", Quantity: 1, UnitPrice: 400},
	}
	const catIf, catThen = `{"category":{"id":"c","quantity":1}}`, `{"category":{"id":"c","quantity":1,"discount":{"rate":1}}}`
	tests := []struct {
		name      string
		create    func(t *testing.T, svc *promotion.Service)
		wantCalls [][]string
		wantFired int
	}{
		{"no promotions", func(*testing.T, *promotion.Service) {}, nil, 0},
		{"product rules only", func(t *testing.T, svc *promotion.Service) { productPromo(t, svc, "p", "p1") }, nil, 2},
		{"inactive category rule", func(t *testing.T, svc *promotion.Service) { createPromo(t, svc, "c", false, catIf, catThen) }, nil, 0},
		{"category rule: one batch, each product once", func(t *testing.T, svc *promotion.Service) { createPromo(t, svc, "c", true, catIf, catThen) },
			[][]string{{"p1", "p2"}}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := &countingCatalog{}
			svc := promotion.NewService(sqldb.NewPromotionStore(testdb.SQLite(t)), cat, nil)
			tc.create(t, svc)
			res, err := svc.Evaluate(ctx, entries, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(cat.calls, tc.wantCalls, slices.Equal) {
				t.Errorf("catalog calls: got %v, want %v", cat.calls, tc.wantCalls)
			}
			if got := fired(res); len(got) != tc.wantFired {
				t.Errorf("fired: got %v, want %d discounts", got, tc.wantFired)
			}
			if res.ItemDiscounts == nil || res.AlmostFulfilled == nil {
				t.Errorf("got nil lists, want empty ones")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
