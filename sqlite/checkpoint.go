package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// checkpointEvery is how often the checkpointer copies the write-ahead
// log into the database file.
const checkpointEvery = 100 * time.Millisecond

// checkpointer copies the write-ahead log into the database file from a
// connection of its own (PRAGMA wal_checkpoint(PASSIVE)), instead of the
// writer doing it at the commit that crosses SQLite's threshold
// (wal_autocheckpoint, turned off on the writer): the writer, which every
// write waits for, never spends its time copying pages and syncing the
// database file. A passive checkpoint waits for no one; the log restarts
// from its beginning once it is fully copied and no reader needs it, and
// journal_size_limit truncates it back after a burst.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(dsn string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
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
			// An error (the database busy, closing) is tried again at
			// the next tick; the log only grows meanwhile.
			c.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		}
	}
}

// close stops the checkpointer, after one last checkpoint.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	c.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
	return c.db.Close()
}
