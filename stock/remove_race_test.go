package stock_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/testkit/testdb"
)

// stockRows counts the stock records and reservations of a product.
func stockRows(t testing.TB, db *sqldb.DB, productID string) int {
	t.Helper()
	var n int
	err := db.QueryRow(context.Background(), `SELECT (SELECT COUNT(*) FROM stock WHERE product_id = ?) +
		(SELECT COUNT(*) FROM stock_reservations WHERE product_id = ?)`, productID, productID).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pausingStore holds the first stock transaction that has locked its
// product until release is closed, signalling locked when it gets there.
type pausingStore struct {
	stock.Store
	once    *sync.Once
	locked  chan struct{}
	release chan struct{}
}

func (p pausingStore) Update(ctx context.Context, fn func(tx stock.Tx) error) error {
	return p.Store.Update(ctx, func(tx stock.Tx) error { return fn(pausingTx{tx, p}) })
}

type pausingTx struct {
	stock.Tx
	p pausingStore
}

func (t pausingTx) LockProduct(ctx context.Context, id string) error {
	if err := t.Tx.LockProduct(ctx, id); err != nil {
		return err
	}
	t.p.once.Do(func() {
		close(t.p.locked)
		<-t.p.release
	})
	return nil
}

// A product.remove that comes while a stock.create holds the product waits
// for the record and removes it with the product: no stock is left for a
// product that does not exist.
func TestRemoveWaitsForCreate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		addProducts(t, db, "p1")
		ps := pausingStore{Store: sqldb.NewStockStore(db), once: &sync.Once{}, locked: make(chan struct{}), release: make(chan struct{})}
		svc := stock.NewService(ps, nil, 0)
		cat := catalog.NewService(sqldb.NewCatalogStore(db), nil, nil)
		created := make(chan error, 1)
		go func() {
			_, err := svc.Create(ctx, stock.CreateInput{ProductID: "p1", WarehouseID: "w", Quantity: qty(5)})
			created <- err
		}()
		<-ps.locked
		removed := make(chan error, 1)
		go func() { removed <- cat.RemoveProduct(ctx, "p1") }()
		testdb.WaitBlocked(t, db, 1) // the removal waits for the create
		close(ps.release)
		if err := <-created; err != nil {
			t.Fatalf("create: %v", err)
		}
		if err := <-removed; err != nil {
			t.Fatalf("remove: %v", err)
		}
		if n := stockRows(t, db, "p1"); n != 0 {
			t.Errorf("%d stock rows left for the removed product", n)
		}
		if _, err := svc.Create(ctx, stock.CreateInput{ProductID: "p1", WarehouseID: "w", Quantity: qty(5)}); commerce.ErrorCode(err) != commerce.EProductNotFound {
			t.Errorf("create after the removal: got %v, want product_not_found", err)
		}
	})
}

// stock.create racing product.remove: whichever wins, no stock is left for
// the missing product, and the create either succeeded or answered
// product_not_found.
func TestRemoveRacesCreate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		svc := stock.NewService(sqldb.NewStockStore(db), nil, 0)
		cat := catalog.NewService(sqldb.NewCatalogStore(db), nil, nil)
		const rounds = 30
		ids := make([]string, rounds)
		for i := range ids {
			ids[i] = fmt.Sprintf("race-%d", i)
		}
		addProducts(t, db, ids...)
		outcomes := map[string]int{}
		for _, id := range ids {
			var wg sync.WaitGroup
			start := make(chan struct{})
			var createErr, removeErr error
			wg.Add(3)
			go func() {
				defer wg.Done()
				<-start
				_, createErr = svc.Create(ctx, stock.CreateInput{ProductID: id, WarehouseID: "w1", Quantity: qty(3)})
			}()
			go func() {
				defer wg.Done()
				<-start
				removeErr = cat.RemoveProduct(ctx, id)
			}()
			go func() {
				// A second warehouse, so that two creates race the removal too.
				defer wg.Done()
				<-start
				_, _ = svc.Create(ctx, stock.CreateInput{ProductID: id, WarehouseID: "w2", Quantity: qty(3)})
			}()
			close(start)
			wg.Wait()
			if removeErr != nil {
				t.Fatalf("%s: remove: %v", id, removeErr)
			}
			switch code := commerce.ErrorCode(createErr); {
			case createErr == nil:
				outcomes["created first"]++
			case code == commerce.EProductNotFound:
				outcomes["removed first"]++
			default:
				t.Fatalf("%s: create: %v, want success or product_not_found", id, createErr)
			}
			if n := stockRows(t, db, id); n != 0 {
				t.Fatalf("%s: %d stock rows left for the removed product", id, n)
			}
		}
		t.Logf("outcomes: %v", outcomes)
	})
}

// A product.remove that comes while a cart's transaction is reserving the
// product's stock (holding its stock row, its reservation written but not
// committed) waits for it and removes that reservation too: it neither
// fails on the reservation's reference to the stock row nor leaves it.
// A reservation that comes after the removal finds no stock.
func TestRemoveWaitsForReservation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 0)
		f.create(t, "p1", "w1", 5)
		reserved, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- f.store.Update(ctx, func(tx stock.Tx) error {
				if _, err := f.svc.Reserve(ctx, tx, stock.Reservation{CartID: "c1", ItemID: "i1", ProductID: "p1", WarehouseID: "w1", Quantity: 2}); err != nil {
					return err
				}
				close(reserved)
				<-release
				return nil
			})
		}()
		<-reserved
		removed := make(chan error, 1)
		go func() { removed <- catalog.NewService(sqldb.NewCatalogStore(db), nil, nil).RemoveProduct(ctx, "p1") }()
		testdb.WaitBlocked(t, db, 1) // the removal waits for the reservation
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("reserve: %v", err)
		}
		if err := <-removed; err != nil {
			t.Fatalf("remove while a reservation was being made: %v", err)
		}
		if n := stockRows(t, db, "p1"); n != 0 {
			t.Errorf("%d stock rows left for the removed product", n)
		}
		if _, err := f.reserve("c2", "p1", "w1", 1); err == nil {
			t.Error("a reservation after the removal succeeded")
		}
	})
}

// product.remove takes the product's stock records with it, reservations
// included, and leaves other products' stock alone.
func TestRemoveTakesStock(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		f := newFixture(t, db, 0)
		f.create(t, "p1", "w1", 5)
		f.create(t, "p1", "w2", 5)
		f.create(t, "p2", "w1", 5)
		if _, err := f.reserve("c1", "p1", "w1", 2); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reserve("c1", "p2", "w1", 2); err != nil {
			t.Fatal(err)
		}
		if err := catalog.NewService(sqldb.NewCatalogStore(db), nil, nil).RemoveProduct(context.Background(), "p1"); err != nil {
			t.Fatal(err)
		}
		if n := stockRows(t, db, "p1"); n != 0 {
			t.Errorf("%d stock rows left for the removed product", n)
		}
		if n := stockRows(t, db, "p2"); n != 2 {
			t.Errorf("other product: %d stock rows, want its record and reservation", n)
		}
		f.want(t, "p2", "w1", 5, 2)
	})
}
