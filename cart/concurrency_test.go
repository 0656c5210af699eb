package cart_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// addConcurrently sends n addToCart requests of one unit of product to
// cartIDs[i % len(cartIDs)] at once, through the servers in turn, and
// returns how many succeeded and the error codes of the others.
func addConcurrently(t *testing.T, servers []*apitest.Server, token string, cartIDs []string, product string, n int) (int, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	ok, failed := 0, map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			srv := servers[i%len(servers)]
			r := srv.Post(t, "/cart/v1/cart.addToCart", token, map[string]any{"cartId": cartIDs[i%len(cartIDs)], "items": itemList(product, 1)})
			mu.Lock()
			defer mu.Unlock()
			if r.OK {
				ok++
			} else {
				failed[r.Error]++
			}
		})
	}
	close(start)
	wg.Wait()
	return ok, failed
}

func TestConcurrentAddToCart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("P", nil)
		s.stock(p, "W1", 1000)
		c := s.newCart(s.API, nil)

		ok, failed := addConcurrently(t, []*apitest.Server{s.Server}, s.API, []string{c.ID}, p, 20)
		got := s.info(s.API, c.ID)
		if len(got.Items) != 1 || got.Items[0].Quantity != ok {
			t.Fatalf("got entries %+v after %d successful adds, want one entry with %d units", got.Items, ok, ok)
		}
		if ok != 20 {
			t.Errorf("got %d successes and failures %v, want all 20 to succeed (they queue on the cart's row)", ok, failed)
		}
		if _, reserved := s.stockInfo(p, "W1"); reserved != ok {
			t.Errorf("got %d reserved, want %d", reserved, ok)
		}
		var units int
		for _, r := range got.Items[0].Reserves {
			units += r.Quantity
		}
		if units != ok {
			t.Errorf("got reserves of %d units, want %d", units, ok)
		}
		var updates int
		for _, e := range s.events() {
			if e.Type == "UPDATE" {
				updates++
			}
		}
		if updates != ok {
			t.Errorf("got %d UPDATE events, want one per successful add (%d)", updates, ok)
		}
	})
}

func TestRaceForStock(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("P", nil)
		s.stock(p, "W1", 3)
		carts := make([]string, 40)
		for i := range carts {
			carts[i] = s.newCart(s.API, nil).ID
		}
		ok, failed := addConcurrently(t, []*apitest.Server{s.Server}, s.API, carts, p, 40)
		if ok != 3 || failed["not_enough_stock"] != 37 {
			t.Errorf("got %d successes and failures %v, want 3 and 37 not_enough_stock", ok, failed)
		}
		held := 0
		for _, id := range carts {
			for _, e := range s.info(s.API, id).Items {
				held += e.Quantity
			}
		}
		if held != 3 {
			t.Errorf("got %d units in carts, want 3", held)
		}
		if q, reserved := s.stockInfo(p, "W1"); q != 3 || reserved != 3 {
			t.Errorf("got stock %d reserved %d, want 3 and 3", q, reserved)
		}
	})
}

// TestTwoInstances runs the concurrency tests' scenarios through two
// instances of the service, each with its own connection pools, on one
// PostgreSQL database: what two processes behind a load balancer do.
func TestTwoInstances(t *testing.T) {
	url := testdb.PostgresURL(t)
	s := newShop(t, testdb.PostgresAt(t, url))
	other := apitest.New(t, testdb.PostgresAt(t, url))
	servers := []*apitest.Server{s.Server, other}

	p := s.product("P", nil)
	s.stock(p, "W1", 3)
	carts := make([]string, 40)
	for i := range carts {
		carts[i] = s.newCart(s.API, nil).ID
	}
	ok, failed := addConcurrently(t, servers, s.API, carts, p, 40)
	if ok != 3 || failed["not_enough_stock"] != 37 {
		t.Errorf("race for stock: got %d successes and failures %v, want 3 and 37 not_enough_stock", ok, failed)
	}

	q := s.product("Q", nil)
	s.stock(q, "W1", 1000)
	c := s.newCart(s.API, nil)
	ok, failed = addConcurrently(t, servers, s.API, []string{c.ID}, q, 20)
	got := s.info(s.API, c.ID)
	if len(got.Items) != 1 || got.Items[0].Quantity != ok || ok != 20 {
		t.Errorf("one cart: got entries %+v after %d successes (failures %v), want 20 units", got.Items, ok, failed)
	}
	if _, reserved := s.stockInfo(q, "W1"); reserved != ok {
		t.Errorf("got %d reserved, want %d", reserved, ok)
	}
}

