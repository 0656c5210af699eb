package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

// Dialect is the suite of what the dialect gives the storage core and the
// area stores: placeholders, error classification, upserts, RETURNING, the
// spelling of casts, concatenation and materialized CTEs, row locks and
// claims, pipelining, bytewise ranges, regex matching, read-only views,
// retried transactions, leader election and migrations.
func Dialect(t *testing.T, open Opener) {
	t.Run("placeholders", func(t *testing.T) { dialectPlaceholders(t, open(t)) })
	t.Run("unique violation names the key", func(t *testing.T) { dialectUnique(t, open(t)) })
	t.Run("foreign key violation", func(t *testing.T) { dialectForeignKey(t, open(t)) })
	t.Run("upsert", func(t *testing.T) { dialectUpsert(t, open(t)) })
	t.Run("returning", func(t *testing.T) { dialectReturning(t, open(t)) })
	t.Run("casts, concatenation, materialized", func(t *testing.T) { dialectSpelling(t, open(t)) })
	t.Run("for update", func(t *testing.T) { dialectForUpdate(t, open(t)) })
	t.Run("skip locked", func(t *testing.T) { dialectSkipLocked(t, open(t)) })
	t.Run("pipelines or says not", func(t *testing.T) { dialectPipelines(t, open(t)) })
	t.Run("byte range", func(t *testing.T) { dialectByteRange(t, open(t)) })
	t.Run("regex matches as RE2", func(t *testing.T) { dialectRegex(t, open(t)) })
	t.Run("view is read-only", func(t *testing.T) { dialectViewReadOnly(t, open(t)) })
	t.Run("update retries transient conflicts", func(t *testing.T) { dialectRetry(t, open(t)) })
	t.Run("leader election", func(t *testing.T) { dialectLead(t, open(t)) })
	t.Run("migrate is idempotent", func(t *testing.T) { dialectMigrate(t, open(t)) })
}

func dialectPlaceholders(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`)
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO fixture_kv (k, v) VALUES (?, ?), (?, ?), ('it''s ?', ?)`, "a", 1, "b", 2, 3)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	keys := []any{"a", "it's ?", "z"}
	rows, err := db.Query(ctx, `SELECT k, v FROM fixture_kv WHERE k IN (`+sqldb.Placeholders(len(keys))+`) AND v > ? ORDER BY k`, append(keys, 0)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var k string
		var v int
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s=%d", k, v))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a=1", "it's ?=3"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v (a ? inside a quoted literal is not a placeholder)", got, want)
	}
}

func dialectUnique(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db,
		`CREATE TABLE fixture_keys (id TEXT PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL, CONSTRAINT fixture_keys_a_b UNIQUE (a, b))`,
		`CREATE UNIQUE INDEX fixture_keys_c ON fixture_keys (c)`,
		`INSERT INTO fixture_keys (id, a, b, c) VALUES ('1', 'a', 'b', 'c')`)
	tests := []struct{ name, id, a, b, c, index string }{
		{"primary key", "1", "x", "y", "z", "id"},
		{"unique constraint of two columns", "2", "a", "b", "z", "a_b"},
		{"unique index", "2", "x", "y", "c", "c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := db.Update(ctx, func(tx *sqldb.Tx) error {
				_, err := tx.Exec(ctx, `INSERT INTO fixture_keys (id, a, b, c) VALUES (?, ?, ?, ?)`, tc.id, tc.a, tc.b, tc.c)
				return err
			})
			if commerce.ErrorCode(err) != commerce.EDuplicateKey {
				t.Fatalf("got %v, want duplicate_key", err)
			}
			data, _ := commerce.ErrorData(err).(map[string]any)
			if data["index"] != tc.index {
				t.Errorf("got data %v, want index %q", data, tc.index)
			}
		})
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_keys`); n != 1 {
		t.Errorf("got %d rows, want 1", n)
	}
}

func dialectForeignKey(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db,
		`CREATE TABLE fixture_parents (id TEXT PRIMARY KEY)`,
		`CREATE TABLE fixture_children (id TEXT PRIMARY KEY, parent TEXT NOT NULL REFERENCES fixture_parents (id))`,
		`INSERT INTO fixture_parents (id) VALUES ('p')`)
	for _, q := range []string{
		`INSERT INTO fixture_children (id, parent) VALUES ('c', 'nope')`,
		`DELETE FROM fixture_parents WHERE id = 'p'`,
	} {
		if q[0] == 'D' {
			exec(t, db, `INSERT INTO fixture_children (id, parent) VALUES ('c', 'p')`)
		}
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, q)
			return err
		})
		if !sqldb.IsForeignKey(err) {
			t.Errorf("%s: got %v, want a foreign key violation", q, err)
		}
		if commerce.ErrorCode(err) == commerce.EDuplicateKey {
			t.Errorf("%s: got duplicate_key for a foreign key violation", q)
		}
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_parents`); n != 1 {
		t.Errorf("got %d parents, want the one kept by its child", n)
	}
}

