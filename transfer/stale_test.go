package transfer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

// insertRunning writes a RUNNING job row as a process killed mid-import
// leaves it: 40 of 100 rows done, its last beat at beat (Unix ms; 0 is a
// row from before the beat was recorded).
func insertRunning(t *testing.T, db *sqldb.DB, id string, beat int64) {
	t.Helper()
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO import_jobs (id, status, format, dry_run, rows, processed, created, updated, unchanged, rejected,
			errors, started_at, beat_at) VALUES (?, 'RUNNING', 'commerce', 0, 100, 40, 39, 0, 0, 1, ?, ?, ?)`,
			id, `[{"line":7,"sku":"X","error":"validation_error","data":["title: required"]}]`, time.Now().Add(-time.Hour).UnixMilli(), beat)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInterruptedJob: jobs left RUNNING by a process that was killed are
// FAILED with the error interrupted once the service starts (its sweep,
// without anyone asking), or when job.info reads one; their counters and
// row errors stay as the last batch left them. A job whose process beat
// a moment ago (another live process's) stays RUNNING.
func TestInterruptedJob(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		insertRunning(t, db, "swept", 0)
		insertRunning(t, db, "asked", time.Now().Add(-10*time.Minute).UnixMilli())
		srv := apitest.New(t, db)
		store := sqldb.NewTransferStore(db)
		deadline := time.Now().Add(10 * time.Second)
		for {
			j, err := store.Job(t.Context(), "swept")
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != transfer.JobRunning {
				checkInterrupted(t, *j)
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the service started and the killed process's job is still RUNNING")
			}
			time.Sleep(20 * time.Millisecond)
		}
		var j transfer.Job
		srv.Get(t, "/catalog/v1/job.info?id=asked", srv.Admin).Must(t).Decode(t, "job", &j)
		checkInterrupted(t, j)
		insertRunning(t, db, "alive", time.Now().Add(-5*time.Second).UnixMilli())
		var alive transfer.Job
		srv.Get(t, "/catalog/v1/job.info?id=alive", srv.Admin).Must(t).Decode(t, "job", &alive)
		if alive.Status != transfer.JobRunning || alive.FinishedAt != nil {
			t.Errorf("a job beating 5 s ago: %+v, want RUNNING", alive)
		}
	})
}

func checkInterrupted(t *testing.T, j transfer.Job) {
	t.Helper()
	n := len(j.Errors)
	if j.Status != transfer.JobFailed || j.FinishedAt == nil || j.Processed != 40 || j.Created != 39 || j.Rejected != 1 || n != 2 ||
		j.Errors[0].Line != 7 || j.Errors[n-1].Error != transfer.EInterrupted || j.Errors[n-1].Line != 0 {
		t.Errorf("job %s: %+v, want FAILED with its counters, its row error and interrupted", j.ID, j)
	}
}

// TestLostJobStops: a job that another process ended as interrupted
// (its process seemed gone) while it still runs stops at its next batch
// and writes nothing more: neither rows nor its end over the other's.
func TestLostJobStops(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		srv.App.Transfer.Batch = 1
		var b strings.Builder
		b.WriteString("sku,status,title,categories,price.USD\n")
		const n = 400
		for i := range n {
			fmt.Fprintf(&b, "LOST-%d,ONLINE,Lost %d,Cat,1\n", i, i)
		}
		r := upload(t, srv, srv.Admin, []byte(b.String()), nil).Must(t)
		var j transfer.Job
		r.Decode(t, "job", &j)
		ctx := context.Background()
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, `UPDATE import_jobs SET status = 'FAILED', errors = '[{"line":0,"sku":"","error":"interrupted"}]' WHERE id = ?`, j.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		count := func() int {
			var c int
			if err := db.QueryRow(ctx, `SELECT count(*) FROM products`).Scan(&c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		time.Sleep(time.Second)
		c1 := count()
		time.Sleep(500 * time.Millisecond)
		if c2 := count(); c2 != c1 || c1 >= n {
			t.Errorf("products after the job was ended elsewhere: %d, then %d (of %d): it should have stopped", c1, c2, n)
		}
		var got transfer.Job
		srv.Get(t, "/catalog/v1/job.info?id="+j.ID, srv.Admin).Must(t).Decode(t, "job", &got)
		if got.Status != transfer.JobFailed || len(got.Errors) != 1 || got.Errors[0].Error != transfer.EInterrupted {
			t.Errorf("the job: %+v, want FAILED interrupted as the other process left it", got)
		}
	})
}
