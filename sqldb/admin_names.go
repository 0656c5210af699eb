package sqldb

import (
	"context"
	"fmt"
)

// nameQueries read the name people know a record by, by kind: a
// customer's email, an order's number, a return's number (R1001).
var nameQueries = map[string]string{
	"customer": `SELECT id, email FROM customers WHERE id IN (%s)`,
	"order":    `SELECT id, CAST(number AS TEXT) FROM orders WHERE id IN (%s)`,
	"return":   `SELECT id, 'R' || CAST(number AS TEXT) FROM returns WHERE id IN (%s)`,
}

// MaxNames is the most ids Names reads at once.
const MaxNames = 500

// Names returns the names of the records of a kind (customer, order,
// return) by id, in one query, for a page that shows ids of several areas
// (the audit log). Ids not found (a removed record) and kinds without a
// name are left out; at most MaxNames ids are read.
func (a *AdminReads) Names(ctx context.Context, kind string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	q, ok := nameQueries[kind]
	if !ok || len(ids) == 0 {
		return out, nil
	}
	if len(ids) > MaxNames {
		ids = ids[:MaxNames]
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := a.db.Query(ctx, fmt.Sprintf(q, Placeholders(len(ids))), args...)
	if err != nil {
		return nil, a.db.translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, a.db.translate(err)
		}
		out[id] = name
	}
	return out, a.db.translate(rows.Err())
}
