package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// checkpointEvery is how often the checkpointer copies the write-ahead
// log into the database file.
const checkpointEvery = 100 * time.Millisecond

// restartBytes is the log size past which the checkpointer empties the
// log (journal_size_limit's 64 MiB), and restartWait how long it waits
// for the readers of the log (its connection's busy_timeout).
const (
	restartBytes = 64 << 20
	restartWait  = "250"
)

// checkpointer copies the write-ahead log into the database file from a
// connection of its own (PRAGMA wal_checkpoint(PASSIVE)), instead of the
// writer doing it at the commit that crosses SQLite's threshold
// (wal_autocheckpoint, turned off on the writer): the writer, which every
// write waits for, never spends its time copying pages and syncing the
// database file. A passive checkpoint waits for no one; the log restarts
// from its beginning once it is fully copied and no reader needs it, and
// journal_size_limit truncates it back after a burst.
//
// Under load that never pauses some reader always holds a snapshot in
// the log, so it never restarts and grows with everything written (852 MB
// in a 40-second load run, and every read looks pages up in a larger
// log index). Once the log passes restartBytes, the checkpointer asks for
// a TRUNCATE checkpoint: it waits for the readers of the log to finish
// (their reads are short) for at most restartWait, holding back writers
// meanwhile, then empties the log. When a long read makes it give up, the
// next tick tries again.
type checkpointer struct {
	db   *sql.DB
	page int64 // the database's page size: a frame of the log holds one
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(dsn string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", strings.Replace(dsn, "busy_timeout(10000)", "busy_timeout("+restartWait+")", 1))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&c.page); err != nil || c.page <= 0 {
		c.page = 4096
	}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.checkpoint()
		}
	}
}

// checkpoint copies the log into the database, and empties it once it
// passes restartBytes. An error (the database busy, closing) is tried
// again at the next tick; the log only grows meanwhile.
func (c *checkpointer) checkpoint() {
	ctx := context.Background()
	var busy, frames, copied int64
	if err := c.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
		return
	}
	if frames > 0 && frames*c.page >= restartBytes {
		c.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &copied)
	}
}

// close stops the checkpointer, after one last checkpoint.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	c.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
	return c.db.Close()
}
