package commerce

import (
	"context"
	"log/slog"
	"time"
)

// Sweep runs job at once and then every interval until ctx ends: the
// background sweeps of the areas (expired carts, expired stock
// reservations, spent tokens). A failure is logged at ERROR and the next
// round tries again; a round that did something logs how much at INFO.
// what names the job in the log ("cart", "stock").
func Sweep[N int | int64](ctx context.Context, every time.Duration, logger *slog.Logger, what string, job func(context.Context) (N, error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := job(ctx); err != nil && ctx.Err() == nil {
			logger.Error(what+" sweep failed", "err", err)
		} else if n > 0 {
			logger.Info(what+" sweep", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sleep waits for d, or until ctx ends, whichever comes first, and returns
// ctx's error if it ended: the pause of a background loop between rounds.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
