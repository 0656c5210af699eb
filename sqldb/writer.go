package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/event"
)

// Group commit, for a database with a single writer (SQLite).
//
// Update functions wait in one first-come-first-served queue; a single
// goroutine owns the write connection and takes everything that queued up
// while the previous commit was running, as one batch: one BEGIN
// IMMEDIATE, each function in its own SAVEPOINT (rolled back to it, and
// answered with its error, when it fails; a batch of one function needs
// none), the events of the functions that succeeded in one insert, one
// COMMIT, so one fsync for the whole batch (BEGIN IMMEDIATE is the
// dialect's BeginWrite). A caller is
// answered only once the COMMIT that holds its change succeeded. When the
// batch's transaction fails as a whole (its COMMIT, or an error after
// which SQLite rolls all of it back), the functions that had succeeded are
// run again one per transaction, so one write's failure never fails
// another.
// Functions run one after the other, as they would on a single connection:
// the guarantees of serialised writers (no lost update, no oversell,
// events in commit order) hold as before.
//
// The statements of a function run under a context that does not end with
// the caller's: an interruption (sqlite3_interrupt) would roll back the
// whole batch, not only the caller's part. A caller that gives up while
// its function is still queued withdraws it; once the function has
// started, the caller waits for the batch's outcome, so that an answer
// never hides a committed change.

// DefaultWriteQueue bounds the queue of write transactions.
const DefaultWriteQueue = 1024

// maxBatch bounds the functions of one batch, so that one COMMIT never
// waits for an unbounded amount of work.
const maxBatch = 256

// Request states.
const (
	reqQueued int32 = iota
	reqTaken
	reqWithdrawn
)

// writeReq is a queued write: a transaction function (fn), or exclusive
// use of the connection outside any batch (raw, for migrations).
type writeReq struct {
	ctx   context.Context
	fn    func(*Tx) error
	raw   func(ctx context.Context, conn *sql.Conn) error
	state atomic.Int32
	done  chan writeResult
}

type writeResult struct {
	err   error
	panic any // a panic of fn, raised again in the caller's goroutine
}

// writer is the single writer of a group-commit DB.
type writer struct {
	db    *DB
	queue chan *writeReq

	mu     sync.RWMutex // guards closed against sends
	closed bool
	stop   chan struct{}
	done   chan struct{}

	conn  *sql.Conn // the writer goroutine's; nil until needed, or after a failure
	cache *stmtCache
}

func newWriter(db *DB, queue int) *writer {
	if queue <= 0 {
		queue = DefaultWriteQueue
	}
	w := &writer{db: db, queue: make(chan *writeReq, queue), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// errQueueFull answers a write when the queue is full.
var errQueueFull = &commerce.Error{Code: commerce.EUnavailable, Message: "the write queue is full"}

// errClosed answers a write after Close.
var errClosed = errors.New("sqldb: database closed")

// submit queues r and waits for its outcome (or, while r is still
// queued, for ctx to end).
func (w *writer) submit(ctx context.Context, r *writeReq) error {
	r.ctx = ctx
	r.done = make(chan writeResult, 1)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return errClosed
	}
	select {
	case w.queue <- r:
	default:
		w.mu.RUnlock()
		return errQueueFull
	}
	w.mu.RUnlock()
	var res writeResult
	select {
	case res = <-r.done:
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqQueued, reqWithdrawn) {
			return ctx.Err()
		}
		res = <-r.done
	}
	if res.panic != nil {
		panic(res.panic)
	}
	return res.err
}

// close stops the writer once the queued writes are done and gives the
// connection back.
func (w *writer) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return
	}
	w.closed = true
	close(w.stop)
	w.mu.Unlock()
	<-w.done
}

func (w *writer) run() {
	defer close(w.done)
	defer w.release()
	batch := make([]*writeReq, 0, maxBatch)
	for {
		var first *writeReq
		select {
		case first = <-w.queue:
		case <-w.stop:
			// Answer what is still queued (nothing is added after stop).
			for {
				select {
				case r := <-w.queue:
					w.runBatch([]*writeReq{r})
				default:
					return
				}
			}
		}
		batch = append(batch[:0], first)
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-w.queue:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		w.runBatch(batch)
	}
}

// runBatch runs the transaction functions of batch in group transactions
// and the raw requests alone, in queue order.
func (w *writer) runBatch(batch []*writeReq) {
	start := 0
	for i, r := range batch {
		if r.raw == nil {
			continue
		}
		w.group(batch[start:i])
		w.exclusive(r)
		start = i + 1
	}
	w.group(batch[start:])
}

// connection returns the writer's connection, taking it from the pool
// when needed.
func (w *writer) connection() (*sql.Conn, error) {
	if w.conn != nil {
		return w.conn, nil
	}
	conn, err := w.db.write.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	w.conn = conn
	w.cache = newStmtCache(conn, defaultStmtCache)
	return conn, nil
}

// release closes the cached statements and gives the connection back
// (after a failure that may have broken it, or at the end).
func (w *writer) release() {
	if w.conn == nil {
		return
	}
	w.cache.close()
	w.conn.Close()
	w.conn, w.cache = nil, nil
}

// take marks r as started; false when its caller withdrew it.
func take(r *writeReq) bool { return r.state.CompareAndSwap(reqQueued, reqTaken) }

