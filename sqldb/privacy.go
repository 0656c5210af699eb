package sqldb

import (
	"context"
	"fmt"

	"github.com/commercekit/commerce/customer"
)

// The erasure of a customer's personal data from the event log
// (customer.remove, CONTRACT.md section 29).

// EraseEvents implements customer.Tx. Each owner's events are read
// through the partial index events_owner (the query states the index's
// condition, an owner not empty, so that both databases use it), and each
// changed payload is written back by its seq: the event keeps its id,
// position, channel, type and date.
func (t customerTx) EraseEvents(ctx context.Context, owners []string, erase customer.Eraser) (int, error) {
	n := 0
	for _, owner := range owners {
		if owner == "" {
			continue
		}
		type row struct {
			seq     int64
			payload string
		}
		var rows []row
		rs, err := t.tx.Query(ctx, `SELECT seq, payload FROM events WHERE owner <> '' AND owner = ?`, owner)
		if err != nil {
			return n, fmt.Errorf("events of %s: %w", owner, t.tx.Translate(err))
		}
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.seq, &r.payload); err != nil {
				rs.Close()
				return n, fmt.Errorf("events of %s: %w", owner, t.tx.Translate(err))
			}
			rows = append(rows, r)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return n, fmt.Errorf("events of %s: %w", owner, t.tx.Translate(err))
		}
		for _, r := range rows {
			out, changed, err := erase([]byte(r.payload))
			if err != nil {
				return n, fmt.Errorf("event %d: %w", r.seq, err)
			}
			if !changed {
				continue
			}
			if _, err := t.tx.Exec(ctx, `UPDATE events SET payload = ? WHERE seq = ?`, Text(out), r.seq); err != nil {
				return n, fmt.Errorf("erase event %d: %w", r.seq, t.tx.Translate(err))
			}
			n++
		}
	}
	return n, nil
}
