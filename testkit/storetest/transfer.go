package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/transfer"
)

// Transfer is the suite of the import jobs' store: a job is kept as
// created and saved (its errors' data too), and saved only while RUNNING; Beat moves a RUNNING job's
// beat only; StaleJobs finds the RUNNING jobs whose beat is older than a
// time, in creation order; EndStale ends such a job once, and not one whose
// process beat meanwhile.
func Transfer(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	store := sqldb.NewTransferStore(db)
	at := time.Now().UTC().Truncate(time.Millisecond)
	job := func(id string, beat time.Time) *transfer.Job {
		j := &transfer.Job{ID: id, Status: transfer.JobRunning, Format: transfer.FormatCommerce, Errors: []transfer.RowError{},
			StartedAt: beat, Beat: beat}
		if err := store.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	old := job("old", at.Add(-2*time.Hour))
	older := job("older", at.Add(-3*time.Hour))
	live := job("live", at.Add(-time.Second))

	got, err := store.Job(ctx, "live")
	if err != nil || got.Status != transfer.JobRunning || !got.Beat.Equal(live.Beat) || got.FinishedAt != nil || len(got.Errors) != 0 {
		t.Fatalf("Job(live) = %+v, %v", got, err)
	}
	_, err = store.Job(ctx, "nope")
	wantError(t, err, commerce.EJobNotFound, "nope")

	// Saved with its counters, errors and end.
	done := *live
	done.Status, done.Rows, done.Processed, done.Created, done.Rejected = transfer.JobDone, 3, 3, 2, 1
	done.Errors = []transfer.RowError{{Line: 4, SKU: "Ñ-1", Error: commerce.EValidation, Data: []any{"price.EUR: «12,50» is not an amount"}}}
	end := at.Add(time.Second)
	done.FinishedAt, done.Beat = &end, end
	if err := store.SaveJob(ctx, &done); err != nil {
		t.Fatal(err)
	}
	got, err = store.Job(ctx, "live")
	if err != nil || got.Status != transfer.JobDone || got.Created != 2 || got.Rejected != 1 || got.FinishedAt == nil || !got.FinishedAt.Equal(end) ||
		len(got.Errors) != 1 || got.Errors[0].SKU != "Ñ-1" || got.Errors[0].Line != 4 {
		t.Fatalf("after SaveJob: %+v, %v", got, err)
	}

	// A job no longer RUNNING is not saved again (another process ended it).
	if err := store.SaveJob(ctx, &done); !errors.Is(err, transfer.ErrJobEnded) {
		t.Errorf("SaveJob of an ended job: %v, want ErrJobEnded", err)
	}

	// Beat: a RUNNING job's only.
	if ok, err := store.Beat(ctx, "old", at.Add(-90*time.Minute)); !ok || err != nil {
		t.Errorf("Beat(old) = %v, %v; want true", ok, err)
	}
	if got, _ := store.Job(ctx, "old"); !got.Beat.Equal(at.Add(-90 * time.Minute)) {
		t.Errorf("old's beat = %v after Beat", got.Beat)
	}
	for _, id := range []string{"live", "nope"} {
		if ok, err := store.Beat(ctx, id, at); ok || err != nil {
			t.Errorf("Beat(%s) = %v, %v; want false (not RUNNING)", id, ok, err)
		}
	}

	stale, err := store.StaleJobs(ctx, at.Add(-time.Hour))
	if err != nil || len(stale) != 2 || stale[0].ID != "old" || stale[1].ID != "older" {
		t.Fatalf("StaleJobs = %+v, %v; want old, older", stale, err)
	}
	if stale, err := store.StaleJobs(ctx, at.Add(-150*time.Minute)); err != nil || len(stale) != 1 || stale[0].ID != "older" {
		t.Errorf("StaleJobs(2h30 ago) = %+v, %v; want older", stale, err)
	}

	// EndStale: once, and not when the job beat after the time given.
	ended := *older
	ended.Status = transfer.JobFailed
	ended.FinishedAt = &at
	ended.Errors = []transfer.RowError{{Error: transfer.EInterrupted, Data: "stopped"}}
	if ok, err := store.EndStale(ctx, &ended, at.Add(-time.Hour)); !ok || err != nil {
		t.Errorf("EndStale(older) = %v, %v; want true", ok, err)
	}
	got, err = store.Job(ctx, "older")
	if err != nil || got.Status != transfer.JobFailed || got.FinishedAt == nil || len(got.Errors) != 1 || got.Errors[0].Error != transfer.EInterrupted {
		t.Errorf("older after EndStale: %+v, %v", got, err)
	}
	if ok, err := store.EndStale(ctx, &ended, at.Add(-time.Hour)); ok || err != nil {
		t.Errorf("EndStale(older) again = %v, %v; want false", ok, err)
	}
	ended = *old
	ended.Status = transfer.JobFailed
	if ok, err := store.EndStale(ctx, &ended, at.Add(-100*time.Minute)); ok || err != nil {
		t.Errorf("EndStale(old) before its last beat = %v, %v; want false", ok, err)
	}
	if got, _ := store.Job(ctx, "old"); got.Status != transfer.JobRunning {
		t.Errorf("old is %s, want still RUNNING", got.Status)
	}
}
