package webhook_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/webhook"
)

// TestTwoDispatchers: two services on one PostgreSQL database, each with
// its own connections (as two processes), dispatch the same backlog: both
// send attempts (each marks its own: senderClient), every delivery is
// delivered, each attempted once, and never two attempts of one delivery
// at the same time.
func TestTwoDispatchers(t *testing.T) {
	url := testdb.PostgresURL(t)
	db1, db2 := testdb.PostgresAt(t, url), testdb.PostgresAt(t, url)
	r := newReceiver(t)
	r.delay = 3 * time.Millisecond
	// The first requests wait until both dispatchers have sent one (less
	// than the attempts' timeout): the one that leads the follower cannot
	// take the whole backlog before the other's first poll.
	r.holdFor, r.holdMax = []string{"A", "B"}, 1500*time.Millisecond
	s, stop := start(t, db1, options("100ms", 2*time.Second))
	id := createWebhook(t, s, r, map[string]any{"channels": "PRODUCTS"})
	stop()
	const n = 300
	want := map[string]bool{}
	for range n {
		want[appendEvent(t, db1, "PRODUCTS", "CREATE").ID] = true
	}
	sealer, err := webhook.NewSealer(testKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for name, db := range map[string]*sqldb.DB{"A": db1, "B": db2} {
		svc := webhook.NewService(sqldb.NewWebhookStore(db), nil, webhook.Config{Sealer: sealer, AllowPrivate: true,
			Retry: []time.Duration{100 * time.Millisecond}, Timeout: 2 * time.Second, Lease: time.Minute,
			Poll: 50 * time.Millisecond, Client: senderClient(name, 2*time.Second)})
		wg.Go(func() { svc.Run(ctx, db.Notify(), nil) })
	}
	st := sqldb.NewWebhookStore(db1)
	waitFor(t, 120*time.Second, "every delivery delivered", func() bool {
		ds, err := st.Deliveries(ctx, id, webhook.Delivered, 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(ds) == n
	})
	hits := r.snapshot()
	seen := map[string]int{}
	for _, h := range hits {
		seen[h.id]++
		if !h.valid {
			t.Fatalf("bad signature or timestamp on %s", h.id)
		}
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("event %s: %d attempts, want 1", id, seen[id])
		}
	}
	r.mu.Lock()
	overlap := r.overlap
	r.mu.Unlock()
	if overlap != 0 || len(hits) != n {
		t.Fatalf("%d concurrent duplicate attempts, %d requests for %d events", overlap, len(hits), n)
	}
	by := r.sentBy()
	if by["A"] == 0 || by["B"] == 0 || by["A"]+by["B"] != n {
		t.Fatalf("attempts by dispatcher %v, want both > 0 and %d in all", by, n)
	}
	t.Logf("attempts by dispatcher: %v", by)
	ds, err := st.Deliveries(ctx, id, "", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Attempts != 1 || d.Status != webhook.Delivered {
			t.Fatalf("delivery %s", mustJSON(d))
		}
	}
}

// gatedStore holds back the records of attempts: the first waits until
// release is closed, every later one until the first has run. results are
// what each returned, in the order they ran.
type gatedStore struct {
	*sqldb.WebhookStore
	release   chan struct{}
	once      sync.Once
	recording chan struct{} // closed when the first record is called
	firstDone chan struct{}
	mu        sync.Mutex
	calls     int
	results   []bool
}

func (g *gatedStore) Record(ctx context.Context, claim string, r webhook.Result) (bool, error) {
	g.mu.Lock()
	g.calls++
	n := g.calls
	g.mu.Unlock()
	if n == 1 {
		close(g.recording)
		<-g.release
		defer close(g.firstDone)
	} else {
		<-g.firstDone
	}
	ok, err := g.WebhookStore.Record(ctx, claim, r)
	g.mu.Lock()
	g.results = append(g.results, ok)
	g.mu.Unlock()
	return ok, err
}

// open lets the first record run.
func (g *gatedStore) open() { g.once.Do(func() { close(g.release) }) }

func (g *gatedStore) state() (calls int, results []bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls, append([]bool(nil), g.results...)
}

// TestStaleRecordAfterLease: an attempt whose record is still on its way
// when its lease runs out loses the delivery, even to its own process:
// the process claims it again (a new lease, its own token) and attempts
// it; the first attempt's late record is refused, and the delivery shows
// the second attempt's outcome, counted once.
func TestStaleRecordAfterLease(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		now := time.Now().UTC().Truncate(time.Millisecond)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		sealer, err := webhook.NewSealer(testKey)
		if err != nil {
			t.Fatal(err)
		}
		g := &gatedStore{WebhookStore: sqldb.NewWebhookStore(db), release: make(chan struct{}),
			recording: make(chan struct{}), firstDone: make(chan struct{})}
		svc := webhook.NewService(g, clock, webhook.Config{Sealer: sealer, AllowPrivate: true,
			Retry: []time.Duration{time.Hour}, Timeout: time.Second, Lease: time.Minute, Poll: 20 * time.Millisecond, Workers: 2})
		var wg sync.WaitGroup
		wg.Go(func() { svc.Run(ctx, nil, nil) })
		defer wg.Wait()
		defer g.open() // a failed test must not leave the dispatcher waiting
		defer cancel()
		r := newReceiver(t, 500) // then 200
		r.setClock(clock)
		url := r.URL + "/hook"
		created, err := svc.Create(ctx, webhook.CreateInput{URL: &url, Channels: []string{"PRODUCTS"}})
		if err != nil {
			t.Fatal(err)
		}
		r.setSecret(created.Secret)
		appendEvent(t, db, "PRODUCTS", "CREATE")
		select {
		case <-g.recording:
		case <-time.After(20 * time.Second):
			t.Fatal("no attempt recorded")
		}
		// The first attempt (500) is recording; its lease runs out.
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		waitFor(t, 20*time.Second, "the second attempt's record", func() bool { calls, _ := g.state(); return calls == 2 })
		g.open()
		waitFor(t, 20*time.Second, "both records", func() bool { _, res := g.state(); return len(res) == 2 })
		if _, res := g.state(); res[0] || !res[1] {
			t.Fatalf("records returned %v, want the stale first refused and the second stored", res)
		}
		ds, err := g.Deliveries(ctx, created.Webhook.ID, "", 10, 0)
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries %v %v", ds, err)
		}
		if d := ds[0]; d.Status != webhook.Delivered || d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 200 {
			t.Fatalf("delivery %s, want DELIVERED by the second attempt, counted once", mustJSON(d))
		}
		if hits := r.snapshot(); len(hits) != 2 || !hits[0].valid || !hits[1].valid {
			t.Fatalf("%d requests, want 2 validly signed", len(hits))
		}
	})
}
