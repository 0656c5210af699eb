package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestBadTextIsValidationError: text that PostgreSQL refuses (a NUL byte,
// invalid UTF-8, \u0000 in jsonb) reaching a store by a path that does not
// check it first is validation_error, not an internal error: in a read, and
// in a write transaction (staff's store, which hands the driver's error on
// to Update to translate).
func TestBadTextIsValidationError(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	valid := func(what string, err error) {
		t.Helper()
		if commerce.ErrorCode(err) != commerce.EValidation {
			t.Errorf("%s: %v, want validation_error", what, err)
		}
		var ce *commerce.Error
		if errors.As(err, &ce) && ce.Err == nil {
			t.Errorf("%s: the driver's error is not kept in the chain", what)
		}
	}
	for _, s := range []string{"a\x00", "a\xff"} {
		var n int
		valid(fmt.Sprintf("read %q", s), db.Translate(db.QueryRow(ctx, `SELECT count(*) FROM customers WHERE email = ?`, s).Scan(&n)))
		_, _, err := sqldb.NewStaffStore(db).BeginAttempt(ctx, "x", s, "192.0.2.1", time.Now(), time.Now().Add(-time.Hour), 5, 20)
		valid(fmt.Sprintf("write %q", s), err)
	}
	var raw string
	valid("jsonb", db.Translate(db.QueryRow(ctx, `SELECT (?::jsonb)::text`, `{"a": "\u0000"}`).Scan(&raw)))
	// Other errors keep their kind.
	if err := db.Translate(db.QueryRow(ctx, `SELECT nope FROM customers`).Scan(&raw)); commerce.ErrorCode(err) == commerce.EValidation {
		t.Errorf("an unknown column: %v", err)
	}
}
