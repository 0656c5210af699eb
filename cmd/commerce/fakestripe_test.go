package main

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeStripe is a small recording stand-in for Stripe's API, for what a
// checkout and its recovery call: creating a PaymentIntent (an
// authorisation), once per Idempotency-Key as Stripe does, and cancelling
// one (a void). stripe-mock answers with fixtures and keeps nothing, so it
// cannot tell which authorisations were voided; this can.
type fakeStripe struct {
	*httptest.Server
	mu      sync.Mutex
	byKey   map[string]string // Idempotency-Key -> PaymentIntent id
	numbers map[string]string // PaymentIntent id -> metadata[orderNumber]
	voided  map[string]int    // PaymentIntent id -> cancels received
	// While holding, a new authorisation is made and its answer held back
	// (until release or until the client goes away): its checkout is
	// caught between the authorisation and its transaction.
	holding bool
	held    int
	release chan struct{}
}

func newFakeStripe(t *testing.T) *fakeStripe {
	f := &fakeStripe{byKey: map[string]string{}, numbers: map[string]string{}, voided: map[string]int{}, release: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeStripe) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	key := r.Header.Get("Idempotency-Key")
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/payment_intents" && key != "":
		id, ok := f.byKey[key]
		if !ok {
			id = fmt.Sprintf("pi_fake%d", len(f.byKey)+1)
			f.byKey[key] = id
			f.numbers[id] = form.Get("metadata[orderNumber]")
			if f.holding {
				f.held++
				f.mu.Unlock()
				select {
				case <-f.release:
				case <-r.Context().Done():
				}
				f.mu.Lock()
			}
		}
		fmt.Fprintf(w, `{"id": %q, "object": "payment_intent", "status": "requires_capture", "amount": %s, "currency": %q}`,
			id, form.Get("amount"), form.Get("currency"))
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/payment_intents/") && strings.HasSuffix(r.URL.Path, "/cancel"):
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/payment_intents/"), "/cancel")
		if _, ok := f.numbers[id]; !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error": {"type": "invalid_request_error", "code": "resource_missing", "message": "No such payment_intent: %s"}}`, id)
			return
		}
		f.voided[id]++
		fmt.Fprintf(w, `{"id": %q, "object": "payment_intent", "status": "canceled"}`, id)
	default:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error": {"type": "invalid_request_error", "message": "fakeStripe: %s %s not served"}}`, r.Method, r.URL.Path)
	}
}

// intents returns the PaymentIntents created, with the order number each
// was created with, and how many cancels each got.
func (f *fakeStripe) intents() (numbers map[string]string, voided map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.numbers), maps.Clone(f.voided)
}

// hold makes the next authorisations wait (see fakeStripe) and returns a
// function reporting how many are held; release lets them all answer.
func (f *fakeStripe) hold() (held func() int, release func()) {
	f.mu.Lock()
	f.holding = true
	f.mu.Unlock()
	var once sync.Once
	return func() int {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.held
		}, func() {
			once.Do(func() {
				f.mu.Lock()
				f.holding = false
				f.mu.Unlock()
				close(f.release)
			})
		}
}
