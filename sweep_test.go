package commerce

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSweep: a sweep runs at once, then every interval until its context
// ends; failures are logged at ERROR, rounds that did something at INFO,
// idle rounds not at all.
func TestSweep(t *testing.T) {
	var mu sync.Mutex
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&syncWriter{mu: &mu, w: &log}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	results := []struct {
		n   int
		err error
	}{{3, nil}, {0, errors.New("disk full")}, {0, nil}, {2, nil}}
	var rounds int
	done := make(chan struct{})
	go func() {
		Sweep(ctx, time.Millisecond, logger, "fixture", func(context.Context) (int, error) {
			if rounds == len(results) {
				// A tick can win the race with the cancellation for
				// one more round: an idle one.
				return 0, nil
			}
			r := results[rounds]
			rounds++
			if rounds == len(results) {
				cancel()
			}
			return r.n, r.err
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the sweep did not stop when its context ended")
	}
	mu.Lock()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	mu.Unlock()
	if rounds != 4 || len(lines) != 3 ||
		!strings.Contains(lines[0], `level=INFO msg="fixture sweep" count=3`) ||
		!strings.Contains(lines[1], `level=ERROR msg="fixture sweep failed" err="disk full"`) ||
		!strings.Contains(lines[2], `level=INFO msg="fixture sweep" count=2`) {
		t.Errorf("%d rounds, log:\n%s", rounds, strings.Join(lines, "\n"))
	}
}

type syncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
