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
	t.Run("the limit holds within one long row", func(t *testing.T) { regexLongRow(t, open(t)) })
}

// longRowPattern is issue 27's: 30 bounded repetitions of a class, 750
// bytes. Against one text of 1 MiB, Go's matcher (SQLite's regexp
// function) ran 46 s, past a limit of 2 s: SQLite looks at its interrupt
// only between rows.
var longRowPattern = strings.Repeat(`(?:[\p{L}\p{N}]{0,1000}x)`, 30)

// regexLongRow: a read whose one row takes far longer than the limit to
// match stops at about the limit with validation_error (pattern took too
// long), and a quick match of the same row still answers.
func regexLongRow(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	const limit = 300 * time.Millisecond
	db.SetRegexTimeout(limit)
	exec(t, db, `CREATE TABLE fixture_long (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	// Letters and digits, no x: every repetition of the pattern's class
	// stays alive all along the text.
	body := strings.Repeat("FrigorificoAmericano90cm", (1<<20)/24)
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO fixture_long (id, body) VALUES (1, ?)`, body)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	count := func(pattern string) (int, error) {
		cond, arg, err := db.Regex("body", pattern)
		if err != nil {
			t.Fatalf("%.40s...: %v", pattern, err)
		}
		var n int
		err = db.RegexView(ctx, func(tx *sqldb.Tx) error {
			return tx.QueryRow(ctx, `SELECT COUNT(*) FROM fixture_long WHERE `+cond, arg).Scan(&n)
		})
		return n, err
	}
	pattern := longRowPattern
	if _, _, err := db.Regex("body", pattern); err != nil {
		// PostgreSQL refuses Unicode classes this large: the same with
		// ASCII ones.
		pattern = strings.Repeat(`(?:[a-z0-9]{0,1000}x)`, 30)
	}
	start := time.Now()
	_, err := count(pattern)
	took := time.Since(start)
	t.Logf("a read of one row of %d bytes with a pattern of %d bytes ended after %v (limit %v): %v", len(body), len(pattern), took, limit, err)
	switch {
	case err == nil && took < limit:
		// PostgreSQL's matcher (the ASCII pattern) gets through the row
		// well within the limit: nothing to stop. Go's matcher (SQLite)
		// does not: there the read must stop at the limit.
		t.Logf("this database matched the row within the limit")
	case commerce.ErrorCode(err) != commerce.EValidation || !errors.Is(err, sqldb.ErrPatternTimeout):
		t.Errorf("got %v after %v, want validation_error (pattern took too long to match)", err, took)
	}
	// Not a measure of speed: without the limit within the row this read
	// takes tens of seconds; with it, about the limit (the machine may be
	// loaded, or run the race detector).
	if took > 10*limit {
		t.Errorf("the read took %v with a limit of %v", took, limit)
	}
	if n, err := count(`americano90cmfrigorifico`); err != nil || n != 1 {
		t.Errorf("a quick match of the long row: got %d, %v; want 1", n, err)
	}
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
