package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
