package sqldb

import (
	"context"
	"database/sql"
	"sync"
)

// preparer prepares statements: a *sql.DB (statements prepared on each
// connection of the pool as they are used) or a *sql.Conn.
type preparer interface {
	PrepareContext(ctx context.Context, q string) (*sql.Stmt, error)
}

// stmtCache keeps prepared statements by query text, so that a query the
// stores run again and again is parsed once per connection instead of on
// every call (SQLite: a tenth of the CPU of a write transaction). It holds
// at most max statements; the least recently used one is closed to make
// room (database/sql finishes the calls and rows still using it first).
type stmtCache struct {
	prep preparer
	max  int

	mu    sync.Mutex
	clock uint64
	m     map[string]*cachedStmt
}

type cachedStmt struct {
	stmt *sql.Stmt
	used uint64 // clock of the last use
	refs int    // calls between get and put
	gone bool   // evicted: closed when refs drops to 0
}

// defaultStmtCache is how many statements a cache holds.
const defaultStmtCache = 256

func newStmtCache(p preparer, max int) *stmtCache {
	return &stmtCache{prep: p, max: max, m: make(map[string]*cachedStmt)}
}

// get returns the prepared statement of q, preparing it when needed, or
// nil when preparing failed (the caller runs q unprepared and meets the
// error, if it is one, there). put must follow.
func (c *stmtCache) get(ctx context.Context, q string) *cachedStmt {
	c.mu.Lock()
	c.clock++
	if cs, ok := c.m[q]; ok {
		cs.used, cs.refs = c.clock, cs.refs+1
		c.mu.Unlock()
		return cs
	}
	c.mu.Unlock()
	stmt, err := c.prep.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs, ok := c.m[q]; ok { // prepared meanwhile by another call
		stmt.Close()
		cs.used, cs.refs = c.clock, cs.refs+1
		return cs
	}
	if len(c.m) >= c.max {
		c.evictLocked()
	}
	cs := &cachedStmt{stmt: stmt, used: c.clock, refs: 1}
	c.m[q] = cs
	return cs
}

// put ends a use of a statement from get.
func (c *stmtCache) put(cs *cachedStmt) {
	c.mu.Lock()
	cs.refs--
	closeIt := cs.gone && cs.refs == 0
	c.mu.Unlock()
	if closeIt {
		cs.stmt.Close()
	}
}

// evictLocked drops the least recently used statement.
func (c *stmtCache) evictLocked() {
	var oldest string
	var old *cachedStmt
	for q, cs := range c.m {
		if old == nil || cs.used < old.used {
			oldest, old = q, cs
		}
	}
	if old == nil {
		return
	}
	delete(c.m, oldest)
	old.gone = true
	if old.refs == 0 {
		old.stmt.Close()
	}
}

// close closes every statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, cs := range c.m {
		delete(c.m, q)
		cs.gone = true
		if cs.refs == 0 {
			cs.stmt.Close()
		}
	}
}

// cachedQuerier runs statements through a statement cache: on the pool
// itself (tx nil), or within the transaction tx (Tx.StmtContext reuses the
// statement already prepared on the transaction's connection).
type cachedQuerier struct {
	cache *stmtCache
	tx    *sql.Tx
	plain querier // what runs a statement that could not be prepared
}

func (q cachedQuerier) stmt(ctx context.Context, cs *cachedStmt) *sql.Stmt {
	if q.tx == nil {
		return cs.stmt
	}
	return q.tx.StmtContext(ctx, cs.stmt)
}

// ExecContext implements querier.
func (q cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	cs := q.cache.get(ctx, query)
	if cs == nil {
		return q.plain.ExecContext(ctx, query, args...)
	}
	defer q.cache.put(cs)
	return q.stmt(ctx, cs).ExecContext(ctx, args...)
}

// QueryContext implements querier.
func (q cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	cs := q.cache.get(ctx, query)
	if cs == nil {
		return q.plain.QueryContext(ctx, query, args...)
	}
	defer q.cache.put(cs)
	return q.stmt(ctx, cs).QueryContext(ctx, args...)
}

// QueryRowContext implements querier.
func (q cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	cs := q.cache.get(ctx, query)
	if cs == nil {
		return q.plain.QueryRowContext(ctx, query, args...)
	}
	defer q.cache.put(cs)
	return q.stmt(ctx, cs).QueryRowContext(ctx, args...)
}
