package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestExecAtCommitInterrupted: a statement sent with the COMMIT that
// waits for a row lock is interrupted when its caller goes away, as the
// statements run before the commit are: Update returns while the lock is
// still held, with the outcome the database gave (the statement canceled,
// nothing committed), and the pool's connections all work afterwards.
func TestExecAtCommitInterrupted(t *testing.T) {
	url := testdb.PostgresURL(t)
	db := testdb.PostgresAt(t, url)
	ctx := context.Background()
	newPipe(t, db)
	locker, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	held, err := locker.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback()
	if _, err := held.ExecContext(ctx, `SELECT 1 FROM pipe WHERE id = 'a' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}

	gone, leave := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- db.Update(gone, func(tx *sqldb.Tx) error {
			tx.Emit(newEvent(t, "waits"))
			return tx.ExecAtCommit(ctx, checkedAdd(t, tx, "a", errors.New("unmet")))
		})
	}()
	testdb.WaitBlocked(t, db, 1) // the UPDATE, sent with the COMMIT, waits for the lock
	leave()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second): // under the 25 s after which the commit interrupts itself
		t.Fatal("Update still waits for the row lock after its caller went away")
	}
	if !errors.Is(err, sqldb.ErrStatementCanceled) {
		t.Errorf("a caller gone while its statement waits at the commit: %v, want the statement canceled", err)
	}
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}
	var events int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if n, _ := pipeCounts(t, db); n != 0 || events != 0 {
		t.Errorf("after an interrupted commit: n = %d and %d events, want nothing committed", n, events)
	}
	for i := range 3 * testdb.MaxConns {
		if err := db.Update(ctx, func(tx *sqldb.Tx) error {
			return tx.ExecAtCommit(ctx, checkedAdd(t, tx, "a", errors.New("unmet")))
		}); err != nil {
			t.Fatalf("transaction %d after the interrupted one: %v", i, err)
		}
	}
}
