package sqldb

import (
	"context"
	"strings"
)

// where collects the conditions of a list query and their arguments.
type where struct {
	conds []string
	args  []any
}

// add adds a condition with its arguments.
func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// in adds "col IN (...)" when vals is not empty. col may be any SQL
// expression the values are compared with.
func (w *where) in(col string, vals []string) {
	if len(vals) == 0 {
		return
	}
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	w.add(col+" IN ("+Placeholders(len(vals))+")", args...)
}

// String returns " WHERE cond AND cond ...", or "" without conditions.
func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(...any) error }

// listPage runs the ordered query q and returns a page of its rows. With
// match nil, paging runs in SQL; otherwise match (a Go-side filter, such
// as an exact RE2 regex on a small table) selects the rows and the page is
// taken among those.
func listPage[T any](ctx context.Context, db *DB, q string, args []any, limit, skip int,
	scan func(rowScanner) (T, error), match func(T) bool) ([]T, error) {
	if match == nil {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limit, skip)
	}
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, db.translate(err)
		}
		if match != nil {
			if !match(v) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			if len(out) >= limit {
				break
			}
		}
		out = append(out, v)
	}
	return out, db.translate(rows.Err())
}
