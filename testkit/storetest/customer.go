package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
)

// Customer is the suite of the customer store (customer.Store and
// customer.Tx): every method and its error codes, changes rolled back
// with their events, the list filters, the login failures, refresh and
// reset tokens, and the OAuth clients.
func Customer(t *testing.T, open Opener) {
	t.Run("customers", func(t *testing.T) { customerCRUD(t, open(t)) })
	t.Run("rolled back with its events", func(t *testing.T) { customerRollback(t, open(t)) })
	t.Run("list filters and paging", func(t *testing.T) { customerList(t, open(t)) })
	t.Run("list pattern past the time limit", func(t *testing.T) { customerPatterns(t, open(t)) })
	t.Run("login failures", func(t *testing.T) { customerFailures(t, open(t)) })
	t.Run("refresh and reset tokens", func(t *testing.T) { customerTokens(t, open(t)) })
	t.Run("clients", func(t *testing.T) { customerClients(t, open(t)) })
	t.Run("carts of a customer", func(t *testing.T) { customerCarts(t, open(t)) })
	t.Run("sweep", func(t *testing.T) { customerSweep(t, open(t)) })
	t.Run("privacy", func(t *testing.T) { privacy(t, open) })
}

// customerSweep: Sweep deletes the refresh and reset tokens expired at
// now (spent or not) and the failures of emails whose newest failure is
// before the cut, over more rows than one batch, and keeps the rest.
func customerSweep(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	c := fixtureCustomer("ada@example.com", "B2C")
	insertCustomers(t, s, c)
	now := customerT0.Add(48 * time.Hour)
	cut := now.Add(-15 * time.Minute)
	const stale = 1234 // more than a batch
	err := s.Update(ctx, func(tx customer.Tx) error {
		for _, r := range []customer.RefreshToken{{Hash: "old", Family: "A", ExpiresAt: now.Add(-time.Second)},
			{Hash: "spent-old", Family: "A", ExpiresAt: now, Spent: true}, {Hash: "live", Family: "A", ExpiresAt: now.Add(time.Second)}} {
			r.CustomerID = c.ID
			if err := tx.InsertRefresh(ctx, r); err != nil {
				return err
			}
		}
		for _, r := range []customer.ResetToken{{Hash: "old", ExpiresAt: now}, {Hash: "live", ExpiresAt: now.Add(time.Minute)}} {
			r.CustomerID = c.ID
			if err := tx.InsertReset(ctx, r); err != nil {
				return err
			}
		}
		for i := range stale {
			if err := tx.SetFailures(ctx, fmt.Sprintf("ghost%04d@example.com", i), []time.Time{cut.Add(-time.Hour), cut.Add(-time.Millisecond)}); err != nil {
				return err
			}
		}
		// An email with an old failure and a recent one is kept whole.
		if err := tx.SetFailures(ctx, "ghost0500x@example.com", []time.Time{cut.Add(-time.Hour), cut}); err != nil {
			return err
		}
		return tx.SetFailures(ctx, "zed@example.com", []time.Time{now})
	})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Sweep(ctx, now, cut)
	if err != nil || n != 2+1+stale {
		t.Fatalf("Sweep: %d %v, want %d rows", n, err, 2+1+stale)
	}
	for q, want := range map[string]int{
		`SELECT COUNT(*) FROM refresh_tokens WHERE hash = 'live'`:                                          1,
		`SELECT COUNT(*) FROM refresh_tokens`:                                                              1,
		`SELECT COUNT(*) FROM password_resets WHERE hash = 'live'`:                                         1,
		`SELECT COUNT(*) FROM password_resets`:                                                             1,
		`SELECT COUNT(*) FROM login_failures`:                                                              2,
		`SELECT COUNT(*) FROM login_failures WHERE email IN ('ghost0500x@example.com', 'zed@example.com')`: 2,
	} {
		if got := count(t, db, q); got != want {
			t.Errorf("%s: %d, want %d", q, got, want)
		}
	}
	if n, err := s.Sweep(ctx, now, cut); n != 0 || err != nil {
		t.Errorf("a second sweep: %d %v", n, err)
	}
}

