package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
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
