package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestLockoutAcrossProcesses runs two `serve` processes on one PostgreSQL
// database and sends 20 wrong logins for one email at once, half to each:
// exactly 5 are judged (invalid_credentials), the other 15 are
// too_many_attempts, because the failures are counted in the database.
func TestLockoutAcrossProcesses(t *testing.T) {
	url := testdb.PostgresURL(t)
	a, b := startChild(t, url), startChild(t, url)
	defer a.stop(t)
	defer b.stop(t)
	keys, err := auth.New([]byte(crashSecret))
	if err != nil {
		t.Fatal(err)
	}
	api, err := keys.Issue(commerce.Claims{Subject: "storefront", Scopes: []string{commerce.ScopeAPI}}, time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	status, body, err := post(client, a.base+"/customer/v1/customer.register", api,
		map[string]any{"email": "ada@example.com", "password": "correct horse battery staple", "firstName": "Ada"})
	if err != nil || status != 200 {
		t.Fatalf("register: %d %v %v", status, body, err)
	}
	codes := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			base := a.base
			if i%2 == 1 {
				base = b.base
			}
			_, body, err := post(client, base+"/auth/v1/auth.login", api, map[string]any{"email": "ada@example.com", "password": "wrong password!"})
			var code string
			if err == nil {
				err = json.Unmarshal(body["error"], &code)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				codes["error: "+err.Error()]++
				return
			}
			codes[code]++
		})
	}
	wg.Wait()
	if codes[commerce.EInvalidCredentials] != 5 || codes[commerce.ETooManyAttempts] != 15 {
		t.Errorf("answers %v, want 5 invalid_credentials and 15 too_many_attempts", codes)
	}
}
