package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
)

// countingDriver is a database/sql driver that only prepares and closes
// statements, counting them: for the statement cache's own bookkeeping.
type countingDriver struct {
	mu               sync.Mutex
	prepared, closed map[string]int
}

func (d *countingDriver) Open(string) (driver.Conn, error) { return countingConn{d}, nil }

type countingConn struct{ d *countingDriver }

func (c countingConn) Prepare(q string) (driver.Stmt, error) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.prepared[q]++
	return countingStmt{c.d, q}, nil
}
func (c countingConn) Close() error              { return nil }
func (c countingConn) Begin() (driver.Tx, error) { return nil, errors.New("no transactions") }

type countingStmt struct {
	d *countingDriver
	q string
}

func (s countingStmt) Close() error {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	s.d.closed[s.q]++
	return nil
}
func (s countingStmt) NumInput() int                              { return -1 }
func (s countingStmt) Exec([]driver.Value) (driver.Result, error) { return driver.RowsAffected(0), nil }
func (s countingStmt) Query([]driver.Value) (driver.Rows, error)  { return emptyRows{}, nil }
func (emptyRows) Columns() []string                               { return nil }
func (emptyRows) Close() error                                    { return nil }
func (emptyRows) Next([]driver.Value) error                       { return io.EOF }

type emptyRows struct{}

func countingDB(t *testing.T) (*sql.DB, *countingDriver) {
	d := &countingDriver{prepared: map[string]int{}, closed: map[string]int{}}
	name := fmt.Sprintf("counting-%p", d)
	sql.Register(name, d)
	db, err := sql.Open(name, "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db, d
}

// TestStmtCache: a query is prepared once however often it runs; past
// the capacity the least recently used statement is closed, but not while
// a call still uses it.
func TestStmtCache(t *testing.T) {
	db, d := countingDB(t)
	ctx := context.Background()
	c := newStmtCache(db, 2)
	q := cachedQuerier{cache: c, plain: db}
	for range 3 {
		if _, err := q.ExecContext(ctx, "A"); err != nil {
			t.Fatal(err)
		}
	}
	q.ExecContext(ctx, "B")
	q.ExecContext(ctx, "A") // A is now the most recently used
	if d.prepared["A"] != 1 || d.prepared["B"] != 1 {
		t.Fatalf("prepared %v, want A and B once", d.prepared)
	}
	held := c.get(ctx, "B") // in use while C evicts it
	q.ExecContext(ctx, "A") // B is the least recently used
	q.ExecContext(ctx, "C")
	if d.closed["B"] != 0 {
		t.Error("B was closed while in use")
	}
	c.put(held)
	if d.closed["B"] != 1 || d.closed["A"] != 0 {
		t.Errorf("closed %v, want B (least recently used) only, once its use ended", d.closed)
	}
	rows, err := q.QueryContext(ctx, "B") // prepared again, evicting A
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if d.prepared["B"] != 2 {
		t.Errorf("B prepared %d times, want 2 (once evicted)", d.prepared["B"])
	}
	c.close()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed["A"] != 1 || d.closed["B"] != 2 || d.closed["C"] != 1 {
		t.Errorf("closed %v after close, want every statement closed once", d.closed)
	}
}
