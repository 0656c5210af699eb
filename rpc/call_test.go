package rpc_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestCallOnce: an in-process call under an idempotency key runs once; a
// second call with the key and the same arguments gets the first answer
// (an error as the same error), other arguments are
// idempotency_key_reused, and calls racing with one key run it once.
func TestCallOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		keys, err := auth.New([]byte("call-once-secret-0123456789abcdef01"))
		if err != nil {
			t.Fatal(err)
		}
		srv := rpc.NewServer(keys, slog.New(slog.DiscardHandler), db.Ping)
		rpc.RegisterShipping(srv, shipping.NewService(sqldb.NewShippingStore(db), time.Now))
		srv.SetIdempotency(sqldb.NewIdempotencyStore(db), nil)
		ctx := context.Background()
		admin := commerce.Claims{Subject: "staff:s1", Scopes: []string{commerce.ScopeAdmin}}
		method := map[string]any{"title": "Post", "rates": []any{map[string]any{"locations": []any{map[string]any{"country": "DE"}},
			"rates": []any{map[string]any{"currency": "EUR", "amount": 5}}}}}
		count := func() int {
			out, err := srv.Call(ctx, admin, "cart/v1/shipping.list", map[string]any{"limit": 1000})
			if err != nil {
				t.Fatal(err)
			}
			var l struct{ Data []json.RawMessage }
			if err := json.Unmarshal(out, &l); err != nil {
				t.Fatal(err)
			}
			return len(l.Data)
		}

		first, err := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", method, "k1")
		if err != nil {
			t.Fatal(err)
		}
		again, err := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", method, "k1")
		if err != nil || string(again) != string(first) {
			t.Fatalf("the second call with the key: %s %v, want the first answer %s", again, err, first)
		}
		if n := count(); n != 1 {
			t.Fatalf("%d methods after two calls with one key, want 1", n)
		}
		// Without a key, each call runs.
		if _, err := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", method, ""); err != nil || count() != 2 {
			t.Fatalf("a call without a key: %v, %d methods", err, count())
		}
		// Other arguments with the key: reused, nothing runs.
		other := map[string]any{"title": "Parcel", "rates": method["rates"]}
		if _, err := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", other, "k1"); commerce.ErrorCode(err) != commerce.EIdempotencyKeyReused || count() != 2 {
			t.Fatalf("other arguments: %v, %d methods", err, count())
		}
		// An error answer is stored and given again, code and problems.
		bad := map[string]any{"title": ""}
		_, err1 := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", bad, "k2")
		_, err2 := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", bad, "k2")
		p1, p2 := commerce.ProblemsOf(err1), commerce.ProblemsOf(err2)
		if commerce.ErrorCode(err1) != commerce.EValidation || commerce.ErrorCode(err2) != commerce.EValidation || len(p1) == 0 || len(p1) != len(p2) || p1[0] != p2[0] {
			t.Fatalf("stored error: %v, then %v", err1, err2)
		}
		// A bad key is a validation_error; nothing runs.
		if _, err := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", method, "caf\u00e9"); commerce.ErrorCode(err) != commerce.EValidation || count() != 2 {
			t.Fatalf("a bad key: %v, %d methods", err, count())
		}

		// Racing calls with one key: one runs; the others get its answer
		// or idempotency_key_in_use while it runs.
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[string]int{}
		for range 8 {
			wg.Go(func() {
				_, err := srv.CallOnce(ctx, admin, "cart/v1/shipping.create", method, "k3")
				mu.Lock()
				codes[commerce.ErrorCode(err)]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if n := count(); n != 3 || codes[""]+codes[commerce.EIdempotencyKeyInUse] != 8 {
			t.Fatalf("racing calls: %v, %d methods; want 3 methods and only answers or in_use", codes, n)
		}
	})
}
