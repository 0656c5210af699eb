package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
)

// Helpers of the area suites (promotion, tax, shipping).

// wantCode fails the test unless err has the code (and, when data is not
// nil, that data).
func wantCode(t *testing.T, what string, err error, code string, data any) {
	t.Helper()
	if got := commerce.ErrorCode(err); got != code {
		t.Fatalf("%s: got %v (code %q), want %q", what, err, got, code)
	}
	if data != nil && commerce.ErrorData(err) != data {
		t.Errorf("%s: got data %v, want %v", what, commerce.ErrorData(err), data)
	}
}

// wantProblems fails the test unless err is a validation_error listing
// exactly the problems.
func wantProblems(t *testing.T, what string, err error, problems ...string) {
	t.Helper()
	wantCode(t, what, err, commerce.EValidation, nil)
	if got, _ := commerce.ErrorData(err).([]string); !slices.Equal(got, problems) {
		t.Errorf("%s: got problems %q, want %q", what, got, problems)
	}
}

// channelEvents returns the types of the events of a channel, in log
// order, and the events.
func channelEvents(t *testing.T, db *sqldb.DB, channel string) ([]string, []event.Event) {
	t.Helper()
	evs, err := db.List(context.Background(), event.Filter{Channel: channel, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	types := make([]string, len(evs))
	for i, e := range evs {
		types[i] = e.Type
	}
	return types, evs
}

// areaEvent returns an event of the channel.
func areaEvent(t *testing.T, channel, typ string) event.Event {
	t.Helper()
	e, err := event.New(channel, typ, time.Now(), map[string]string{"fixture": typ})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// errRollback is what a transaction function returns to roll back.
var errRollback = errors.New("fixture: roll back")

// slowTitle is a kilobyte of text that slowPattern takes long to match
// (see slowPattern): rows with such titles make a list with that pattern
// run past any short time limit on every database.
var slowTitle = strings.Repeat("the quick brown fox jumps over the lazy dog ", 23)

// slowRows is how many rows of slowTitle a time-limit test creates: on
// SQLite about 6 ms a row, well past slowLimit.
const slowRows = 200

// slowLimit is the regex time limit of those tests.
const slowLimit = 300 * time.Millisecond

// concurrently runs fn n times at once and fails the test for each error.
func concurrently(t *testing.T, n int, fn func() error) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := fn(); err != nil {
				t.Errorf("concurrent change: %v", err)
			}
		})
	}
	wg.Wait()
}

// wantList fails the test unless got, a list's answer, holds the records
// of all at the indexes want, in that order.
func wantList[T any](t *testing.T, got []T, err error, all []T, want []int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	records := []T{}
	for _, i := range want {
		records = append(records, all[i])
	}
	if !reflect.DeepEqual(got, records) {
		t.Errorf("got %+v, want %+v", got, records)
	}
}

// listCase is a case of a list filter: the filter, and the indexes (in
// the fixtures) of the records it must return, in order.
type listCase[F any] struct {
	name string
	f    F
	want []int
}

// wantLists runs each case as a subtest: list with the case's filter
// must return the records of all at the case's indexes (see wantList).
func wantLists[F, T any](t *testing.T, all []T, list func(f F) ([]T, error), cases []listCase[F]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := list(tc.f)
			wantList(t, got, err, all, tc.want)
		})
	}
}

// wantTitlePatternTimeout is wantPatternTimeout over records that fixture
// makes with a slowTitle title (numbered, so that each is distinct) and
// create stores.
func wantTitlePatternTimeout[T any](t *testing.T, db *sqldb.DB, fixture func(title string) T, create func(rows ...T), list func(p *commerce.Pattern) error, fields ...string) {
	t.Helper()
	fill := func(n int) {
		rows := make([]T, n)
		for i := range rows {
			rows[i] = fixture(fmt.Sprint(i, slowTitle))
		}
		create(rows...)
	}
	wantPatternTimeout(t, db, fill, list, fields...)
}

// wantPatternTimeout checks that a list whose regex filters run past the
// store's time limit, over rows of slowTitle (fill creates n of them), is
// validation_error naming each field. list runs the list with the pattern
// in every one of fields.
func wantPatternTimeout(t *testing.T, db *sqldb.DB, fill func(n int), list func(p *commerce.Pattern) error, fields ...string) {
	t.Helper()
	fill(slowRows)
	db.SetRegexTimeout(slowLimit)
	slow := commerce.Pattern(slowPattern)
	var timeouts []string
	for _, f := range fields {
		timeouts = append(timeouts, f+": pattern took too long to match")
	}
	wantProblems(t, "a pattern past the time limit", list(&slow), timeouts...)
}

// versionOf returns a store's version (the one its in-memory copies are
// checked against), failing the test on an error.
func versionOf(t *testing.T, version func(context.Context) (int64, error)) int64 {
	t.Helper()
	v, err := version(context.Background())
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	return v
}