func dialectUpsert(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_up (k TEXT PRIMARY KEY, v INTEGER NOT NULL, w INTEGER NOT NULL)`)
	d := db.Dialect()
	upd := d.Upsert("fixture_up", 1, []string{"k", "v", "w"}, []string{"k"}, []string{"v"})
	keep := d.Upsert("fixture_up", 1, []string{"k", "v", "w"}, []string{"k"}, nil)
	for _, step := range []struct {
		q       string
		v, w    int
		wantV   int
		wantW   int
		comment string
	}{
		{upd, 1, 1, 1, 1, "insert"},
		{upd, 2, 2, 2, 1, "update v only"},
		{keep, 3, 3, 2, 1, "keep the row"},
	} {
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, step.q, "k", step.v, step.w)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", step.comment, err)
		}
		var v, w int
		if err := db.QueryRow(ctx, `SELECT v, w FROM fixture_up WHERE k = 'k'`).Scan(&v, &w); err != nil {
			t.Fatal(err)
		}
		if v != step.wantV || w != step.wantW {
			t.Errorf("%s: got v=%d w=%d, want v=%d w=%d", step.comment, v, w, step.wantV, step.wantW)
		}
	}
	// Several rows at once, with a conflict among them: the new rows go
	// in, the existing one is left as it is.
	many := d.Upsert("fixture_up", 3, []string{"k", "v", "w"}, []string{"k"}, nil)
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, many, "a", 10, 10, "k", 9, 9, "b", 11, 11)
		return err
	})
	if err != nil {
		t.Fatalf("three rows: %v", err)
	}
	if n, v := count(t, db, `SELECT COUNT(*) FROM fixture_up`), count(t, db, `SELECT v FROM fixture_up WHERE k = 'k'`); n != 3 || v != 2 {
		t.Errorf("three rows: got %d rows and v=%d for k, want 3 rows and k kept (v=2)", n, v)
	}
}

// dialectReturning checks the forms of Dialect.Returning the stores use:
// on INSERT ... DEFAULT VALUES (the defaults come back), on UPDATE (the
// new values) and on DELETE (the removed row).
func dialectReturning(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_ret (k TEXT PRIMARY KEY DEFAULT 'd', v INTEGER NOT NULL DEFAULT 7)`)
	var ins, upd, del struct {
		k string
		v int
	}
	d := db.Dialect()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if err := tx.QueryRow(ctx, d.Returning(`INSERT INTO fixture_ret DEFAULT VALUES`, "k, v")).Scan(&ins.k, &ins.v); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		if err := tx.QueryRow(ctx, d.Returning(`UPDATE fixture_ret SET v = v + 1 WHERE k = ?`, "k, v"), "d").Scan(&upd.k, &upd.v); err != nil {
			return fmt.Errorf("update: %w", err)
		}
		if err := tx.QueryRow(ctx, d.Returning(`DELETE FROM fixture_ret WHERE k = ?`, "k, v"), "d").Scan(&del.k, &del.v); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("RETURNING: %v", err)
	}
	if ins.k != "d" || ins.v != 7 || upd.k != "d" || upd.v != 8 || del.k != "d" || del.v != 8 {
		t.Errorf("RETURNING: got insert %+v, update %+v, delete %+v; want (d, 7), (d, 8), (d, 8)", ins, upd, del)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_ret`); n != 0 {
		t.Errorf("got %d rows after DELETE ... RETURNING, want 0", n)
	}
}

// dialectSpelling checks CastText (of a number, a placeholder and NULL),
// Concat and Materialized, as the stores combine them.
func dialectSpelling(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	d := db.Dialect()
	var name, path string
	var none sql.NullString
	err := db.QueryRow(ctx, `WITH m AS `+d.Materialized()+`(SELECT 1001 AS n, 'a.b.c' AS path)
		SELECT `+d.Concat("'R'", d.CastText("n"))+`, `+d.Concat(d.CastText("?"), "substr(path, ?)")+`, `+d.CastText("NULL")+` FROM m`,
		"x.", 3).Scan(&name, &path, &none)
	if err != nil {
		t.Fatal(err)
	}
	if name != "R1001" || path != "x.b.c" || none.Valid {
		t.Errorf("got %q, %q, %v; want \"R1001\", \"x.b.c\", NULL", name, path, none)
	}
}

// dialectSkipLocked checks that a claim's SELECT with Dialect.SkipLocked
// reads the rows nobody holds.
func dialectSkipLocked(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_claim (k TEXT PRIMARY KEY, n INTEGER NOT NULL)`,
		`INSERT INTO fixture_claim (k, n) VALUES ('a', 1), ('b', 2)`)
	var got []string
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		got = nil
		rows, err := tx.Query(ctx, `SELECT k FROM fixture_claim WHERE n > ? ORDER BY n LIMIT ?`+db.Dialect().SkipLocked(), 0, 5)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			got = append(got, k)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("got %q, want [a b]", got)
	}
}

