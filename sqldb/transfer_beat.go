package sqldb

import (
	"context"
	"time"

	"github.com/commercekit/commerce/transfer"
)

// Beat implements transfer.Store.
func (s *TransferStore) Beat(ctx context.Context, id string, at time.Time) (bool, error) {
	var n int64
	err := s.db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE import_jobs SET beat_at = ? WHERE id = ? AND status = ?`, at.UnixMilli(), id, transfer.JobRunning)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}

// StaleJobs implements transfer.Store.
func (s *TransferStore) StaleJobs(ctx context.Context, before time.Time) ([]*transfer.Job, error) {
	rows, err := s.db.Query(ctx, `SELECT `+transferJobColumns+` FROM import_jobs WHERE status = ? AND beat_at < ? ORDER BY seq`,
		transfer.JobRunning, before.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*transfer.Job
	for rows.Next() {
		j, err := scanTransferJob(rows)
		if err != nil {
			return nil, s.db.translate(err)
		}
		out = append(out, j)
	}
	return out, s.db.translate(rows.Err())
}

// EndStale implements transfer.Store.
func (s *TransferStore) EndStale(ctx context.Context, j *transfer.Job, before time.Time) (bool, error) {
	row, err := transferJobRow(j)
	if err != nil {
		return false, err
	}
	var n int64
	err = s.db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE import_jobs SET status = ?, errors = ?, finished_at = ? WHERE id = ? AND status = ? AND beat_at < ?`,
			row[1], row[10], row[12], j.ID, transfer.JobRunning, before.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}
