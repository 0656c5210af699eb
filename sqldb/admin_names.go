package sqldb

import (
	"context"
	"fmt"
)

// nameQuery is the query reading the name people know a record of a kind
// by: a customer's email, an order's number, a return's number (R1001);
// ok is false for a kind without a name. Its %s is the ids'
// placeholders.
func nameQuery(d Dialect, kind string) (q string, ok bool) {
	switch kind {
	case "customer":
		return `SELECT id, email FROM customers WHERE id IN (%s)`, true
	case "order":
		return `SELECT id, ` + d.CastText("number") + ` FROM orders WHERE id IN (%s)`, true
	case "return":
		return `SELECT id, ` + d.Concat("'R'", d.CastText("number")) + ` FROM returns WHERE id IN (%s)`, true
	}
	return "", false
}

// MaxNames is the most ids Names reads at once.
const MaxNames = 500

// Names returns the names of the records of a kind (customer, order,
// return) by id, in one query, for a page that shows ids of several areas
// (the audit log). Ids not found (a removed record) and kinds without a
// name are left out; at most MaxNames ids are read.
func (a *AdminReads) Names(ctx context.Context, kind string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	q, ok := nameQuery(a.db.dialect, kind)
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
