package sqlite_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestRegexpStopsWithinRow (issue 27 defect 1): the regexp function bound
// to a deadline (what a RegexView passes, sqldb.DeadlineArg) stops a
// match of one long text at the deadline by itself, with an error the
// store classifies as a statement cancelled (then "pattern took too
// long"), with no context to cancel the statement: SQLite sees its
// interrupt only between rows, and one row of 1 MiB against issue 27's
// pattern took 46 s. Unbound, or bound to a deadline far away, the
// function answers as Go's regexp does.
func TestRegexpStopsWithinRow(t *testing.T) {
	db := testdb.SQLite(t)
	ctx := context.Background()
	// Letters and digits, no x: every repetition of the pattern's class
	// stays alive all along the text.
	text := strings.Repeat("FrigorificoAmericano90cm", (1<<20)/24)
	match := func(pattern string, deadline time.Time) (bool, error) {
		t.Helper()
		_, arg, err := db.Dialect().Regex("x", pattern)
		if err != nil {
			t.Fatal(err)
		}
		if !deadline.IsZero() {
			arg = arg.(sqldb.DeadlineArg).Bind(deadline)
		}
		rows, err := db.Query(ctx, `SELECT ? REGEXP ?`, text, arg)
		if err != nil {
			return false, err
		}
		defer rows.Close()
		var ok bool
		for rows.Next() {
			if err := rows.Scan(&ok); err != nil {
				return false, db.Translate(err)
			}
		}
		return ok, db.Translate(rows.Err())
	}
	const limit = 200 * time.Millisecond
	start := time.Now()
	_, err := match(strings.Repeat(`(?:[\p{L}\p{N}]{0,1000}x)`, 30), start.Add(limit))
	took := time.Since(start)
	if !errors.Is(err, sqldb.ErrStatementCanceled) {
		t.Errorf("got %v, want the statement cancelled at the deadline", err)
	}
	// Not a measure of speed: unbounded, this match runs for tens of
	// seconds.
	if took > 10*limit {
		t.Errorf("the match took %v with a deadline %v away", took, limit)
	}
	if _, err := match(`frigorifico`, time.Now().Add(-time.Second)); !errors.Is(err, sqldb.ErrStatementCanceled) {
		t.Errorf("a deadline passed: got %v, want the statement cancelled", err)
	}
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{`americano90CMfrigorifico`, true},
		{`(?:[a-z]{0,5}x){3}`, false},
		{`cm$`, true},
		{`^frigorificoamericano`, true},
		{`nevera`, false},
	} {
		for _, deadline := range []time.Time{{}, time.Now().Add(time.Minute)} {
			if got, err := match(tc.pattern, deadline); err != nil || got != tc.want {
				t.Errorf("%s (deadline %v): got %v, %v; want %v", tc.pattern, !deadline.IsZero(), got, err, tc.want)
			}
		}
	}
}
