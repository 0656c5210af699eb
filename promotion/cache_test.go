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
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
)

// memStore is an in-memory promotion.Store that counts the reads the
// cache makes. Other instances' changes are simulated with put.
type memStore struct {
	mu       sync.Mutex
	version  int64
	promos   []promotion.Promotion
	versions int // PromotionsVersion calls
	loads    int // ActivePromotions calls
	fail     error
}

func (m *memStore) put(p promotion.Promotion) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p.Seq = int64(len(m.promos) + 1)
	m.promos = append(m.promos, p)
	m.version++
}

func (m *memStore) counts() (versions, loads int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.versions, m.loads
}

func (m *memStore) CreatePromotion(_ context.Context, p promotion.Promotion, _ []event.Event) (promotion.Promotion, error) {
	m.put(p)
	return p, nil
}

func (m *memStore) Promotion(_ context.Context, id string) (promotion.Promotion, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.promos {
		if p.ID == id {
			return p, nil
		}
	}
	return promotion.Promotion{}, promotion.NotFound(id)
}

func (m *memStore) UpdatePromotion(_ context.Context, id string, change func(promotion.Promotion) (promotion.Promotion, []event.Event, error)) (promotion.Promotion, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, old := range m.promos {
		if old.ID == id {
			p, _, err := change(old)
			if err != nil {
				return promotion.Promotion{}, err
			}
			m.promos[i] = p
			m.version++
			return p, nil
		}
	}
	return promotion.Promotion{}, promotion.NotFound(id)
}

func (m *memStore) Promotions(context.Context, promotion.Filter) ([]promotion.Promotion, error) {
	return nil, errors.New("not used")
}

func (m *memStore) ActivePromotions(context.Context) (int64, []promotion.Promotion, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads++
	if m.fail != nil {
		return 0, nil, m.fail
	}
	var out []promotion.Promotion
	for _, p := range m.promos {
		if p.Active {
			out = append(out, p)
		}
	}
	return m.version, out, nil
}

func (m *memStore) PromotionsVersion(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.versions++
	if m.fail != nil {
		return 0, m.fail
	}
	return m.version, nil
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

func rules(t testing.TB, ifJSON, thenJSON string) (engine.Rule, engine.Rule) {
	t.Helper()
	r, err := engine.Parse(json.RawMessage(ifJSON), json.RawMessage(thenJSON))
	if err != nil {
		t.Fatal(err)
	}
	return r.If, r.Then
}

func productPromo(t testing.TB, id, product string) promotion.Promotion {
	ifR, thenR := rules(t, `{"product":{"id":"`+product+`","quantity":1}}`, `{"product":{"id":"`+product+`","quantity":1,"discount":{"rate":1}}}`)
	return promotion.Promotion{ID: id, Title: id, Class: "default", Active: true, If: ifR, Then: thenR}
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
	ctx := context.Background()
	store := &memStore{}
	store.put(productPromo(t, "first", "p1"))
	svc := promotion.NewService(store, nil, nil)
	entries := []engine.Entry{{ID: "e1", ProductID: "p1", Quantity: 1, UnitPrice: 500}, {ID: "e2", ProductID: "p2", Quantity: 1, UnitPrice: 500}}

	// A burst of concurrent evaluations loads once and checks nothing else.
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for range 20 {
				if res, err := svc.Evaluate(ctx, entries, 2); err != nil || !slices.Equal(fired(res), []string{"first"}) {
					t.Errorf("got %v, %v; want [first]", fired(res), err)
				}
			}
		})
	}
	wg.Wait()
	if v, l := store.counts(); v != 0 || l != 1 {
		t.Fatalf("after a burst: %d version checks and %d loads, want 0 and 1", v, l)
	}

	// Another instance adds a promotion: not seen until the interval ends.
	store.put(productPromo(t, "second", "p2"))
	if res, _ := svc.Evaluate(ctx, entries, 2); !slices.Equal(fired(res), []string{"first"}) {
		t.Fatalf("within the interval: got %v, want the cached [first]", fired(res))
	}
	time.Sleep(promotion.RefreshInterval)
	if res, _ := svc.Evaluate(ctx, entries, 2); !slices.Equal(fired(res), []string{"first", "second"}) {
		t.Fatalf("after the interval: got %v, want [first second]", fired(res))
	}
	if v, l := store.counts(); v != 1 || l != 2 {
		t.Fatalf("after the interval: %d version checks and %d loads, want 1 and 2", v, l)
	}

	// An unchanged version costs one check and no load.
	time.Sleep(promotion.RefreshInterval)
	svc.Evaluate(ctx, entries, 2)
	if v, l := store.counts(); v != 2 || l != 2 {
		t.Fatalf("unchanged version: %d version checks and %d loads, want 2 and 2", v, l)
	}

	// A storage failure on a due check is reported, not hidden.
	time.Sleep(promotion.RefreshInterval)
	store.mu.Lock()
	store.fail = commerce.NewError(commerce.EUnavailable, nil)
	store.mu.Unlock()
	if _, err := svc.Evaluate(ctx, entries, 2); commerce.ErrorCode(err) != commerce.EUnavailable {
		t.Fatalf("got error %v, want unavailable", err)
	}
}

