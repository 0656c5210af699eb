package stripemock_test

import (
	"net/http"
	"testing"

	"github.com/commercekit/commerce/testkit/stripemock"
)

func TestStart(t *testing.T) {
	url := stripemock.Start(t)
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/payment_intents/pi_123", nil)
	req.Header.Set("Authorization", "Bearer "+stripemock.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET a PaymentIntent: got %d, want 200", res.StatusCode)
	}
}

func TestBinaryRequiredByEnv(t *testing.T) {
	t.Setenv(stripemock.Env, "/nonexistent/stripe-mock")
	if _, required, err := stripemock.Binary(); err == nil || !required {
		t.Errorf("got required %v, err %v; want an error that must fail the test", required, err)
	}
}