// dialectPipelines checks that a dialect says consistently whether it
// pipelines: Expect gives its check exactly when Pipelines is true, and a
// dialect that does not pipeline refuses Pipeline with
// errors.ErrUnsupported.
func dialectPipelines(t *testing.T, db *sqldb.DB) {
	d := db.Dialect()
	expr, ok := d.Expect("1 = 1")
	if ok != d.Pipelines() || ok != (expr != "") {
		t.Fatalf("Expect gives %q, %v; Pipelines %v", expr, ok, d.Pipelines())
	}
	if d.Pipelines() {
		return // the pipeline itself: postgres/pipeline_test.go
	}
	if _, err := d.Pipeline(context.Background(), nil, nil, nil); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Pipeline of a dialect that does not pipeline: got %v, want errors.ErrUnsupported", err)
	}
}

func dialectForUpdate(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_lock (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`, `INSERT INTO fixture_lock (k, v) VALUES ('k', 1)`)
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		var v int
		if err := tx.QueryRow(ctx, `SELECT v FROM fixture_lock WHERE k = ?`+tx.ForUpdate(), "k").Scan(&v); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE fixture_lock SET v = ? WHERE k = ?`, v+1, "k")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := count(t, db, `SELECT v FROM fixture_lock`); v != 2 {
		t.Errorf("got %d, want 2", v)
	}
}

