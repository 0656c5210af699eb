package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"unsafe"

	"github.com/commercekit/commerce"
)

// Text returns b as a TEXT argument without copying it: a document or an
// event payload of several kilobytes, bound as a string (the drivers bind
// []byte as binary), would otherwise be copied once more on every write.
// b must not change while a statement given the string runs; the callers
// pass encodings that nothing changes once made. Both drivers copy the
// value when they bind it and keep no reference after the statement.
func Text(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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

// regexFilter is a regex filter of a list query: the column it matches,
// the request field it comes from (errors name it) and its pattern (""
// when not given).
type regexFilter struct{ col, field, pattern string }

// pattern returns the text of an optional pattern argument, "" when not
// given (an empty pattern filters nothing out either).
func pattern(p *commerce.Pattern) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// regexes adds the condition matching each given pattern to w (DB.Regex);
// the patterns are valid (commerce.Pattern.Check), a store adding its own
// anchors around one may make it up to 32 bytes longer. A pattern the
// database cannot match as RE2 does is a validation_error naming the
// field. It reports whether any pattern was given.
func (w *where) regexes(db *DB, res []regexFilter) (bool, error) {
	var problems commerce.Problems
	given := false
	for _, re := range res {
		if re.pattern == "" {
			continue
		}
		cond, arg, err := db.Regex(re.col, re.pattern)
		if err != nil {
			problems.Add(re.field, "%s", err.Error())
			continue
		}
		w.add(cond, arg)
		given = true
	}
	return given, problems.Err()
}

// regexFieldsError turns the error of a read with regex conditions that
// the patterns are to blame for (stopped at the time limit,
// ErrPatternTimeout; refused by the database, ErrPatternRejected) into a
// validation_error naming every regex field given, since the store cannot
// tell which one was; the database's message stays in the error's chain
// for the log. Other errors are returned as they are.
func regexFieldsError(err error, res []regexFilter) error {
	var msg string
	switch {
	case errors.Is(err, ErrPatternTimeout):
		msg = ErrPatternTimeout.Error()
	case errors.Is(err, ErrPatternRejected):
		msg = "the regular expression is too complex for this database"
	default:
		return err
	}
	var problems commerce.Problems
	for _, re := range res {
		if re.pattern != "" {
			problems.Add(re.field, "%s", msg)
		}
	}
	if problems.Empty() {
		return err
	}
	e := commerce.Invalid(problems...)
	e.Message, e.Err = err.Error(), err
	return e
}

// listPage runs `selectFrom WHERE <w> orderBy` and returns the page of
// its rows that limit and skip select. With regex filters (res) their
// conditions are added to w and the query runs in RegexView, under the
// store's time limit on connections of its own; a pattern to blame is a
// validation_error naming the fields (regexFieldsError).
func listPage[T any](ctx context.Context, db *DB, selectFrom, orderBy string, w *where, res []regexFilter, limit, skip int,
	scan func(rowScanner) (T, error)) ([]T, error) {
	regex, err := w.regexes(db, res)
	if err != nil {
		return nil, err
	}
	q := selectFrom + w.String() + ` ` + orderBy + ` LIMIT ? OFFSET ?`
	args := append(slices.Clip(w.args), limit, skip)
	var out []T
	err = db.listRead(ctx, regex, res, func(query queryFunc) error {
		rows, err := query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = []T{}
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return db.translate(err)
			}
			out = append(out, v)
		}
		return db.translate(rows.Err())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// queryFunc runs a read query: DB.Query, or Tx.Query in a transaction.
type queryFunc func(ctx context.Context, q string, args ...any) (*sql.Rows, error)

// listRead runs read, the reads of a list, with the read pool's queries;
// with regex conditions (regex: some filter of res was given) in
// RegexView instead, on connections of its own under the store's time
// limit, where a pattern to blame is a validation_error naming the given
// fields of res (regexFieldsError).
func (db *DB) listRead(ctx context.Context, regex bool, res []regexFilter, read func(query queryFunc) error) error {
	if !regex {
		return read(db.Query)
	}
	return regexFieldsError(db.RegexView(ctx, func(tx *Tx) error { return read(tx.Query) }), res)
}
