package transfer

import (
	"context"
	"sync/atomic"
	"time"
)

// A job must not stay RUNNING forever when the process running it stops
// without ending it (killed, crashed, its machine lost): nothing would
// ever end it, and staff would wait for it. Several processes may serve
// one database, so a process cannot take every RUNNING job it finds at
// start for its own dead one: the process running a job beats instead
// (Job.Beat, recorded every BeatInterval and with every batch), and a
// RUNNING job whose beat is older than StaleAfter has no live process.
// Such a job is ended FAILED with the error `interrupted` (line 0), its
// counters as its last committed batch left them (a batch is a
// transaction: its rows and the counters that count them are committed
// together), by the first of: job.info reading it, or Run's sweep (at
// start, then every StaleAfter). It is not resumed: the file was the
// process's temporary file, gone with it; importing the file again is
// safe (the rows already written are `unchanged`).
//
// Should a process stall for longer than StaleAfter (a paused VM) and
// find its job ended by another, it writes nothing more: a job's progress
// is saved only while it is RUNNING (ErrJobEnded otherwise), so its next
// batch is rolled back and the job stops, as it does when its next beat
// finds it ended; the other's end stays.

// BeatInterval is how often the process running a job records that it
// is alive (besides each batch it writes).
var BeatInterval = 10 * time.Second

// StaleAfter is how old a RUNNING job's beat may be before the job is
// taken for interrupted: six beats missed.
const StaleAfter = time.Minute

// jobRun is a job this process runs.
type jobRun struct {
	id     string
	ctx    context.Context
	cancel context.CancelFunc
	// lost: another process ended the job (its beat found it ended).
	lost atomic.Bool
	// last is when the job's beat was last recorded (Unix ns): by a
	// batch, or by beat.
	last atomic.Int64
}

// own records that this process runs the job.
func (s *Service) own(id string) *jobRun {
	ctx, cancel := context.WithCancel(s.ctx)
	jr := &jobRun{id: id, ctx: ctx, cancel: cancel}
	s.mu.Lock()
	s.running[id] = jr
	s.mu.Unlock()
	return jr
}

func (s *Service) disown(id string) {
	s.mu.Lock()
	delete(s.running, id)
	s.mu.Unlock()
}

// owns reports whether this process runs the job.
func (s *Service) owns(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[id] != nil
}

// beaten notes that the job's beat was just recorded (with a batch): beat
// does not record it again before BeatInterval has passed (it would wait
// for the next batch's lock on the job's row).
func (s *Service) beaten(id string) {
	s.mu.Lock()
	jr := s.running[id]
	s.mu.Unlock()
	if jr != nil {
		jr.last.Store(time.Now().UnixNano())
	}
}

// lost reports whether another process ended the job this one runs.
func (s *Service) lost(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	jr := s.running[id]
	return jr != nil && jr.lost.Load()
}

// beat records every BeatInterval that the job's process is alive, until
// the job ends; when the job is found ended by another process, it stops
// the job.
func (s *Service) beat(jr *jobRun) {
	t := time.NewTicker(BeatInterval)
	defer t.Stop()
	for {
		select {
		case <-jr.ctx.Done():
			return
		case <-t.C:
			if time.Since(time.Unix(0, jr.last.Load())) < BeatInterval {
				continue // a batch recorded it
			}
			ok, err := s.store.Beat(jr.ctx, jr.id, s.now().UTC())
			if err != nil {
				if jr.ctx.Err() == nil {
					s.logger().Warn("import job: beat", "job", jr.id, "err", err)
				}
				continue
			}
			if !ok {
				jr.lost.Store(true)
				jr.cancel()
				return
			}
			jr.last.Store(time.Now().UnixNano())
		}
	}
}

// endIfStale ends a RUNNING job that no live process runs (its beat is
// older than StaleAfter and it is not this process's), and returns the
// job as it then is.
func (s *Service) endIfStale(ctx context.Context, j *Job) (*Job, error) {
	now := s.now().UTC()
	before := now.Add(-StaleAfter)
	if j.Status != JobRunning || !j.Beat.Before(before) || s.owns(j.ID) {
		return j, nil
	}
	ended := *j
	ended.Status = JobFailed
	ended.FinishedAt = &now
	ended.Errors = append(append([]RowError(nil), j.Errors...), RowError{Error: EInterrupted,
		Data: "the process running the import stopped before its end (last seen " + j.Beat.Format(time.RFC3339) +
			"): the rows after those processed were not imported; import the file again (the rows already imported will be unchanged)"})
	if len(ended.Errors) > MaxErrors {
		ended.Errors = append(ended.Errors[:MaxErrors-1], ended.Errors[len(ended.Errors)-1])
	}
	ok, err := s.store.EndStale(ctx, &ended, before)
	if err != nil {
		return nil, err
	}
	if ok {
		s.logger().Warn("import job interrupted: its process stopped before its end", "job", j.ID, "lastSeen", j.Beat)
		return &ended, nil
	}
	return s.store.Job(ctx, j.ID) // its process beat meanwhile, or another ended it
}

// sweep ends the jobs other processes left RUNNING.
func (s *Service) sweep(ctx context.Context) {
	jobs, err := s.store.StaleJobs(ctx, s.now().UTC().Add(-StaleAfter))
	if err != nil {
		if ctx.Err() == nil {
			s.logger().Error("import jobs: find the interrupted ones", "err", err)
		}
		return
	}
	for _, j := range jobs {
		if _, err := s.endIfStale(ctx, j); err != nil && ctx.Err() == nil {
			s.logger().Error("import job: end an interrupted one", "job", j.ID, "err", err)
		}
	}
}