func dialectByteRange(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_paths (path TEXT PRIMARY KEY)`)
	paths := []string{"ab", "ab.", "ab.c", "ab.é", "ab.~", "ab/", "ab-", "AB.c", "abc", "a", "ab.C.d"}
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, p := range paths {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_paths (path) VALUES (?)`, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT path FROM fixture_paths WHERE `+db.Dialect().ByteRange("path"), "ab.", "ab/")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	slices.Sort(got)
	var want []string
	for _, p := range paths {
		if strings.HasPrefix(p, "ab.") {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func dialectRegex(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_text (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
	bodies := []string{"The Fridge", "fridge-xl", "FRIDGE", "bridge", "a\nfridge", "Kühlschrank", "straße"}
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for i, b := range bodies {
			if _, err := tx.Exec(ctx, `INSERT INTO fixture_text (id, body) VALUES (?, ?)`, i, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{`fridge`, `^fridge`, `\bfridge\b`, `(?m)^fridge$`, `ü`, `STRASSE|straße`, `^[a-z-]+$`} {
		re := regexp.MustCompile("(?i)" + pattern)
		var want []int
		for i, b := range bodies {
			if re.MatchString(b) {
				want = append(want, i)
			}
		}
		cond, arg, err := db.Regex("body", pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		var got []int
		err = db.RegexView(ctx, func(tx *sqldb.Tx) error {
			rows, err := tx.Query(ctx, `SELECT id FROM fixture_text WHERE `+cond+` ORDER BY id`, arg)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id int
				if err := rows.Scan(&id); err != nil {
					return err
				}
				got = append(got, id)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", pattern, got, want)
		}
	}
	if _, _, err := db.Regex("body", strings.Repeat("a", commerce.MaxPatternLen+100)); err == nil {
		t.Errorf("a pattern over %d bytes: got no error", commerce.MaxPatternLen)
	}
}

func dialectViewReadOnly(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_ro (k TEXT PRIMARY KEY)`)
	err := db.View(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO fixture_ro (k) VALUES ('x')`)
		return err
	})
	if err == nil {
		t.Error("a write in View succeeded")
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_ro`); n != 0 {
		t.Errorf("got %d rows, want none", n)
	}
}

func dialectRetry(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	exec(t, db, `CREATE TABLE fixture_attempts (n INTEGER NOT NULL)`)
	calls := 0
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		calls++
		if _, err := tx.Exec(ctx, `INSERT INTO fixture_attempts (n) VALUES (?)`, calls); err != nil {
			return err
		}
		if calls < 3 {
			return fmt.Errorf("conflict: %w", sqldb.ErrRetry)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("got %v after %d calls, want success at the third", err, calls)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM fixture_attempts`); n != 1 {
		t.Errorf("got %d rows, want the last attempt's only", n)
	}
	calls = 0
	err = db.Update(ctx, func(*sqldb.Tx) error {
		calls++
		return fmt.Errorf("conflict: %w", sqldb.ErrRetry)
	})
	if commerce.ErrorCode(err) != commerce.EConcurrentMod || calls != 5 {
		t.Errorf("got %v after %d calls, want concurrent_modification after 5", err, calls)
	}
	calls = 0
	failure := errors.New("not transient")
	if err := db.Update(ctx, func(*sqldb.Tx) error { calls++; return failure }); !errors.Is(err, failure) || calls != 1 {
		t.Errorf("got %v after %d calls, want the error after 1", err, calls)
	}
}

func dialectLead(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	const key = 424242
	lead, ok, err := db.TryLead(ctx, key)
	if err != nil || !ok {
		t.Fatalf("first: got %v, %v; want the lead", ok, err)
	}
	if err := lead.Check(ctx); err != nil {
		t.Errorf("check while held: %v", err)
	}
	if _, ok, err := db.TryLead(ctx, key); err != nil || ok {
		t.Fatalf("second while held: got %v, %v; want no lead", ok, err)
	}
	other, ok, err := db.TryLead(ctx, key+1)
	if err != nil || !ok {
		t.Fatalf("another key: got %v, %v; want the lead", ok, err)
	}
	other.Release()
	lead.Release()
	again, ok, err := db.TryLead(ctx, key)
	if err != nil || !ok {
		t.Fatalf("after release: got %v, %v; want the lead", ok, err)
	}
	again.Release()
}

func dialectMigrate(t *testing.T, db *sqldb.DB) {
	before := count(t, db, `SELECT COUNT(*) FROM schema_migrations`)
	if before == 0 {
		t.Fatal("no migration recorded")
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := count(t, db, `SELECT COUNT(*) FROM schema_migrations`); after != before {
		t.Errorf("got %d migrations after a second run, want %d", after, before)
	}
}
