package postgres_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestConnectionBudget: a process opens at most MaxConns connections to
// the database, however many requests run at once, so that several
// processes (or test packages) on one server stay under its
// max_connections; a budget under MinMaxConns is refused.
func TestConnectionBudget(t *testing.T) {
	url := testdb.PostgresURL(t)
	ctx := context.Background()
	if _, err := postgres.OpenWith(ctx, url, postgres.Options{MaxConns: postgres.MinMaxConns - 1}); err == nil {
		t.Errorf("a budget of %d connections was accepted", postgres.MinMaxConns-1)
	}

	const budget = 9
	db, err := postgres.OpenWith(ctx, url, postgres.Options{MaxConns: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	watch, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	watch.SetMaxOpenConns(1)

	stop := make(chan struct{})
	peak := 0
	var watched sync.WaitGroup
	watched.Go(func() {
		for {
			var n int
			// The watcher's own connection is not the process's.
			if err := watch.QueryRow(`SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database()`).Scan(&n); err == nil && n > peak {
				peak = n
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})

	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for range 100 {
		wg.Go(func() {
			err := db.Update(ctx, func(tx *sqldb.Tx) error {
				_, err := tx.Exec(ctx, `SELECT pg_sleep(0.005)`)
				return err
			})
			if err == nil {
				err = db.View(ctx, func(tx *sqldb.Tx) error {
					_, err := tx.Exec(ctx, `SELECT pg_sleep(0.005)`)
					return err
				})
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(stop)
	watched.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("under load: %v", err)
	}
	if peak == 0 {
		t.Fatal("the watcher saw no connection of the process")
	}
	if peak > budget {
		t.Errorf("the process held %d connections at once, over its budget of %d", peak, budget)
	}
	t.Logf("peak %d connections of a budget of %d", peak, budget)
}
