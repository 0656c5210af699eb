package postgres_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// roundTrips is a TCP proxy in front of PostgreSQL that counts the round
// trips its clients make: the frontend messages after which a client waits
// for the server (Sync, and a simple Query).
type roundTrips struct {
	n  atomic.Int64
	ln net.Listener
	wg sync.WaitGroup
}

func countRoundTrips(t *testing.T, target string) (*roundTrips, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt := &roundTrips{ln: ln}
	server := u.Host
	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(c, s); c.Close() }()
			go func() { rt.forward(s, c); s.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); rt.wg.Wait() })
	u.Host = ln.Addr().String()
	return rt, u.String()
}

// forward copies a client's messages to the server, counting Sync ('S')
// and Query ('Q'). The first message (startup, SSL or cancel request) has
// no type byte.
func (rt *roundTrips) forward(dst io.Writer, src io.Reader) {
	var head [5]byte
	if _, err := io.ReadFull(src, head[:4]); err != nil {
		return
	}
	n := int64(binary.BigEndian.Uint32(head[:4]))
	if _, err := dst.Write(head[:4]); err != nil {
		return
	}
	if _, err := io.CopyN(dst, src, n-4); err != nil {
		return
	}
	for {
		if _, err := io.ReadFull(src, head[:]); err != nil {
			return
		}
		if head[0] == 'S' || head[0] == 'Q' {
			rt.n.Add(1)
		}
		if _, err := dst.Write(head[:]); err != nil {
			return
		}
		if _, err := io.CopyN(dst, src, int64(binary.BigEndian.Uint32(head[1:]))-4); err != nil {
			return
		}
	}
}

// TestUpdateRoundTrips: a write transaction of two updates and an event
// takes three round trips: BEGIN goes with the first statement, the event
// with the COMMIT (without the pipeline it took five: BEGIN, two
// statements, the event's insert, COMMIT); one when the updates go with
// the COMMIT (Tx.ExecAtCommit), as an add to cart's do.
func TestUpdateRoundTrips(t *testing.T) {
	direct := testdb.PostgresURL(t)
	rt, proxied := countRoundTrips(t, direct)
	db := testdb.PostgresAt(t, proxied)
	ctx := context.Background()
	newPipe(t, db)
	add := func() error {
		return db.Update(ctx, func(tx *sqldb.Tx) error {
			for _, id := range []string{"a", "b"} {
				res, err := tx.Exec(ctx, `UPDATE pipe SET n = n + 1 WHERE id = ?`, id)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil || n != 1 {
					return errors.Join(err, errors.New("no row updated"))
				}
			}
			tx.Emit(newEvent(t, "add"))
			return nil
		})
	}
	if err := add(); err != nil { // pgx prepares the statements once per connection
		t.Fatal(err)
	}
	before := rt.n.Load()
	if err := add(); err != nil {
		t.Fatal(err)
	}
	if got := rt.n.Load() - before; got != 3 {
		t.Errorf("a transaction of two updates and an event took %d round trips, want 3", got)
	}
	// The same with the commit, each update checking its row
	// (Tx.ExecAtCommit): one round trip (an add to cart, a new cart).
	atCommit := func() error {
		return db.Update(ctx, func(tx *sqldb.Tx) error {
			for _, id := range []string{"a", "b"} {
				if err := tx.ExecAtCommit(ctx, checkedAdd(t, tx, id, errors.New("no row updated"))); err != nil {
					return err
				}
			}
			tx.Emit(newEvent(t, "add"))
			return nil
		})
	}
	if err := atCommit(); err != nil {
		t.Fatal(err)
	}
	before = rt.n.Load()
	if err := atCommit(); err != nil {
		t.Fatal(err)
	}
	if got := rt.n.Load() - before; got != 1 {
		t.Errorf("a transaction of two updates with the commit and an event took %d round trips, want 1", got)
	}
	if a, b := pipeCounts(t, db); a != 4 || b != 4 {
		t.Errorf("after four adds: a = %d, b = %d, want 4 and 4", a, b)
	}
}

