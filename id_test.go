package commerce

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

func TestNewOrderedID(t *testing.T) {
	urlSafe := regexp.MustCompile(`^[A-Za-z0-9_-]{24}$`)
	start := time.UnixMilli(1_790_000_000_000)
	var ids []string
	seen := map[string]bool{}
	for i := range 2000 {
		id := newOrderedID(start.Add(time.Duration(i/10) * time.Millisecond))
		if !urlSafe.MatchString(id) {
			t.Fatalf("%q: want 24 URL-safe characters", id)
		}
		if seen[id] {
			t.Fatalf("%q made twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	// Ids of later milliseconds sort after those of earlier ones.
	for i := 10; i < len(ids); i += 10 {
		if ids[i] <= ids[i-10] {
			t.Fatalf("id %d (%s) does not sort after id %d (%s)", i, ids[i], i-10, ids[i-10])
		}
	}
	// Within one millisecond the random part varies.
	if slices.Equal([]byte(ids[0][8:]), []byte(ids[1][8:])) {
		t.Errorf("two ids of one millisecond share their random part: %s %s", ids[0], ids[1])
	}
	if NewOrderedID() <= newOrderedID(start) {
		t.Error("an id of now sorts before one of 2026")
	}
}
