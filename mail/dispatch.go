package mail

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/dispatch"
)

// followBatch is how many events the follower reads per transaction.
const followBatch = 500

// skipEvery is how often the follower moves its cursor to the end of the
// log with mail off.
const skipEvery = 5 * time.Second

// followGap is the shortest time between two rounds of the follower
// woken by new events (as the webhook follower's).
const followGap = 20 * time.Millisecond

// Run follows the outbox (in the one process that leads) and sends due
// messages (in every process) until ctx ends: the webhook dispatcher's
// shape. With mail off it only keeps the follower's cursor at the end of
// the log, so that turning mail on later mails no past event.
func (s *Service) Run(ctx context.Context, wake <-chan struct{}, logger *slog.Logger) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.follow(ctx, wake, logger) })
	if s.On() {
		wg.Go(func() { s.dispatch(ctx, logger) })
	}
	wg.Wait()
}

// follow queues the messages of the event log while it leads.
func (s *Service) follow(ctx context.Context, wake <-chan struct{}, logger *slog.Logger) {
	for ctx.Err() == nil {
		check, release, ok, err := s.store.Lead(ctx)
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				logger.Warn("mail follower: lead", "err", err)
			}
			commerce.Sleep(ctx, 2*time.Second)
			continue
		}
		err = s.followLeading(ctx, wake, check)
		release()
		if err != nil && ctx.Err() == nil {
			logger.Warn("mail follower paused", "err", err)
			commerce.Sleep(ctx, time.Second)
		}
	}
}

func (s *Service) followLeading(ctx context.Context, wake <-chan struct{}, check func(context.Context) error) error {
	every := s.cfg.Poll
	if !s.On() {
		// Only the cursor to keep near the end: now and then, not
		// after every commit.
		every, wake = skipEvery, nil
	}
	poll := time.NewTicker(every)
	defer poll.Stop()
	build := func(e event.Event) ([]Message, error) { return s.Build(ctx, e) }
	for ctx.Err() == nil {
		if err := check(ctx); err != nil {
			return err
		}
		n := 0
		var err error
		if s.On() {
			n, err = s.store.Follow(ctx, followBatch, build)
		} else {
			err = s.store.Skip(ctx)
		}
		if err != nil {
			return err
		}
		if n > 0 {
			s.poke()
		}
		if n == followBatch {
			continue
		}
		select {
		case <-ctx.Done():
		case <-wake:
			commerce.Sleep(ctx, followGap)
		case <-poll.C:
		}
	}
	return nil
}

// dispatch claims due messages and sends them, Workers at a time, each
// claim with a token of its own (see internal/dispatch.Run).
func (s *Service) dispatch(ctx context.Context, logger *slog.Logger) {
	dispatch.Run(ctx, dispatch.Config{Workers: s.cfg.Workers, Poll: s.cfg.Poll, Wake: s.wake},
		func(ctx context.Context, claim string, n int) ([]Message, error) {
			return s.store.Claim(ctx, claim, s.now(), s.cfg.Lease, n)
		},
		func(ctx context.Context, claim string, m Message) { s.attempt(ctx, claim, m, logger) },
		func(err error) { logger.Warn("mail dispatcher: claim", "err", err) })
}

// attempt sends one message and records the outcome, with a MAILS event
// when the message is SENT or FAILED. When ctx ends during the attempt
// nothing is recorded: the lease runs out and the message is sent again
// (at least once).
func (s *Service) attempt(ctx context.Context, claim string, m Message, logger *slog.Logger) {
	sendErr := s.send(ctx, m)
	if ctx.Err() != nil {
		return
	}
	now := s.clock()
	r := Result{ID: m.ID}
	attempts := m.Attempts + 1
	typ := ""
	switch {
	case sendErr == nil:
		r.Status, r.SentAt, typ = Sent, &now, EventSent
	default:
		msg := sendErr.Error()
		r.Error = &msg
		if !isPermanent(sendErr) && attempts <= len(s.cfg.Retry) {
			next := now.Add(s.cfg.Retry[attempts-1])
			r.Status, r.NextAttempt = Pending, &next
		} else {
			r.Status, typ = Failed, EventFailed
		}
		logger.Warn("mail: an attempt failed", "mail", m.ID, "template", m.Template, "attempt", attempts, "err", sendErr)
	}
	if typ != "" {
		e, err := event.New(event.Mails, typ, now, map[string]string{"id": m.ID, "template": m.Template, "to": m.To})
		if err != nil {
			logger.Warn("mail dispatcher: event", "mail", m.ID, "err", err)
		} else {
			// The payload names the recipient: the event is the
			// customer's, erased with their data (customer.remove).
			if m.CustomerID != "" {
				e = e.Owned(m.CustomerID)
			}
			r.Event = &e
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	ok, err := s.store.Record(rctx, claim, r)
	if err != nil {
		logger.Warn("mail dispatcher: record an attempt", "mail", m.ID, "err", err)
	} else if !ok {
		logger.Warn("mail dispatcher: lease lost before the attempt was recorded", "mail", m.ID)
	}
}

// send sends a message through the Sender, its secret put back.
func (s *Service) send(ctx context.Context, m Message) error {
	text, html := m.Text, m.HTML
	if m.Secret != "" {
		secret, err := s.cfg.Sealer.Open(m.Secret)
		if err != nil {
			return Permanent(err)
		}
		text = strings.ReplaceAll(text, Redacted, secret)
		html = strings.ReplaceAll(html, Redacted, secret)
	}
	actx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	return s.cfg.Sender.Send(actx, Outgoing{MessageID: m.MessageID, ID: m.ID, From: s.cfg.From, To: m.To,
		Subject: m.Subject, Text: text, HTML: html, Date: m.CreatedAt, Template: m.Template})
}
