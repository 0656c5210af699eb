package customer_test

import (
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestRaisedParameters: a password stored with weaker argon2id parameters
// still signs in, and is stored again with the current ones.
func TestRaisedParameters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		keys, err := auth.New([]byte(apitest.Secret))
		if err != nil {
			t.Fatal(err)
		}
		ctx := commerce.WithClaims(t.Context(), commerce.Claims{Subject: "storefront", Scopes: []string{commerce.ScopeAPI}})
		store := sqldb.NewCustomerStore(db)
		weak := customer.Params{Memory: 8 * 1024, Time: 1, Threads: 1, KeyLen: 32, SaltLen: 16}
		old := customer.NewService(store, keys, time.Now, customer.Options{Params: &weak})
		email, password := "ada@example.com", pw
		c, err := old.Register(ctx, customer.RegisterInput{Email: &email, Password: &password, FirstName: &email})
		if err != nil {
			t.Fatal(err)
		}
		stored := func() string {
			got, err := store.Customer(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got.PasswordHash
		}
		if h := stored(); !strings.HasPrefix(h, "$argon2id$v=19$m=8192,t=1,p=1$") {
			t.Fatalf("stored %q", h)
		}
		cur := customer.NewService(store, keys, time.Now, customer.Options{})
		if _, err := cur.Login(ctx, customer.LoginInput{Email: email, Password: pw}); err != nil {
			t.Fatal(err)
		}
		if h := stored(); !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Errorf("after login with raised parameters: %q", h)
		}
		if _, err := cur.Login(ctx, customer.LoginInput{Email: email, Password: pw}); err != nil {
			t.Errorf("login with the upgraded hash: %v", err)
		}
	})
}