// newPipe creates the table pipe with the rows a and b, their n 0.
func newPipe(t *testing.T, db *sqldb.DB) {
	t.Helper()
	ctx := context.Background()
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `CREATE TABLE pipe (id TEXT PRIMARY KEY, n BIGINT NOT NULL); INSERT INTO pipe (id, n) VALUES ('a', 0), ('b', 0)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// pipeCounts returns the n of the rows a and b of pipe.
func pipeCounts(t *testing.T, db *sqldb.DB) (a, b int) {
	t.Helper()
	if err := db.QueryRow(context.Background(), `SELECT (SELECT n FROM pipe WHERE id = 'a'), (SELECT n FROM pipe WHERE id = 'b')`).Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// checkedAdd is a statement of Tx.ExecAtCommit adding 1 to the row id of
// pipe, failing the transaction with unmet when there is no such row.
func checkedAdd(t *testing.T, tx *sqldb.Tx, id string, unmet error) sqldb.Statement {
	t.Helper()
	expect, ok := tx.Expect("(SELECT count(*) FROM done) = 1")
	if !ok {
		t.Fatal("a transaction on PostgreSQL is not pipelined")
	}
	return sqldb.Statement{SQL: `WITH done AS (UPDATE pipe SET n = n + 1 WHERE id = ? RETURNING 1) SELECT ` + expect,
		Args: []any{id}, Unmet: unmet}
}

// TestExecAtCommitFailures: a statement sent with the COMMIT whose check
// fails fails its transaction with the statement's Unmet error, whichever
// statement it is and whether BEGIN went earlier; any other failure (a
// statement's, an event's) with its own error; nothing is committed, and
// no connection is left inside a transaction.
func TestExecAtCommitFailures(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	newPipe(t, db)
	wantN := func(what string, a, b int) {
		t.Helper()
		if gotA, gotB := pipeCounts(t, db); gotA != a || gotB != b {
			t.Errorf("%s: a = %d, b = %d, want %d and %d", what, gotA, gotB, a, b)
		}
	}
	events := func() int {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM events`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	first, second := errors.New("first unmet"), errors.New("second unmet")
	for _, tc := range []struct {
		name  string
		begun bool // a statement runs (and sends BEGIN) before
		ids   []string
		want  error
	}{
		{"the first fails", false, []string{"nobody", "a"}, first},
		{"the second fails", false, []string{"a", "nobody"}, second},
		{"after BEGIN, the first fails", true, []string{"nobody", "b"}, first},
		{"after BEGIN, the second fails", true, []string{"b", "nobody"}, second},
	} {
		err := db.Update(ctx, func(tx *sqldb.Tx) error {
			if tc.begun {
				if _, err := tx.Exec(ctx, `UPDATE pipe SET n = n + 100 WHERE id = ?`, "a"); err != nil {
					return err
				}
			}
			for i, id := range tc.ids {
				if err := tx.ExecAtCommit(ctx, checkedAdd(t, tx, id, []error{first, second}[i])); err != nil {
					return err
				}
			}
			tx.Emit(newEvent(t, "add"))
			return nil
		})
		if err != tc.want {
			t.Errorf("%s: %v, want exactly %v", tc.name, err, tc.want)
		}
		wantN(tc.name, 0, 0)
	}
	if n := events(); n != 0 {
		t.Errorf("%d events after the failed transactions, want none", n)
	}

	// A statement that fails otherwise: its own error, not Unmet.
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if err := tx.ExecAtCommit(ctx, checkedAdd(t, tx, "a", first)); err != nil {
			return err
		}
		return tx.ExecAtCommit(ctx, sqldb.Statement{SQL: `INSERT INTO pipe (id, n) VALUES (?, 0)`, Args: []any{"b"}, Unmet: second})
	})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey || errors.Is(err, first) || errors.Is(err, second) {
		t.Errorf("a duplicate key with the commit: %v, want %s", err, commerce.EDuplicateKey)
	}
	// An event that fails after them (its id is taken): the event's.
	e := newEvent(t, "once")
	if err := db.Append(ctx, []event.Event{e}); err != nil {
		t.Fatal(err)
	}
	err = db.Update(ctx, func(tx *sqldb.Tx) error {
		tx.Emit(e)
		return tx.ExecAtCommit(ctx, checkedAdd(t, tx, "a", first))
	})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey || errors.Is(err, first) {
		t.Errorf("an event failing after a statement with the commit: %v, want %s", err, commerce.EDuplicateKey)
	}
	// A caller gone before the commit: nothing is sent.
	gone, cancel := context.WithCancel(ctx)
	err = db.Update(gone, func(tx *sqldb.Tx) error {
		cancel()
		return tx.ExecAtCommit(ctx, checkedAdd(t, tx, "a", first))
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a caller gone before the commit: %v, want context.Canceled", err)
	}
	wantN("after the other failures", 0, 0)
	if n := events(); n != 1 {
		t.Errorf("%d events after the failed transactions, want the one appended", n)
	}

	// No connection was left inside a transaction: more transactions than
	// the pool has connections all commit.
	for i := range 3 * testdb.MaxConns {
		err := db.Update(ctx, func(tx *sqldb.Tx) error { return tx.ExecAtCommit(ctx, checkedAdd(t, tx, "b", first)) })
		if err != nil {
			t.Fatalf("transaction %d after the failures: %v", i, err)
		}
	}
	wantN("after the adds", 0, 3*testdb.MaxConns)
}

