// Package natsrelay publishes the event log to NATS JetStream: each event
// to subject commerce.<CHANNEL>.<TYPE>, at least once (JetStream's
// Nats-Msg-Id de-duplication drops the repeats a retry may cause), in log
// order, resuming from a cursor kept in the database after a restart of the
// service or of NATS. Among processes sharing a PostgreSQL database one
// leads and relays; the others wait to take over.
package natsrelay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

// Stream is the JetStream stream holding the events.
const Stream = "COMMERCE"

const (
	cursorName = "nats"
	leadKey    = 7262003
	batchSize  = 256
)

// Relay publishes the event log of a database to JetStream.
type Relay struct {
	db     *sqldb.DB
	url    string
	logger *slog.Logger
	// Poll is how often the log is checked when no commit was notified
	// (commits of other processes are seen this way).
	Poll time.Duration
}

// New returns a relay from db to the NATS server at url.
func New(db *sqldb.DB, url string, logger *slog.Logger) *Relay {
	return &Relay{db: db, url: url, logger: logger, Poll: 500 * time.Millisecond}
}

// Run relays until ctx ends. It returns only then (or when the NATS URL is
// unusable); connection losses are retried.
func (r *Relay) Run(ctx context.Context) error {
	nc, err := nats.Connect(r.url,
		nats.Name("commerce-relay"),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("natsrelay: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("natsrelay: %w", err)
	}
	wake := r.db.Notify()
	for ctx.Err() == nil {
		if err := r.lead(ctx, js, wake); err != nil && ctx.Err() == nil {
			r.logger.Warn("event relay paused", "err", err)
			commerce.Sleep(ctx, time.Second)
		}
	}
	return nil
}

// lead takes the lead, then publishes until ctx ends or something fails.
func (r *Relay) lead(ctx context.Context, js jetstream.JetStream, wake <-chan struct{}) error {
	lead, ok, err := r.db.TryLead(ctx, leadKey)
	if err != nil {
		return err
	}
	if !ok {
		commerce.Sleep(ctx, 2*time.Second)
		return nil
	}
	defer lead.Release()
	if err := ensureStream(ctx, js); err != nil {
		return err
	}
	cursor, err := r.db.Cursor(ctx, cursorName)
	if err != nil {
		return err
	}
	r.logger.Info("event relay publishing", "from_k", cursor.K, "from_seq", cursor.Seq)
	poll := time.NewTicker(r.Poll)
	defer poll.Stop()
	for ctx.Err() == nil {
		if err := lead.Check(ctx); err != nil {
			return fmt.Errorf("lost the relay lead: %w", err)
		}
		events, err := r.db.EventsAfter(ctx, cursor, batchSize)
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := r.publish(ctx, js, lead, e); err != nil {
				return err
			}
			cursor = e.Pos
		}
		if len(events) > 0 {
			if err := r.db.SetCursor(ctx, cursorName, cursor); err != nil {
				return err
			}
			if len(events) == batchSize {
				continue
			}
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-poll.C:
		}
	}
	return nil
}

// publish sends one event and waits for JetStream's acknowledgement,
// retrying through NATS outages (while it still leads) until ctx ends. An
// event too large for the server's message limit can never be sent as is:
// a stub with its id, channel, type and date and "truncated": true is sent
// instead (the whole event stays in event.list), so one large record never
// stops the stream.
func (r *Relay) publish(ctx context.Context, js jetstream.JetStream, lead *sqldb.Lead, e sqldb.Stored) error {
	data, err := json.Marshal(e.Event)
	if err != nil {
		return fmt.Errorf("marshal event %s: %w", e.ID, err)
	}
	msg := &nats.Msg{Subject: e.Subject(), Data: data, Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, e.ID)
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := js.PublishMsg(pctx, msg)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, nats.ErrMaxPayload) {
			r.logger.Warn("event too large for NATS: publishing a truncated stub", "event", e.ID, "bytes", len(data))
			msg.Data, _ = json.Marshal(stub{ID: e.ID, Channel: e.Channel, Type: e.Type, Date: e.Date, Truncated: true})
			continue
		}
		if attempt == 1 || attempt%20 == 0 {
			r.logger.Warn("publishing an event failed; retrying", "event", e.ID, "attempt", attempt, "err", err)
		}
		if err := lead.Check(ctx); err != nil {
			return fmt.Errorf("lost the relay lead: %w", err)
		}
		if err := ensureStream(ctx, js); err != nil {
			commerce.Sleep(ctx, backoff)
		}
		commerce.Sleep(ctx, backoff)
		backoff = min(2*backoff, 2*time.Second)
	}
}

// stub stands for an event too large to publish.
type stub struct {
	ID        string    `json:"id"`
	Channel   string    `json:"channel"`
	Type      string    `json:"type"`
	Date      time.Time `json:"date"`
	Truncated bool      `json:"truncated"`
}

// ensureStream creates the stream when it does not exist; an existing one
// is left as its operator configured it.
func ensureStream(ctx context.Context, js jetstream.JetStream) error {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := js.Stream(sctx, Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(sctx, jetstream.StreamConfig{
			Name:       Stream,
			Subjects:   []string{"commerce.>"},
			Storage:    jetstream.FileStorage,
			Duplicates: 2 * time.Minute,
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil // another relay created it meanwhile
		}
	}
	if err != nil {
		return fmt.Errorf("natsrelay: stream %s: %w", Stream, err)
	}
	return nil
}