func (w *writer) exclusive(r *writeReq) {
	if !take(r) {
		return
	}
	conn, err := w.connection()
	if err == nil {
		err = r.raw(context.WithoutCancel(r.ctx), conn)
	}
	r.done <- writeResult{err: err}
}

// group runs the transaction functions of reqs in one transaction.
func (w *writer) group(reqs []*writeReq) {
	var taken []*writeReq
	for _, r := range reqs {
		if take(r) {
			taken = append(taken, r)
		}
	}
	if len(taken) > 0 {
		w.transaction(taken)
	}
}

// transaction runs the functions of reqs in one transaction and answers
// each. When the transaction fails as a whole (its COMMIT, or an error
// after which the database rolled all of it back), the functions that had
// succeeded are run again one per transaction (Update's functions may run
// more than once), so that one write's failure is never another's.
func (w *writer) transaction(reqs []*writeReq) {
	answer := func(r *writeReq, err error, p any) { r.done <- writeResult{err: w.db.translate(err), panic: p} }
	again := func(rs []*writeReq, err error) {
		if len(reqs) == 1 {
			for _, r := range rs {
				answer(r, err, nil)
			}
			return
		}
		for _, r := range rs {
			w.transaction([]*writeReq{r})
		}
	}
	ctx := context.Background()
	conn, err := w.connection()
	if err != nil {
		for _, r := range reqs {
			answer(r, fmt.Errorf("begin: %w", err), nil)
		}
		return
	}
	// BEGIN, SAVEPOINT, RELEASE and COMMIT are prepared once, too.
	q := cachedQuerier{cache: w.cache, plain: conn}
	if _, err := q.ExecContext(ctx, w.db.dialect.BeginWrite()); err != nil {
		w.release()
		for _, r := range reqs {
			answer(r, fmt.Errorf("begin: %w", err), nil)
		}
		return
	}
	var done []*writeReq // ran to the end of their function
	// The events of the functions that succeed are written together,
	// in order, in one statement (or a few) before the COMMIT: one
	// insert per function cost an eighth of the writer's time. Each
	// keeps the actor of its own request.
	var events []event.Event
	// scopes are the audit scopes whose entries the batch commits.
	var scopes []*audit.Scope
	// A lone function needs no SAVEPOINT: its failure rolls back the
	// whole transaction. (A savepoint's subjournal keeps the original of
	// every page it changes: a batch of VIEWED events paid for it.)
	solo := len(reqs) == 1
	for i, r := range reqs {
		if !solo {
			if _, err := q.ExecContext(ctx, "SAVEPOINT g"); err != nil {
				w.abort(conn)
				again(append(done, reqs[i:]...), fmt.Errorf("savepoint: %w", err))
				return
			}
		}
		tx := &Tx{tx: q, db: w.db, detached: true}
		p, err := w.call(r, tx)
		if err == nil && p == nil {
			// The audit entry of the request's change (audit.With),
			// inside its savepoint: it is committed with the change.
			if st, scope, ok := w.db.auditStatement(r.ctx, tx); ok {
				if _, err = tx.Exec(r.ctx, st.SQL, st.Args...); err == nil {
					scopes = append(scopes, scope)
				}
			}
		}
		if (err != nil || p != nil) && solo {
			w.abort(conn)
			answer(r, err, p)
			return
		}
		if err != nil || p != nil {
			_, rerr := conn.ExecContext(ctx, "ROLLBACK TO g")
			if rerr == nil {
				_, rerr = conn.ExecContext(ctx, "RELEASE g")
			}
			answer(r, err, p)
			if rerr != nil {
				// The transaction itself is gone (SQLite rolls all of
				// it back after some errors).
				w.abort(conn)
				again(append(done, reqs[i+1:]...), fmt.Errorf("the transaction was rolled back: %w", rerr))
				return
			}
			continue
		}
		if !solo {
			if _, err := q.ExecContext(ctx, "RELEASE g"); err != nil {
				w.abort(conn)
				again(append(done, reqs[i:]...), fmt.Errorf("release: %w", err))
				return
			}
		}
		done = append(done, r)
		if len(tx.events) > 0 {
			actor := event.ActorFrom(r.ctx)
			for _, e := range tx.events {
				if e.Actor == "" {
					e.Actor = actor
				}
				events = append(events, e)
			}
		}
	}
	if len(done) == 0 {
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			w.release()
		}
		return
	}
	if len(events) > 0 {
		if err := w.db.insertEvents(ctx, &Tx{tx: q, db: w.db, detached: true}, events); err != nil {
			w.abort(conn)
			again(done, err)
			return
		}
	}
	if _, err := q.ExecContext(ctx, "COMMIT"); err != nil {
		w.abort(conn)
		again(done, fmt.Errorf("commit: %w", err))
		return
	}
	w.db.transactions.Add(int64(len(done)))
	w.db.commits.Add(1)
	for _, s := range scopes {
		s.Committed()
	}
	if len(events) > 0 {
		w.db.notify()
	}
	for _, r := range done {
		r.done <- writeResult{}
	}
}

// abort rolls back whatever is left of the transaction; when that fails
// (the database may have rolled it back itself), the connection is given
// back and the next batch takes one afresh.
func (w *writer) abort(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		w.release()
	}
}

// call runs r's function, catching a panic to raise it again in the
// caller's goroutine (the writer must go on).
func (w *writer) call(r *writeReq, tx *Tx) (p any, err error) {
	defer func() {
		if v := recover(); v != nil {
			p = v
		}
	}()
	return nil, r.fn(tx)
}
