package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

// Writes is the suite of the write path (sqldb.DB.Update): concurrent
// transactions each commit or roll back on their own, whatever the others
// do (SQLite commits them in groups); a panic reaches its own caller; the
// queue of waiting writes is bounded.
func Writes(t *testing.T, open Opener) {
	t.Run("concurrent writes, some failing", func(t *testing.T) { writesConcurrent(t, open(t)) })
	t.Run("a panic reaches its caller only", func(t *testing.T) { writesPanic(t, open(t)) })
	t.Run("a full queue is unavailable", func(t *testing.T) { writesQueueFull(t, open(t)) })
}

func writesConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	fixtureItems(t, db)
	const n = 60
	errs := make([]error, n)
	failure := errors.New("fixture failure")
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = db.Update(ctx, func(tx *sqldb.Tx) error {
				id := fmt.Sprint(i)
				if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, id, "x"); err != nil {
					return err
				}
				tx.Emit(fixtureEvent(t, "CREATE", map[string]string{"id": id}))
				switch i % 3 {
				case 1: // the function's own failure
					return fmt.Errorf("item %d: %w", i, failure)
				case 2: // a failure of the database: a duplicate
					_, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES (?, ?)`, id, "again")
					return err
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		switch i % 3 {
		case 0:
			if err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		case 1:
			if !errors.Is(err, failure) {
				t.Errorf("write %d: got %v, want its own failure", i, err)
			}
		case 2:
			if commerce.ErrorCode(err) != commerce.EDuplicateKey {
				t.Errorf("write %d: got %v, want duplicate_key", i, err)
			}
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM fixture_items`); got != n/3 {
		t.Errorf("got %d rows, want %d (the writes that succeeded)", got, n/3)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM events`); got != n/3 {
		t.Errorf("got %d events, want %d", got, n/3)
	}
	var bad int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_items WHERE CAST(id AS INTEGER) % 3 <> 0`).Scan(&bad); err != nil || bad != 0 {
		t.Errorf("rows of failed writes: %d, %v", bad, err)
	}
}

func writesPanic(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	fixtureItems(t, db)
	var wg sync.WaitGroup
	var got any
	wg.Go(func() {
		defer func() { got = recover() }()
		db.Update(ctx, func(tx *sqldb.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES ('p', 'panic')`); err != nil {
				return err
			}
			panic("fixture panic")
		})
	})
	var other error
	wg.Go(func() {
		other = db.Update(ctx, func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES ('o', 'other')`)
			return err
		})
	})
	wg.Wait()
	if got != "fixture panic" {
		t.Errorf("the caller recovered %v, want the panic", got)
	}
	if other != nil {
		t.Errorf("the other write: %v", other)
	}
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO fixture_items (id, name) VALUES ('after', 'x')`)
		return err
	}); err != nil {
		t.Fatalf("a write after the panic: %v", err)
	}
	var ids []string
	rows, err := db.Query(ctx, `SELECT id FROM fixture_items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if fmt.Sprint(ids) != "[after o]" {
		t.Errorf("got rows %v, want [after o] (nothing of the panicking write)", ids)
	}
}

func writesQueueFull(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	release := make(chan struct{})
	var started, unavailable atomic.Int64
	var wg sync.WaitGroup
	defer func() {
		close(release)
		wg.Wait()
	}()
	const most = 5000
	for i := 0; i < most && unavailable.Load() == 0; i++ {
		wg.Go(func() {
			err := db.Update(ctx, func(*sqldb.Tx) error {
				started.Add(1)
				<-release
				return nil
			})
			if commerce.ErrorCode(err) == commerce.EUnavailable {
				unavailable.Add(1)
			} else if err != nil {
				t.Errorf("a queued write: %v", err)
			}
		})
		if i%100 == 99 {
			time.Sleep(time.Millisecond) // let the writes take their places
		}
	}
	for deadline := time.Now().Add(10 * time.Second); unavailable.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if unavailable.Load() == 0 {
		t.Fatalf("%d writes waiting, none answered unavailable: the queue is unbounded", most)
	}
}
