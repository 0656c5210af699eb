package event_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/testdb"
)

func TestBufferFlushesWithinInterval(t *testing.T) {
	db := testdb.SQLite(t)
	b := event.NewBuffer(db, slog.New(slog.DiscardHandler), 100*time.Millisecond, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx)
	for i := range 3 {
		e, err := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		b.Add(e)
	}
	deadline := time.Now().Add(2 * time.Second)
	var got []event.Event
	for time.Now().Before(deadline) {
		got, _ = db.List(context.Background(), event.Filter{Limit: 10})
		if len(got) == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 3 || got[0].Type != event.Viewed {
		t.Fatalf("got %d events after the interval, want 3 VIEWED", len(got))
	}
	// What is added before shutdown is flushed by it.
	e, _ := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": 3})
	b.Add(e)
	cancel()
	<-b.Done()
	got, _ = db.List(context.Background(), event.Filter{Limit: 10})
	if len(got) != 4 {
		t.Errorf("got %d events after shutdown, want 4", len(got))
	}
}

func TestBufferFlushesWhenFull(t *testing.T) {
	db := testdb.SQLite(t)
	b := event.NewBuffer(db, slog.New(slog.DiscardHandler), time.Hour, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); <-b.Done() }()
	go b.Run(ctx)
	for i := range 5 {
		e, _ := event.New(event.Products, event.Viewed, time.Now(), map[string]int{"n": i})
		b.Add(e)
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if got, _ := db.List(context.Background(), event.Filter{Limit: 10}); len(got) == 5 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a full buffer was not flushed before the interval")
}
