package cart_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestCheckoutIdempotencyKey: a checkout whose client times out, retried
// with its Idempotency-Key, gets the answer of the one checkout that ran
// (the same cart, checked out once, one authorisation), byte for byte.
func TestCheckoutIdempotencyKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		cs := newCheckoutShop(t, db)
		cs.pay.onAuthorize = func(n int) error {
			time.Sleep(500 * time.Millisecond) // a slow provider
			return nil
		}
		body, _ := json.Marshal(map[string]any{"cartId": cs.cart, "paymentId": "counting", "paymentData": map[string]any{"po": "PO-1"}})
		send := func(client *http.Client) (int, string, []byte, error) {
			req, _ := http.NewRequest(http.MethodPost, cs.URL+"/cart/v1/cart.checkout", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+cs.API)
			req.Header.Set("Idempotency-Key", "checkout-"+cs.cart)
			res, err := client.Do(req)
			if err != nil {
				return 0, "", nil, err
			}
			defer res.Body.Close()
			raw, err := io.ReadAll(res.Body)
			return res.StatusCode, res.Header.Get("Idempotent-Replayed"), raw, err
		}
		if _, _, _, err := send(&http.Client{Timeout: 100 * time.Millisecond}); err == nil {
			t.Fatal("the first checkout answered before the client's timeout")
		}
		var status int
		var replayed string
		var raw []byte
		deadline := time.Now().Add(30 * time.Second)
		for {
			var err error
			status, replayed, raw, err = send(http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			if status != http.StatusConflict || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond) // idempotency_key_in_use: the first still runs
		}
		var got struct {
			OK   bool `json:"ok"`
			Cart struct {
				ID      string `json:"id"`
				Status  string `json:"status"`
				OrderID string `json:"orderId"`
			} `json:"cart"`
			Order struct {
				ID     string `json:"id"`
				Number string `json:"number"`
			} `json:"order"`
		}
		if err := json.Unmarshal(raw, &got); err != nil || status != 200 || replayed != "true" || !got.OK || got.Cart.ID != cs.cart || got.Cart.Status != "CHECKED_OUT" {
			t.Fatalf("retry: %d replayed %q %s", status, replayed, raw)
		}
		// The order the one checkout placed: the same id and number as
		// the cart now names, and no other order.
		if got.Order.ID == "" || got.Order.Number == "" || got.Cart.OrderID != got.Order.ID {
			t.Fatalf("retry answered without the order: %s", raw)
		}
		if info := cs.info(cs.API, cs.cart); info.Status != "CHECKED_OUT" {
			t.Fatalf("cart %+v", info)
		}
		var orders []struct {
			ID     string `json:"id"`
			Number string `json:"number"`
		}
		cs.Get(t, "/order/v1/order.list?limit=100", cs.Admin).Must(t).Decode(t, "data", &orders)
		if len(orders) != 1 || orders[0].ID != got.Order.ID || orders[0].Number != got.Order.Number {
			t.Fatalf("orders %+v, want only %s (%s)", orders, got.Order.ID, got.Order.Number)
		}
		status2, replayed2, raw2, err := send(http.DefaultClient)
		if err != nil || status2 != 200 || replayed2 != "true" || !bytes.Equal(raw2, raw) {
			t.Fatalf("second retry: %d %q %s, want %s", status2, replayed2, raw2, raw)
		}
		// The log may show a commit late on a busy PostgreSQL server (its
		// horizon): wait for the event, then check there is one.
		for end := time.Now().Add(30 * time.Second); cs.checkouts(t) == 0 && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if n := cs.checkouts(t); n != 1 {
			t.Fatalf("%d CHECKOUT events, want 1", n)
		}
		if a, _ := cs.pay.counts(); a != 1 {
			t.Fatalf("%d authorisations, want 1", a)
		}
	})
}