// TestCartChangedByAnotherProcess: each process keeps the carts it changed
// last in memory and starts its next change of a cart from there. A cart
// changed meanwhile by another process sharing the database is found
// moved when the change is stored, and the change is made again on the
// stored cart: no change is lost, and every answer shows the cart as
// stored, reservations included.
func TestCartChangedByAnotherProcess(t *testing.T) {
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		s, other, p, q, c := twoProcesses(t, a, b)

		s.add(s.API, c.ID, p, 1)     // cached by s
		other.add(s.API, c.ID, q, 2) // s's copy is now stale
		got := s.add(s.API, c.ID, p, 3)
		if n := len(got.Items); n != 2 {
			t.Fatalf("got %d entries, want P and Q (the other process's change kept)", n)
		}
		if e := got.entry(t, p); e.Quantity != 4 || len(e.Reserves) != 2 {
			t.Errorf("P: %d units in %d reservations, want 4 in 2", e.Quantity, len(e.Reserves))
		}
		if e := got.entry(t, q); e.Quantity != 2 || len(e.Reserves) != 1 {
			t.Errorf("Q: %d units in %d reservations, want 2 in 1", e.Quantity, len(e.Reserves))
		}
		// What addToCart answered is what is stored, seen from both
		// processes: the same reservations, ids and times.
		for _, srv := range []*shop{s, other} {
			info := srv.info(s.API, c.ID)
			for _, id := range []string{p, q} {
				if want, stored := got.entry(t, id).Reserves, info.entry(t, id).Reserves; !reflect.DeepEqual(want, stored) {
					t.Errorf("product %s: addToCart showed reserves %+v, the stored cart has %+v", id, want, stored)
				}
			}
		}
		if _, reserved := s.stockInfo(p, "W1"); reserved != 4 {
			t.Errorf("P: %d reserved, want 4", reserved)
		}
		// A removal through the other process, then an add through this
		// one: the removal holds.
		other.Post(t, "/cart/v1/cart.removeFromCart", s.API, map[string]any{"cartId": c.ID, "itemId": got.entry(t, q).ID, "quantity": 2}).Must(t)
		got = s.add(s.API, c.ID, p, 1)
		if len(got.Items) != 1 || got.entry(t, p).Quantity != 5 {
			t.Errorf("got %+v, want P alone with 5 units", got.Items)
		}
		if _, reserved := s.stockInfo(q, "W1"); reserved != 0 {
			t.Errorf("Q: %d reserved after its removal, want 0", reserved)
		}
	})
}

// TestStaleCopyRefusesNothing: a refusal, or a cart that is not ACTIVE
// given as it stands, is not a change stored over the version read, which
// would catch a cart changed meanwhile. So it comes from the stored cart,
// never from this process's copy of it, which another process may have
// made stale.
func TestStaleCopyRefusesNothing(t *testing.T) {
	testdb.EachPair(t, func(t *testing.T, a, b *sqldb.DB) {
		s, other, p, q, c := twoProcesses(t, a, b)

		s.add(s.API, c.ID, p, 1)              // cached by s
		added := other.add(s.API, c.ID, q, 2) // s's copy has no Q
		var got addCart
		s.Post(t, "/cart/v1/cart.removeFromCart", s.API, map[string]any{"cartId": c.ID, "itemId": added.entry(t, q).ID, "quantity": 2}).
			Must(t).Decode(t, "cart", &got)
		if len(got.Items) != 1 || got.entry(t, p).Quantity != 1 {
			t.Errorf("after removing Q through the process whose copy lacked it: %+v, want P alone", got.Items)
		}
		if _, reserved := s.stockInfo(q, "W1"); reserved != 0 {
			t.Errorf("Q: %d reserved after its removal, want 0", reserved)
		}
	})
}

// twoProcesses starts the service twice, over a and b (one store), with
// the products P and Q, 100 units of each in W1, and a cart of the shop's
// api token: what TestCartChangedByAnotherProcess and
// TestStaleCopyRefusesNothing start from.
func twoProcesses(t *testing.T, a, b *sqldb.DB) (s, other *shop, p, q string, c calcCart) {
	t.Helper()
	s = newShop(t, a)
	other = &shop{Server: apitest.New(t, b), t: t, category: s.category}
	p, q = s.product("P", nil), s.product("Q", nil)
	s.stock(p, "W1", 100)
	s.stock(q, "W1", 100)
	return s, other, p, q, s.newCart(s.API, nil)
}
