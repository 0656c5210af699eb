package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/testkit/mailpit"
	"github.com/commercekit/commerce/testkit/testdb"
)

// mailCrashTest places a burst of 200 orders, each to an address of its
// own, at a serve process sending mail to Mailpit, kills it with SIGKILL
// halfway, starts it again on the same storage and places the rest: every
// order answered ok gets its confirmation in Mailpit (at least once: a
// message whose sending the kill cut short may arrive twice, with the
// same Message-ID).
func mailCrashTest(t *testing.T, db string) {
	mp := mailpit.Start(t)
	keys, _ := auth.New([]byte(crashSecret))
	admin, _ := keys.Issue(commerce.Claims{Subject: "crash", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	flags := []string{"--mail", "smtp://" + mp.SMTP, "--mail-retry", "200ms,200ms,500ms,1s,1s,1s", "--shop-name", "Crash Shop", "--mail-lease", "3s"}
	c := startChild(t, db, flags...)
	client := &http.Client{Timeout: 10 * time.Second}
	must := func(path string, body map[string]any, name string, v any) {
		t.Helper()
		status, res, err := post(client, c.base+path, admin, body)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s", path, status, err, res["error"])
		}
		if v != nil {
			json.Unmarshal(res[name], v)
		}
	}
	var cat, prod struct{ ID string }
	must("/catalog/v1/category.create", map[string]any{"title": "Crash", "slug": "crash", "parent": "ROOT"}, "category", &cat)
	must("/catalog/v1/product.create", map[string]any{"sku": "crash", "status": "ONLINE", "title": "Crash", "categories": []string{cat.ID},
		"stockStatus": 1, "prices": []map[string]any{{"amount": 10.5, "currency": "USD"}}}, "product", &prod)
	must("/cart/v1/shipping.create", map[string]any{"title": "Post", "active": true, "taxCode": "default",
		"rates": []map[string]any{{"locations": []map[string]any{{"country": "US"}}, "rates": []map[string]any{{"currency": "USD", "amount": 5}}}}}, "", nil)
	addr := map[string]any{"firstName": "Ada", "lastName": "L", "address_1": "1 Main St", "postCode": "10001", "city": "New York",
		"state": "New York", "country": "US"}

	const total = 200
	var mu sync.Mutex
	acked := map[string]string{} // order number -> address
	var next atomic.Int64
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	burst := func(base string, killAt int) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for count() < total {
					to := fmt.Sprintf("buyer%d@example.com", next.Add(1))
					status, res, err := post(client, base+"/cart/v1/cart.create", admin, map[string]any{})
					if err != nil || status != 200 {
						return
					}
					var cart struct{ ID string }
					json.Unmarshal(res["cart"], &cart)
					status, res, err = post(client, base+"/cart/v1/cart.addToCart", admin, map[string]any{"cartId": cart.ID,
						"items": []map[string]any{{"productId": prod.ID, "quantity": 1, "warehouseId": "W1"}}})
					if err != nil {
						return
					}
					if status != 200 {
						t.Errorf("addToCart: %d %s %s", status, res["error"], res["data"])
						return
					}
					status, res, err = post(client, base+"/cart/v1/cart.checkout", admin, map[string]any{"cartId": cart.ID, "email": to,
						"shippingAddress": addr, "paymentId": "manual", "paymentData": map[string]any{}})
					if err != nil {
						return // the server died
					}
					if status != 200 {
						t.Errorf("checkout: %d %s %s", status, res["error"], res["data"])
						return
					}
					var o struct{ Number string }
					json.Unmarshal(res["order"], &o)
					mu.Lock()
					acked[o.Number] = to
					n := len(acked)
					mu.Unlock()
					if n == killAt {
						c.kill()
					}
				}
			})
		}
		wg.Wait()
	}
	burst(c.base, total/2)
	if n := count(); n < total/2 || n >= total {
		t.Fatalf("%d orders acknowledged before the kill", n)
	}
	before := len(mp.Messages(t))
	c = startChild(t, db, flags...)
	defer c.stop(t)
	burst(c.base, -1)

	deadline := time.Now().Add(90 * time.Second)
	for {
		got := map[string]int{} // subject -> messages
		msgIDs := map[string]string{}
		for _, m := range mp.Messages(t) {
			got[m.Subject]++
			if prev, ok := msgIDs[m.Subject]; ok && prev != m.MessageID {
				t.Fatalf("%q arrived with two Message-IDs: %s and %s", m.Subject, prev, m.MessageID)
			}
			msgIDs[m.Subject] = m.MessageID
		}
		missing, twice := 0, 0
		mu.Lock()
		for number := range acked {
			switch n := got["Crash Shop: order "+number+" confirmed"]; {
			case n == 0:
				missing++
			case n > 1:
				twice++
			}
		}
		n := len(acked)
		mu.Unlock()
		if missing == 0 {
			t.Logf("%d orders, %d confirmations received before the restart, %d received twice (sending cut short by the kill)", n, before, twice)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d confirmations never arrived", missing, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The addresses: each order's own.
	for _, m := range mp.Messages(t)[:5] {
		number := strings.TrimSuffix(strings.TrimPrefix(m.Subject, "Crash Shop: order "), " confirmed")
		mu.Lock()
		want := acked[number]
		mu.Unlock()
		if len(m.To) != 1 || m.To[0].Address != want {
			t.Errorf("order %s's confirmation went to %+v, want %s", number, m.To, want)
		}
	}
}

func TestMailCrashSQLite(t *testing.T) {
	mailCrashTest(t, "sqlite:"+filepath.Join(t.TempDir(), "commerce.db"))
}

func TestMailCrashPostgres(t *testing.T) {
	mailCrashTest(t, testdb.PostgresURL(t))
}
