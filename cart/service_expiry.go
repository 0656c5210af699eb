package cart

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/stock"
)

// expireID expires the cart id if it is ACTIVE and due (see Service.expire)
// and returns it as stored.
func (s *Service) expireID(ctx context.Context, id string) (*Cart, error) {
	var c *Cart
	err := s.store.Update(ctx, func(tx Tx) error {
		now := s.clock()
		var err error
		if c, err = tx.Lock(ctx, id); err != nil {
			return err
		}
		if c.Status == StatusActive && !now.Before(c.ExpirationTime) {
			return s.expire(ctx, tx, c, now)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire cart %s: %w", id, err)
	}
	c.DropLapsed(s.clock())
	return c, nil
}

// expire marks the locked cart EXPIRED, releases its reservations and
// emits UPDATE on CARTS with {operation: "cart.expire", new}.
func (s *Service) expire(ctx context.Context, tx Tx, c *Cart, now time.Time) error {
	if err := tx.Stock().ReleaseCart(ctx, c.ID); err != nil {
		return fmt.Errorf("expire cart %s: %w", c.ID, err)
	}
	c.Status = StatusExpired
	c.UpdatedAt = now
	for _, e := range c.Items {
		e.Reserves = []stock.Reservation{}
	}
	if err := tx.Save(ctx, c, nil); err != nil {
		return fmt.Errorf("expire cart %s: %w", c.ID, err)
	}
	return event.EmitOwned(tx, event.Carts, event.Update, now, c.ID, map[string]any{"operation": "cart.expire", "new": Render(c, CalculateForm)})
}

// SweepBatch is the most carts one sweep transaction expires.
const SweepBatch = 100

// Sweep expires every ACTIVE cart whose expiration time has passed, in
// transactions of up to SweepBatch carts, and returns how many it expired.
// Several processes may sweep at once: each cart is expired once.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := s.store.Update(ctx, func(tx Tx) error {
			n = 0
			now := s.clock()
			carts, err := tx.Expired(ctx, now, SweepBatch)
			if err != nil {
				return err
			}
			for _, c := range carts {
				if err := s.expire(ctx, tx, c, now); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("cart sweep: %w", err)
		}
		total += n
		if n < SweepBatch {
			return total, nil
		}
	}
}

// DefaultSweep is how often Run sweeps when given no interval.
const DefaultSweep = time.Minute

// Run sweeps expired carts at once and then every interval (DefaultSweep
// when 0 or less) until ctx ends, logging failures (the next round tries
// again).
func (s *Service) Run(ctx context.Context, every time.Duration, logger *slog.Logger) {
	if every <= 0 {
		every = DefaultSweep
	}
	commerce.Sweep(ctx, every, logger, "cart", s.Sweep)
}
