package customer_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
)

// waitBlocked waits until n write transactions wait: on PostgreSQL for a
// row lock (pg_stat_activity), on SQLite for their turn at the single
// writer (Stats().Queued). It fails the test after 10 seconds.
func waitBlocked(t testing.TB, db *sqldb.DB, n int) {
	t.Helper()
	_, pg := db.Dialect().(postgres.Dialect)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		if pg {
			if err := db.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&got); err != nil {
				t.Fatal(err)
			}
		} else {
			got = int(db.Stats().Queued)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions wait, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hold runs fn in a write transaction in the background and keeps the
// transaction open, after fn, until release is called; held is closed once
// fn ran. The transaction's error is sent on done.
func hold(db *sqldb.DB, fn func(ctx context.Context, tx *sqldb.Tx) error) (held <-chan struct{}, release func(), done <-chan error) {
	h, r, d := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once, ro sync.Once
	go func() {
		d <- db.Update(context.Background(), func(tx *sqldb.Tx) error {
			if err := fn(context.Background(), tx); err != nil {
				return err
			}
			once.Do(func() { close(h) })
			<-r
			return nil
		})
	}()
	return h, func() { ro.Do(func() { close(r) }) }, d
}

// TestLockFailuresRowDeletedMeanwhile: a transaction holds the email's
// failure row, a transaction deleting it (a success, a removal, a reset,
// the sweep) queues behind it, then a second attempt queues behind both.
// The second attempt must find the row gone and start afresh, not fail
// (it was "sql: no rows in result set", 500, on PostgreSQL, when the row
// was created and then locked by two statements).
func TestLockFailuresRowDeletedMeanwhile(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := sqldb.NewCustomerStore(db)
		ctx := context.Background()
		const email = "race@example.com"
		now := time.Now().UTC().Truncate(time.Millisecond)
		// An earlier failure: the row is there (committed) when the
		// attempts come.
		if err := s.Update(ctx, func(tx customer.Tx) error { return tx.SetFailures(ctx, email, []time.Time{now.Add(-time.Minute)}) }); err != nil {
			t.Fatal(err)
		}

		// The row is held (as the sweep holds the rows it reads, or an
		// attempt that locked it)...
		held, release, first := hold(db, func(ctx context.Context, tx *sqldb.Tx) error {
			var raw string
			return tx.QueryRow(ctx, `SELECT failures FROM login_failures WHERE email = ?`+tx.ForUpdate(), email).Scan(&raw)
		})
		defer release()
		<-held
		deleted := make(chan error, 1)
		go func() {
			deleted <- s.Update(ctx, func(tx customer.Tx) error { return tx.SetFailures(ctx, email, nil) })
		}()
		// ... a deletion of it queues behind...
		waitBlocked(t, db, 1)
		// ... and an attempt behind both: it runs once the deletion
		// committed.
		var seen []time.Time
		second := make(chan error, 1)
		go func() {
			second <- s.Update(ctx, func(tx customer.Tx) error {
				at, err := tx.LockFailures(ctx, email)
				if err != nil {
					return err
				}
				seen = at
				return tx.SetFailures(ctx, email, append(at, now.Add(time.Second)))
			})
		}()
		waitBlocked(t, db, 2)
		release()
		for what, ch := range map[string]chan error{"delete": deleted, "second attempt": second} {
			if err := <-ch; err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
		if err := <-first; err != nil {
			t.Errorf("holder: %v", err)
		}
		if len(seen) != 0 {
			t.Errorf("second attempt saw failures %v, want none (deleted before it)", seen)
		}
		// The second attempt's failure is recorded: a third sees it.
		var third []time.Time
		if err := s.Update(ctx, func(tx customer.Tx) (err error) { third, err = tx.LockFailures(ctx, email); return err }); err != nil {
			t.Fatal(err)
		}
		if len(third) != 1 || !third[0].Equal(now.Add(time.Second)) {
			t.Errorf("failures after the second attempt %v", third)
		}
	})
}