// TestCacheFailedRebuildForcesCheck: a change whose rebuild fails is still
// used by the next evaluation, which checks the version at once.
func TestCacheFailedRebuildForcesCheck(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	svc := promotion.NewService(store, nil, nil)
	entries := []engine.Entry{{ID: "e1", ProductID: "p1", Quantity: 1, UnitPrice: 500}}
	if res, err := svc.Evaluate(ctx, entries, 2); err != nil || len(fired(res)) != 0 {
		t.Fatalf("got %v, %v; want nothing", fired(res), err)
	}
	store.fail = errors.New("down")
	p, err := svc.Create(ctx, promotion.CreateInput{
		Title: ptr("t"), Class: ptr("default"), Active: ptr(true), Priority: json.RawMessage(`1`),
		If: json.RawMessage(`{"product":{"id":"p1","quantity":1}}`), Then: json.RawMessage(`{"product":{"id":"p1","quantity":1,"discount":{"rate":1}}}`),
	})
	if err != nil {
		t.Fatalf("create: %v (the change is committed whatever the rebuild does)", err)
	}
	store.mu.Lock()
	store.fail = nil
	store.mu.Unlock()
	if res, err := svc.Evaluate(ctx, entries, 2); err != nil || !slices.Equal(fired(res), []string{p.ID}) {
		t.Fatalf("got %v, %v; want [%s] at once", fired(res), err, p.ID)
	}
}

func TestCatalogLookup(t *testing.T) {
	ctx := context.Background()
	entries := []engine.Entry{
		{ID: "e1", ProductID: "p1", Quantity: 1, UnitPrice: 500},
		{ID: "e2", ProductID: "p2", Quantity: 2, UnitPrice: 500},
		{ID: "e3", ProductID: "p1", Quantity: 1, UnitPrice: 400},
	}
	catIf, catThen := rules(t, `{"category":{"id":"c","quantity":1}}`, `{"category":{"id":"c","quantity":1,"discount":{"rate":1}}}`)
	tests := []struct {
		name      string
		promos    []promotion.Promotion
		wantCalls [][]string
		wantFired []string
	}{
		{"no promotions", nil, nil, nil},
		{"product rules only", []promotion.Promotion{productPromo(t, "p", "p1")}, nil, []string{"p", "p"}},
		{"inactive category rule", []promotion.Promotion{{ID: "c", Title: "c", If: catIf, Then: catThen}}, nil, nil},
		{"category rule: one batch, each product once", []promotion.Promotion{{ID: "c", Title: "c", Active: true, If: catIf, Then: catThen}},
			[][]string{{"p1", "p2"}}, []string{"c", "c", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, cat := &memStore{}, &countingCatalog{}
			for _, p := range tc.promos {
				store.put(p)
			}
			res, err := promotion.NewService(store, cat, nil).Evaluate(ctx, entries, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(cat.calls, tc.wantCalls, slices.Equal) {
				t.Errorf("catalog calls: got %v, want %v", cat.calls, tc.wantCalls)
			}
			if got := fired(res); !slices.Equal(got, tc.wantFired) {
				t.Errorf("fired: got %v, want %v", got, tc.wantFired)
			}
			if res.ItemDiscounts == nil || res.AlmostFulfilled == nil {
				t.Errorf("got nil lists, want empty ones")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