// TestUpdatePipelineFailures: every way a pipelined write transaction
// can fail leaves nothing behind and no connection in a transaction: a
// first statement that fails (sent with BEGIN), a function that fails
// after its first statement, an event that fails at the COMMIT, a caller
// gone before the commit, and a first statement that is a query.
func TestUpdatePipelineFailures(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	exec := func(q string, args ...any) func(tx *sqldb.Tx) error {
		return func(tx *sqldb.Tx) error {
			_, err := tx.Exec(ctx, q, args...)
			return err
		}
	}
	if err := db.Update(ctx, exec(`CREATE TABLE pipe (id TEXT PRIMARY KEY)`)); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(ctx, exec(`INSERT INTO pipe (id) VALUES ('a')`)); err != nil {
		t.Fatal(err)
	}
	has := func(id string) bool {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM pipe WHERE id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	// The first statement fails: duplicate_key, as without the pipeline.
	err := db.Update(ctx, exec(`INSERT INTO pipe (id) VALUES ('a')`))
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Errorf("a duplicate key in the first statement: %v, want %s", err, commerce.EDuplicateKey)
	}

	// The function fails after its first statement: rolled back.
	boom := errors.New("boom")
	err = db.Update(ctx, func(tx *sqldb.Tx) error {
		if err := exec(`INSERT INTO pipe (id) VALUES ('b')`)(tx); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("a failing function: %v, want its error", err)
	}
	if has("b") {
		t.Error("the row of a failed function was committed")
	}

	// The event fails at the COMMIT (its id is taken): the whole
	// transaction is rolled back.
	e := newEvent(t, "once")
	if err := db.Append(ctx, []event.Event{e}); err != nil {
		t.Fatal(err)
	}
	err = db.Update(ctx, func(tx *sqldb.Tx) error {
		tx.Emit(e)
		return exec(`INSERT INTO pipe (id) VALUES ('c')`)(tx)
	})
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Errorf("an event whose insert fails at the commit: %v, want %s", err, commerce.EDuplicateKey)
	}
	if has("c") {
		t.Error("the row of a transaction whose event failed was committed")
	}

	// The caller goes away before the commit: rolled back.
	gone, cancel := context.WithCancel(ctx)
	err = db.Update(gone, func(tx *sqldb.Tx) error {
		err := exec(`INSERT INTO pipe (id) VALUES ('d')`)(tx)
		cancel()
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a caller gone before the commit: %v, want context.Canceled", err)
	}
	if has("d") {
		t.Error("the row of a caller gone before the commit was committed")
	}

	// A query first (BEGIN on its own), then a statement.
	err = db.Update(ctx, func(tx *sqldb.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM pipe`).Scan(&n); err != nil {
			return err
		}
		return exec(`INSERT INTO pipe (id) VALUES (?)`, strings.Repeat("e", n))(tx)
	})
	if err != nil || !has("e") {
		t.Errorf("a query, then an insert: %v (committed: %v)", err, has("e"))
	}

	// No connection was left inside a transaction: more transactions than
	// the pool has connections all commit.
	for i := range 3 * testdb.MaxConns {
		id := strings.Repeat("f", i+1)
		if err := db.Update(ctx, exec(`INSERT INTO pipe (id) VALUES (?)`, id)); err != nil {
			t.Fatalf("transaction %d after the failures: %v", i, err)
		}
	}
}

// TestPipelineCommitRolledBack: a COMMIT that PostgreSQL answers with a
// rollback (the transaction had failed) is an error, not a success.
func TestPipelineCommitRolledBack(t *testing.T) {
	u := testdb.PostgresURL(t)
	pool, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	d := postgres.Dialect{}
	n, err := d.Pipeline(ctx, nil, conn, []sqldb.Statement{{SQL: "BEGIN"}, {SQL: "SELECT 1/0"}, {SQL: "SELECT 1"}})
	if err == nil || len(n) != 1 {
		t.Fatalf("BEGIN, a division by zero, a select: %v, %v; want the division's error after one statement", n, err)
	}
	if _, err := d.Pipeline(ctx, nil, conn, []sqldb.Statement{{SQL: "COMMIT"}}); err == nil {
		t.Error("the COMMIT of a failed transaction succeeded")
	}
	n, err = d.Pipeline(ctx, nil, conn, []sqldb.Statement{{SQL: "BEGIN"}, {SQL: "SELECT 1"}, {SQL: "COMMIT"}})
	if err != nil || len(n) != 3 {
		t.Errorf("BEGIN, SELECT, COMMIT after the rollback: %v, %v", n, err)
	}
}

// idleInTransaction counts the connections to db's database left inside a
// transaction (or an aborted one) while idle.
func idleInTransaction(t *testing.T, db *sqldb.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), `SELECT COUNT(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUpdatePipelineLeftovers: what a transaction's function leaves
// behind never outlives the transaction. A function that panics after a
// row lock leaves no transaction holding it (another process updates the
// row at once); one that panics or returns with rows still open does not
// hang Update; a transaction of events alone whose insert fails leaves no
// aborted transaction on its connection; a first statement without
// arguments may hold several statements.
func TestUpdatePipelineLeftovers(t *testing.T) {
	u := testdb.PostgresURL(t)
	db, other := testdb.PostgresAt(t, u), testdb.PostgresAt(t, u)
	ctx := context.Background()
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `CREATE TABLE pipe (id TEXT PRIMARY KEY, n BIGINT NOT NULL); CREATE TABLE pipe2 (id TEXT)`)
		return err
	}); err != nil {
		t.Fatalf("two statements without arguments first: %v", err)
	}
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO pipe (id, n) VALUES (?, 0)`, "a")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	bounded := func(what string, fn func(tx *sqldb.Tx) error) {
		t.Helper()
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			done <- db.Update(ctx, fn)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: Update did not return", what)
		}
	}
	bounded("a panic after a row lock", func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE pipe SET n = n + 1 WHERE id = ?`, "a"); err != nil {
			return err
		}
		panic("boom")
	})
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := other.Update(wait, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(wait, `UPDATE pipe SET n = n + 10 WHERE id = ?`, "a")
		return err
	}); err != nil {
		t.Fatalf("the row of a transaction whose function panicked is still locked: %v", err)
	}
	bounded("a panic with rows open", func(tx *sqldb.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM pipe`)
		if err != nil {
			return err
		}
		_ = rows
		panic("boom")
	})
	bounded("a return with rows open", func(tx *sqldb.Tx) error {
		_, err := tx.Query(ctx, `SELECT id FROM pipe`)
		return err
	})
	e := newEvent(t, "once")
	if err := db.Append(ctx, []event.Event{e}); err != nil {
		t.Fatal(err)
	}
	if err := db.Append(ctx, []event.Event{e}); commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Errorf("an event appended twice: %v, want %s", err, commerce.EDuplicateKey)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT n FROM pipe WHERE id = ?`, "a").Scan(&n); err != nil || n != 10 {
		t.Errorf("n = %d (%v), want 10: the panicked increment rolled back, the other's committed", n, err)
	}
	for _, d := range []*sqldb.DB{db, other} {
		if got := idleInTransaction(t, d); got != 0 {
			t.Errorf("%d connections left idle inside a transaction", got)
		}
	}
}
