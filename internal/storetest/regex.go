package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

// Regex is the suite of the limits on regex reads (sqldb.DB.RegexView): a
// pathological pattern stops at the time limit with a validation_error,
// and while such reads run, the other reads keep their connections.
func Regex(t *testing.T, open Opener) {
	t.Run("slow matches stop at the limit, other reads flow", func(t *testing.T) { regexLimit(t, open(t)) })
}

// slowPattern is a valid pattern of at most commerce.MaxPatternLen bytes
// that takes every database far longer than a second over a few thousand
// rows of a kilobyte: PostgreSQL takes minutes to compile its first half;
// Go's RE2 (SQLite) runs in linear time but with about a thousand
// simultaneous states, about 6 ms a row, 20 s for 3,000 rows.
var slowPattern = `(?:a?b?c?d?){255}` + strings.Repeat(".*", 490) + "#"

func regexLimit(t *testing.T, db *sqldb.DB) {
	if len(slowPattern) > commerce.MaxPatternLen {
		t.Fatalf("the slow pattern has %d bytes, more than the transport allows", len(slowPattern))
	}
	ctx := context.Background()
	const rows, limit = 3000, 2 * time.Second
	// While the regex pool is saturated the limit is far away, so that
	// the other reads have all the time a loaded machine (or the race
	// detector) needs; the slow reads are then cancelled. The limit itself
	// is tested after that, with its own short value.
	db.SetRegexTimeout(10 * time.Minute)
	exec(t, db, `CREATE TABLE fixture_docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	body := strings.Repeat("the quick brown fox jumps over the lazy dog ", 23)
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for i := 0; i < rows; i += 100 {
			args := make([]any, 0, 200)
			for j := i; j < i+100; j++ {
				args = append(args, j, body)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_docs (id, body) VALUES `+strings.Repeat("(?, ?), ", 99)+`(?, ?)`, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cond, arg, err := db.Regex("body", slowPattern)
	if err != nil {
		t.Fatal(err)
	}
	matching := func(ctx context.Context) error {
		return db.RegexView(ctx, func(tx *sqldb.Tx) error {
			var n int
			return tx.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_docs WHERE `+cond, arg).Scan(&n)
		})
	}

	// More slow reads than the regex pool (and the read pool) has
	// connections.
	slow := db.Stats().Regex.MaxOpenConnections + db.Stats().Read.MaxOpenConnections
	slowCtx, cancelSlow := context.WithCancel(ctx)
	defer cancelSlow()
	var finished atomic.Int32
	var wg sync.WaitGroup
	for range slow {
		wg.Go(func() {
			matching(slowCtx)
			finished.Add(1)
		})
	}
	// Wait until the slow reads hold every regex connection.
	for db.Stats().Regex.InUse < db.Stats().Regex.MaxOpenConnections && finished.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// Meanwhile, other reads are answered: more than the read pool has
	// connections, one after the other and in parallel.
	var rwg sync.WaitGroup
	readErrs := make(chan error, 64)
	for range 4 {
		rwg.Go(func() {
			for range 5 {
				if err := db.Ping(ctx); err != nil {
					readErrs <- fmt.Errorf("ping: %w", err)
					return
				}
				if n := 0; db.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_docs WHERE id < ?`, 10).Scan(&n) != nil || n != 10 {
					readErrs <- fmt.Errorf("read: got %d rows", n)
					return
				}
				if err := db.View(ctx, func(tx *sqldb.Tx) error {
					var n int
					return tx.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_docs`).Scan(&n)
				}); err != nil {
					readErrs <- fmt.Errorf("view: %w", err)
					return
				}
			}
		})
	}
	rwg.Wait()
	close(readErrs)
	if n := finished.Load(); n != 0 {
		t.Errorf("%d slow reads ended before the other reads were all answered: the other reads waited for them (or the pattern is not slow)", n)
	}
	for err := range readErrs {
		t.Errorf("a read during the slow matches failed: %v", err)
	}
	cancelSlow()
	wg.Wait()

	// The time limit: as many slow reads again, each stopped at the limit
	// with validation_error.
	db.SetRegexTimeout(limit)
	errs := make([]error, slow)
	took := make([]time.Duration, slow)
	for i := range slow {
		wg.Go(func() {
			start := time.Now()
			errs[i] = matching(ctx)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if commerce.ErrorCode(err) != commerce.EValidation || !errors.Is(err, sqldb.ErrPatternTimeout) {
			t.Errorf("slow read %d: got %v, want validation_error (pattern took too long to match)", i, err)
		}
		// Not a measure of speed: without the limit this read takes
		// minutes; with it, about the limit (the machine may be loaded).
		if took[i] > limit+30*time.Second {
			t.Errorf("slow read %d took %v with a limit of %v", i, took[i], limit)
		}
	}
	// The regex connections are usable again.
	cond, arg, _ = db.Regex("body", `lazy dog`)
	var n int
	err = db.RegexView(ctx, func(tx *sqldb.Tx) error {
		return tx.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_docs WHERE id < 5 AND `+cond, arg).Scan(&n)
	})
	if err != nil || n != 5 {
		t.Errorf("a quick match after the slow ones: got %d, %v; want 5", n, err)
	}
}
