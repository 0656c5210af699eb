package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/internal/dispatch"
)

// followBatch is how many events the follower reads per transaction.
const followBatch = 500

// newClient returns the HTTP client of the attempts: no proxy (a proxy
// would connect on our behalf, past the address check), no redirects (a
// 3xx is not delivered), and unless allowPrivate a dialer that resolves
// the host with res and refuses forbidden addresses after the resolution
// (guardedDial, dialControl).
func newClient(allowPrivate bool, timeout time.Duration, res Resolver) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	dial := d.DialContext
	if !allowPrivate {
		d.Control = dialControl
		dial = guardedDial(d, res)
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Run follows the outbox (in the one process that leads) and dispatches
// due deliveries (in every process) until ctx ends.
func (s *Service) Run(ctx context.Context, wake <-chan struct{}, logger *slog.Logger) {
	logger = orDiscard(logger)
	var wg sync.WaitGroup
	wg.Go(func() { s.follow(ctx, wake, logger) })
	wg.Go(func() { s.dispatch(ctx, logger) })
	wg.Wait()
}

// follow creates deliveries from the event log while it leads.
func (s *Service) follow(ctx context.Context, wake <-chan struct{}, logger *slog.Logger) {
	for ctx.Err() == nil {
		check, release, ok, err := s.store.Lead(ctx)
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				logger.Warn("webhook follower: lead", "err", err)
			}
			commerce.Sleep(ctx, 2*time.Second)
			continue
		}
		err = s.followLeading(ctx, wake, check)
		release()
		if err != nil && ctx.Err() == nil {
			logger.Warn("webhook follower paused", "err", err)
			commerce.Sleep(ctx, time.Second)
		}
	}
}

func (s *Service) followLeading(ctx context.Context, wake <-chan struct{}, check func(context.Context) error) error {
	poll := time.NewTicker(s.cfg.Poll)
	defer poll.Stop()
	for ctx.Err() == nil {
		if err := check(ctx); err != nil {
			return err
		}
		n, err := s.store.Follow(ctx, s.now(), followBatch)
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
			// Events come in bursts: follow them every followGap at
			// most, not after every commit (each round is a read and a
			// write transaction).
			commerce.Sleep(ctx, followGap)
		case <-poll.C:
		}
	}
	return nil
}

// followGap is the shortest time between two rounds of the follower
// woken by new events: what it adds to a delivery's latency.
const followGap = 20 * time.Millisecond

// dispatch claims due deliveries and attempts them, Workers at a time,
// each claim with a token of its own (see internal/dispatch.Run).
func (s *Service) dispatch(ctx context.Context, logger *slog.Logger) {
	dispatch.Run(ctx, dispatch.Config{Workers: s.cfg.Workers, Poll: s.cfg.Poll, Wake: s.wake},
		func(ctx context.Context, claim string, n int) ([]Claimed, error) {
			return s.store.Claim(ctx, claim, s.now(), s.cfg.Lease, n)
		},
		func(ctx context.Context, claim string, c Claimed) { s.attempt(ctx, claim, c, logger) },
		func(err error) { logger.Warn("webhook dispatcher: claim", "err", err) })
}

// attempt sends one delivery and records the outcome. When ctx ends
// during the attempt nothing is recorded: the lease runs out and the
// delivery is attempted again (at least once).
func (s *Service) attempt(ctx context.Context, claim string, c Claimed, logger *slog.Logger) {
	code, sendErr := s.send(ctx, c)
	if ctx.Err() != nil {
		return
	}
	now := s.now().UTC()
	r := Result{DeliveryID: c.ID}
	if code != 0 {
		r.StatusCode = &code
	}
	attempts := c.Attempts + 1
	switch {
	case sendErr == nil:
		r.Status, r.DeliveredAt = Delivered, &now
	default:
		msg := sendErr.Error()
		r.Error = &msg
		if !c.LastTry && attempts <= len(s.cfg.Retry) {
			next := now.Add(s.cfg.Retry[attempts-1])
			r.Status, r.NextAttempt = Pending, &next
		} else {
			r.Status = Failed
		}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	ok, err := s.store.Record(rctx, claim, r)
	if err != nil {
		logger.Warn("webhook dispatcher: record an attempt", "delivery", c.ID, "err", err)
	} else if !ok {
		logger.Warn("webhook dispatcher: lease lost before the attempt was recorded", "delivery", c.ID)
	}
}

// send POSTs the event: 2xx within the timeout is success; code is the
// answer's status (0 when there was none).
func (s *Service) send(ctx context.Context, c Claimed) (code int, err error) {
	secret, err := s.cfg.Sealer.Open(c.Secret)
	if err != nil {
		return 0, err
	}
	body, err := json.Marshal(c.Event)
	if err != nil {
		return 0, err
	}
	ts := s.now().Unix()
	sig, err := Sign(secret, c.Event.ID, ts, body)
	if err != nil {
		return 0, err
	}
	actx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "commerce-webhooks/1")
	req.Header.Set("webhook-id", c.Event.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	res, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil {
			return 0, errors.New("no answer within " + s.cfg.Timeout.String())
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, errors.New("HTTP " + strconv.Itoa(res.StatusCode))
	}
	return res.StatusCode, nil
}