// customerCarts: CartIDs lists the customer's carts in any status, and
// no one else's.
func customerCarts(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	newCart := func(customerID, status string) *cart.Cart {
		return &cart.Cart{ID: commerce.NewID(), CustomerID: customerID, Status: status, Currency: "USD", Country: "US",
			Channel: "web", ExpirationTime: customerT0.Add(time.Hour), CreatedAt: customerT0, UpdatedAt: customerT0, Items: []*cart.Entry{}}
	}
	mine := []*cart.Cart{newCart("c1", cart.StatusActive), newCart("c1", cart.StatusCheckedOut), newCart("c1", cart.StatusExpired)}
	others := []*cart.Cart{newCart("c2", cart.StatusActive), newCart(cart.Anonymous, cart.StatusActive)}
	err := s.Update(ctx, func(tx customer.Tx) error {
		for _, c := range append(append([]*cart.Cart{}, mine...), others...) {
			if err := tx.Cart().Insert(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = s.Update(ctx, func(tx customer.Tx) error {
		var err error
		got, err = tx.CartIDs(ctx, "c1")
		return err
	})
	want := map[string]bool{}
	for _, c := range mine {
		want[c.ID] = true
	}
	if err != nil || len(got) != len(mine) {
		t.Fatalf("CartIDs: %v %v, want %d carts", got, err, len(mine))
	}
	for _, id := range got {
		if !want[id] {
			t.Errorf("CartIDs gave %s, not the customer's", id)
		}
	}
	err = s.Update(ctx, func(tx customer.Tx) error {
		var err error
		got, err = tx.CartIDs(ctx, "nobody")
		return err
	})
	if err != nil || len(got) != 0 {
		t.Errorf("CartIDs of a customer without carts: %v %v", got, err)
	}
}

var customerT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func fixtureCustomer(email, typ string) *customer.Customer {
	return &customer.Customer{ID: commerce.NewID(), Email: email, FirstName: "Ada", LastName: "L", Phone: "1",
		CustomerType: typ, Groups: []string{}, CreatedAt: customerT0, PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
		Addresses: []customer.Address{{ID: "a1", Default: true, Address: cart.Address{FirstName: "Ada", Address1: "x",
			PostCode: "1", City: "c", State: "HI", Country: "US"}}}}
}

func insertCustomers(t *testing.T, s *sqldb.CustomerStore, cs ...*customer.Customer) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cs {
		if err := s.Update(ctx, func(tx customer.Tx) error { return tx.Insert(ctx, c) }); err != nil {
			t.Fatalf("insert %s: %v", c.Email, err)
		}
	}
}

func customerCRUD(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	c := fixtureCustomer("ada@example.com", "B2C")
	insertCustomers(t, s, c)
	for _, get := range []func() (*customer.Customer, error){
		func() (*customer.Customer, error) { return s.Customer(ctx, c.ID) },
		func() (*customer.Customer, error) { return s.CustomerByEmail(ctx, c.Email) },
	} {
		if got, err := get(); err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("read back: %+v, %v; want %+v", got, err, c)
		}
	}
	for _, tc := range []struct {
		name string
		err  error
		code string
		data any
	}{
		{"Customer of an unknown id", func() error { _, err := s.Customer(ctx, "nope"); return err }(), commerce.ECustomerNotFound, "nope"},
		{"CustomerByEmail of an unknown email", func() error { _, err := s.CustomerByEmail(ctx, "x@y.z"); return err }(), commerce.ECustomerNotFound, "x@y.z"},
		{"Insert of a taken email", s.Update(ctx, func(tx customer.Tx) error { return tx.Insert(ctx, fixtureCustomer(c.Email, "B2C")) }), commerce.EDuplicateKey, nil},
		{"Lock of an unknown id", s.Update(ctx, func(tx customer.Tx) error { _, err := tx.Lock(ctx, "nope"); return err }), commerce.ECustomerNotFound, "nope"},
		{"Save of an unknown id", s.Update(ctx, func(tx customer.Tx) error { return tx.Save(ctx, fixtureCustomer("n@e.w", "B2C")) }), commerce.ECustomerNotFound, nil},
		{"Delete of an unknown id", s.Update(ctx, func(tx customer.Tx) error { return tx.Delete(ctx, "nope") }), commerce.ECustomerNotFound, "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, tc.name, tc.err, tc.code, tc.data) })
	}
	// Save keeps what changed.
	err := s.Update(ctx, func(tx customer.Tx) error {
		l, err := tx.Lock(ctx, c.ID)
		if err != nil {
			return err
		}
		l.FirstName, l.CustomerType, l.PasswordHash, l.Addresses = "Augusta", "VIP", "$argon2id$new", []customer.Address{}
		return tx.Save(ctx, l)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Customer(ctx, c.ID)
	if err != nil || got.FirstName != "Augusta" || got.CustomerType != "VIP" || got.PasswordHash != "$argon2id$new" || len(got.Addresses) != 0 || got.Email != c.Email {
		t.Errorf("after Save: %+v %v", got, err)
	}
	// Delete takes the tokens along.
	err = s.Update(ctx, func(tx customer.Tx) error {
		if err := tx.InsertRefresh(ctx, customer.RefreshToken{Hash: "r1", Family: "f", CustomerID: c.ID, ExpiresAt: customerT0.Add(time.Hour)}); err != nil {
			return err
		}
		return tx.InsertReset(ctx, customer.ResetToken{Hash: "p1", CustomerID: c.ID, ExpiresAt: customerT0.Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx customer.Tx) error { return tx.Delete(ctx, c.ID) }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Customer(ctx, c.ID); commerce.ErrorCode(err) != commerce.ECustomerNotFound {
		t.Errorf("after Delete: %v", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM refresh_tokens`) + count(t, db, `SELECT COUNT(*) FROM password_resets`); n != 0 {
		t.Errorf("%d tokens outlived their customer", n)
	}
}

func customerRollback(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx customer.Tx) error {
		if err := tx.Insert(ctx, fixtureCustomer("ada@example.com", "B2C")); err != nil {
			return err
		}
		if err := tx.SetFailures(ctx, "ada@example.com", []time.Time{customerT0}); err != nil {
			return err
		}
		tx.Emit(areaEvent(t, event.Customers, event.Create))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if _, err := s.CustomerByEmail(ctx, "ada@example.com"); commerce.ErrorCode(err) != commerce.ECustomerNotFound {
		t.Errorf("a rolled-back customer is there: %v", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM login_failures`); n != 0 {
		t.Errorf("rolled-back failures: %d", n)
	}
	if types, _ := channelEvents(t, db, event.Customers); len(types) != 0 {
		t.Errorf("rolled-back events: %v", types)
	}
	err = s.Update(ctx, func(tx customer.Tx) error {
		tx.Emit(areaEvent(t, event.Customers, event.Create))
		return tx.Insert(ctx, fixtureCustomer("ada@example.com", "B2C"))
	})
	if types, _ := channelEvents(t, db, event.Customers); err != nil || len(types) != 1 {
		t.Errorf("committed: %v %v", types, err)
	}
}

func customerList(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	all := []*customer.Customer{fixtureCustomer("ada@example.com", "B2C"), fixtureCustomer("bob@shop.test", "VIP"),
		fixtureCustomer("carol@example.com", "B2B"), fixtureCustomer("dan@example.com", "VIP")}
	insertCustomers(t, s, all...)
	vals := make([]customer.Customer, len(all))
	for i, c := range all {
		vals[i] = *c
	}
	p := func(s string) *commerce.Pattern { x := commerce.Pattern(s); return &x }
	for _, tc := range []struct {
		name string
		f    customer.Filter
		want []int
	}{
		{"all in creation order", customer.Filter{Limit: 10}, []int{0, 1, 2, 3}},
		{"paged", customer.Filter{Limit: 2, Skip: 1}, []int{1, 2}},
		{"past the end", customer.Filter{Limit: 2, Skip: 9}, []int{}},
		{"email pattern, case-insensitive", customer.Filter{Email: p("EXAMPLE\\.com$"), Limit: 10}, []int{0, 2, 3}},
		{"types", customer.Filter{CustomerTypes: []string{"VIP", "B2B"}, Limit: 10}, []int{1, 2, 3}},
		{"both", customer.Filter{Email: p("^d"), CustomerTypes: []string{"VIP"}, Limit: 10}, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Customers(ctx, tc.f)
			wantList(t, got, err, vals, tc.want)
		})
	}
}

// customerPatterns: the email filter has the time limit of every regex
// filter (issue 9 defect 1).
func customerPatterns(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	fill := func(n int) {
		cs := make([]*customer.Customer, n)
		for i := range cs {
			cs[i] = fixtureCustomer(fmt.Sprint(i, slowTitle, "@example.com"), "B2C")
		}
		insertCustomers(t, s, cs...)
	}
	wantPatternTimeout(t, db, fill, func(p *commerce.Pattern) error {
		_, err := s.Customers(ctx, customer.Filter{Email: p, Limit: 10})
		return err
	}, "email")
}

func customerFailures(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	at := []time.Time{customerT0, customerT0.Add(time.Second)}
	var got []time.Time
	err := s.Update(ctx, func(tx customer.Tx) error {
		none, err := tx.LockFailures(ctx, "ada@example.com")
		if err != nil || len(none) != 0 {
			t.Errorf("fresh email: %v %v", none, err)
		}
		return tx.SetFailures(ctx, "ada@example.com", at)
	})
	if err == nil {
		err = s.Update(ctx, func(tx customer.Tx) error { got, err = tx.LockFailures(ctx, "ada@example.com"); return err })
	}
	if err != nil || !reflect.DeepEqual(got, at) {
		t.Errorf("failures %v %v, want %v", got, err, at)
	}
	// Forgetting deletes the row.
	if err := s.Update(ctx, func(tx customer.Tx) error { return tx.SetFailures(ctx, "ada@example.com", nil) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM login_failures`); n != 0 {
		t.Errorf("%d rows after forgetting", n)
	}
	// Concurrent appends, each locking the row first, lose none.
	concurrently(t, 10, func() error {
		return s.Update(ctx, func(tx customer.Tx) error {
			cur, err := tx.LockFailures(ctx, "bob@example.com")
			if err != nil {
				return err
			}
			return tx.SetFailures(ctx, "bob@example.com", append(cur, customerT0))
		})
	})
	_ = s.Update(ctx, func(tx customer.Tx) error { got, err = tx.LockFailures(ctx, "bob@example.com"); return err })
	if len(got) != 10 {
		t.Errorf("10 concurrent appends left %d failures", len(got))
	}
}

func customerTokens(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	c := fixtureCustomer("ada@example.com", "B2C")
	insertCustomers(t, s, c)
	up := func(fn func(tx customer.Tx) error) error { return s.Update(ctx, fn) }
	exp := customerT0.Add(time.Hour)
	if err := up(func(tx customer.Tx) error {
		for _, r := range []customer.RefreshToken{{Hash: "a1", Family: "A"}, {Hash: "a2", Family: "A"}, {Hash: "b1", Family: "B"}} {
			r.CustomerID, r.ExpiresAt = c.ID, exp
			if err := tx.InsertRefresh(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got *customer.RefreshToken
	err := up(func(tx customer.Tx) error {
		if err := tx.SpendRefresh(ctx, "a1"); err != nil {
			return err
		}
		var err error
		got, err = tx.LockRefresh(ctx, "a1")
		return err
	})
	want := &customer.RefreshToken{Hash: "a1", Family: "A", CustomerID: c.ID, ExpiresAt: exp, Spent: true}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("LockRefresh: %+v %v, want %+v", got, err, want)
	}
	for _, tc := range []struct {
		name string
		err  error
		code string
	}{
		{"LockRefresh of an unknown hash", up(func(tx customer.Tx) error { _, err := tx.LockRefresh(ctx, "zz"); return err }), commerce.EInvalidToken},
		{"SpendRefresh of an unknown hash", up(func(tx customer.Tx) error { return tx.SpendRefresh(ctx, "zz") }), commerce.EInvalidToken},
		{"InsertRefresh of a hash in use", up(func(tx customer.Tx) error {
			return tx.InsertRefresh(ctx, customer.RefreshToken{Hash: "a1", Family: "C", CustomerID: c.ID, ExpiresAt: exp})
		}), commerce.EDuplicateKey},
		{"TakeReset of an unknown hash", up(func(tx customer.Tx) error { _, err := tx.TakeReset(ctx, "zz", customerT0); return err }), commerce.EInvalidResetToken},
		{"ResetToken of an unknown hash", func() error { _, err := s.ResetToken(ctx, "zz"); return err }(), commerce.EInvalidResetToken},
	} {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, tc.name, tc.err, tc.code, nil) })
	}
	if err := up(func(tx customer.Tx) error { return tx.RevokeFamily(ctx, "A") }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM refresh_tokens`); n != 1 {
		t.Errorf("after RevokeFamily: %d tokens, want 1", n)
	}
	if err := up(func(tx customer.Tx) error { return tx.RevokeCustomer(ctx, c.ID) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM refresh_tokens`); n != 0 {
		t.Errorf("after RevokeCustomer: %d tokens", n)
	}

	// Reset tokens: taken once, and not after they expire.
	if err := up(func(tx customer.Tx) error {
		for _, h := range []string{"r1", "r2", "r3"} {
			if err := tx.InsertReset(ctx, customer.ResetToken{Hash: h, CustomerID: c.ID, ExpiresAt: exp}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rt, err := s.ResetToken(ctx, "r1"); err != nil || rt.CustomerID != c.ID || !rt.ExpiresAt.Equal(exp) {
		t.Errorf("ResetToken: %+v %v", rt, err)
	}
	var taken *customer.ResetToken
	err = up(func(tx customer.Tx) error {
		var err error
		taken, err = tx.TakeReset(ctx, "r1", customerT0)
		return err
	})
	if err != nil || taken.Hash != "r1" || taken.CustomerID != c.ID {
		t.Errorf("TakeReset: %+v %v", taken, err)
	}
	err = up(func(tx customer.Tx) error { _, err := tx.TakeReset(ctx, "r1", customerT0); return err })
	wantCode(t, "TakeReset twice", err, commerce.EInvalidResetToken, nil)
	err = up(func(tx customer.Tx) error { _, err := tx.TakeReset(ctx, "r2", exp); return err })
	wantCode(t, "TakeReset of an expired token", err, commerce.EInvalidResetToken, nil)
	if err := up(func(tx customer.Tx) error { return tx.DeleteResets(ctx, c.ID) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM password_resets`); n != 0 {
		t.Errorf("after DeleteResets: %d", n)
	}
}

func customerClients(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewCustomerStore(db)
	var all []customer.Client
	for i, name := range []string{"erp", "shop", "pim"} {
		c := customer.Client{ID: commerce.NewID(), Name: name, Scope: "api", CreatedAt: customerT0.Add(time.Duration(i) * time.Second), SecretHash: "h" + name}
		if err := s.Update(ctx, func(tx customer.Tx) error { return tx.InsertClient(ctx, c) }); err != nil {
			t.Fatal(err)
		}
		all = append(all, c)
	}
	if got, err := s.Client(ctx, all[1].ID); err != nil || !reflect.DeepEqual(*got, all[1]) {
		t.Errorf("Client: %+v %v", got, err)
	}
	got, err := s.Clients(ctx, 2, 1)
	wantList(t, got, err, all, []int{1, 2})
	_, err = s.Client(ctx, "nope")
	wantCode(t, "Client of an unknown id", err, commerce.EClientNotFound, "nope")
	err = s.Update(ctx, func(tx customer.Tx) error { return tx.InsertClient(ctx, all[0]) })
	wantCode(t, "InsertClient of an id in use", err, commerce.EDuplicateKey, nil)
	var removed *customer.Client
	err = s.Update(ctx, func(tx customer.Tx) error { removed, err = tx.RemoveClient(ctx, all[0].ID); return err })
	if err != nil || !reflect.DeepEqual(*removed, all[0]) {
		t.Errorf("RemoveClient: %+v %v", removed, err)
	}
	err = s.Update(ctx, func(tx customer.Tx) error { _, err := tx.RemoveClient(ctx, all[0].ID); return err })
	wantCode(t, "RemoveClient twice", err, commerce.EClientNotFound, all[0].ID)
}
