package sqldb_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/commercekit/commerce/sqlite"
)

// Closing a database twice is harmless (a deferred Close after an
// explicit one).
func TestCloseTwice(t *testing.T) {
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "c.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("first close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}
