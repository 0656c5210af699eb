package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/testkit/stripemock"
)

// --stripe-webhook-secret beats COMMERCE_STRIPE_WEBHOOK_SECRET: only an
// event signed with the flag's secret passes the signature check.
func TestStripeWebhookSecretFlag(t *testing.T) {
	env := map[string]string{"COMMERCE_STRIPE_WEBHOOK_SECRET": "whsec_from_env"}
	base, stop := startServe(t, []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "c.db"), "--jwt-secret", testSecret,
		"--stripe-webhook-secret", "whsec_from_flag"}, env)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	body := `{"id": "evt_cmd", "object": "event", "type": "customer.created", "data": {"object": {"id": "cus_1"}}}`
	post := func(key string) int {
		ts := time.Now().Unix()
		mac := hmac.New(sha256.New, []byte(key))
		fmt.Fprintf(mac, "%d.%s", ts, body)
		req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/stripe", strings.NewReader(body))
		req.Header.Set("Stripe-Signature", fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil))))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("whsec_from_env"); code != http.StatusBadRequest {
		t.Errorf("signed with the environment's secret: got %d, want 400", code)
	}
	if code := post("whsec_from_flag"); code != http.StatusOK {
		t.Errorf("signed with the flag's secret: got %d, want 200", code)
	}
}

// A bad Stripe configuration stops serve with an error that names the
// setting and never shows the key.
func TestStripeConfigError(t *testing.T) {
	const key = "sk_test_do_not_print_me"
	env := map[string]string{"COMMERCE_STRIPE_KEY": key, "COMMERCE_STRIPE_URL": "ftp://stripe.example",
		"COMMERCE_JWT_SECRET": testSecret, "COMMERCE_DB": "sqlite:" + filepath.Join(t.TempDir(), "c.db")}
	var stderr strings.Builder
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, &stderr, &stderr)
	if err == nil || !strings.Contains(err.Error(), "ftp://stripe.example") {
		t.Fatalf("got %v, want an error naming the Stripe URL", err)
	}
	if strings.Contains(err.Error()+stderr.String(), key) {
		t.Errorf("the key is shown: %v\n%s", err, stderr.String())
	}
}

// TestStripeMockServe: the serve command started as a process with
// --stripe-key and --stripe-url pointing at stripe-mock takes a checkout
// with paymentId stripe over HTTP (an AUTHORIZED payment whose reference
// is a PaymentIntent), then captures it (PAID) and, for a second order,
// cancels it (VOIDED). Skipped without stripe-mock unless
// COMMERCE_TEST_STRIPE_MOCK is set (then a missing binary fails).
func TestStripeMockServe(t *testing.T) {
	mock := stripemock.Start(t)
	c := startChild(t, "sqlite:"+filepath.Join(t.TempDir(), "c.db"), "--stripe-key", stripemock.Key, "--stripe-url", mock)
	defer c.stop(t)
	keys, err := auth.New([]byte(crashSecret))
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := keys.Issue(commerce.Claims{Subject: "admin", Scopes: []string{"admin"}}, time.Now(), time.Hour)
	shopper, _ := keys.Issue(commerce.Claims{Subject: "shopper", Scopes: []string{"api"}}, time.Now(), time.Hour)
	client := &http.Client{Timeout: 30 * time.Second}
	must := func(path, token string, body map[string]any, name string, v any) {
		t.Helper()
		status, res, err := post(client, c.base+path, token, body)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s %s", path, status, err, res["error"], res["data"])
		}
		if v != nil {
			if err := json.Unmarshal(res[name], v); err != nil {
				t.Fatalf("%s: %s: %v", path, name, err)
			}
		}
	}
	var cat, prod struct{ ID string }
	must("/catalog/v1/category.create", admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}, "category", &cat)
	must("/catalog/v1/product.create", admin, map[string]any{"sku": "s1", "status": "ONLINE", "title": "Fridge", "categories": []string{cat.ID},
		"stockStatus": 0, "prices": []map[string]any{{"amount": 499.99, "currency": "USD"}}}, "product", &prod)
	must("/stock/v1/stock.create", admin, map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": 10}, "", nil)
	must("/cart/v1/shipping.create", admin, map[string]any{"title": "Post", "active": true, "taxCode": "default",
		"rates": []map[string]any{{"locations": []map[string]any{{"country": "US"}}, "rates": []map[string]any{{"currency": "USD", "amount": 5}}}}}, "", nil)
	addr := map[string]any{"firstName": "Ada", "lastName": "L", "address_1": "1 Main St", "postCode": "10001", "city": "New York",
		"state": "New York", "country": "US", "phone": "555"}
	type orderRec struct {
		ID, Status, PaymentStatus string
		Totals                    struct{ Total struct{ Amount int64 } }
		Payments                  []struct {
			Provider, Status, Reference string
			Amount, Captured            struct{ Amount int64 }
		}
	}
	checkout := func() orderRec {
		t.Helper()
		var cart struct{ ID, Status, OrderID string }
		must("/cart/v1/cart.create", shopper, map[string]any{}, "cart", &cart)
		must("/cart/v1/cart.addToCart", shopper, map[string]any{"cartId": cart.ID,
			"items": []map[string]any{{"productId": prod.ID, "quantity": 2, "warehouseId": "W1"}}}, "", nil)
		status, res, err := post(client, c.base+"/cart/v1/cart.checkout", shopper, map[string]any{"cartId": cart.ID, "shippingAddress": addr,
			"paymentId": "stripe", "paymentData": map[string]any{"paymentMethod": "pm_card_visa"}})
		if err != nil || status != 200 {
			t.Fatalf("checkout with stripe: %d %v %s %s", status, err, res["error"], res["data"])
		}
		var o orderRec
		if err := json.Unmarshal(res["order"], &o); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(res["cart"], &cart); err != nil {
			t.Fatal(err)
		}
		if cart.Status != "CHECKED_OUT" || cart.OrderID != o.ID || o.PaymentStatus != "AUTHORIZED" || len(o.Payments) != 1 ||
			o.Payments[0].Provider != "stripe" || o.Payments[0].Status != "AUTHORIZED" || !strings.HasPrefix(o.Payments[0].Reference, "pi_") ||
			o.Payments[0].Amount.Amount != o.Totals.Total.Amount || o.Totals.Total.Amount == 0 {
			t.Fatalf("checkout: cart %+v, order %+v; want CHECKED_OUT naming an AUTHORIZED order paid by a stripe PaymentIntent of the total", cart, o)
		}
		return o
	}

	o := checkout()
	var got orderRec
	must("/order/v1/order.capture", admin, map[string]any{"id": o.ID}, "order", &got)
	if got.PaymentStatus != "PAID" || got.Payments[0].Status != "CAPTURED" || got.Payments[0].Captured.Amount != o.Totals.Total.Amount {
		t.Errorf("capture: %+v, want PAID, the payment CAPTURED for the total", got)
	}
	o = checkout()
	must("/order/v1/order.cancel", shopper, map[string]any{"id": o.ID}, "order", &got)
	if got.Status != "CANCELLED" || got.PaymentStatus != "VOIDED" || got.Payments[0].Status != "VOIDED" {
		t.Errorf("cancel: %+v, want CANCELLED, VOIDED", got)
	}
}
