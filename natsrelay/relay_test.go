package natsrelay_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/natsrelay"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// NATSEnv names the variable with the NATS server URL for tests.
const NATSEnv = "COMMERCE_TEST_NATS_URL"

func natsURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(NATSEnv)
	if u == "" {
		t.Skip(NATSEnv + " is not set: skipping the NATS JetStream test (set it, e.g. nats://127.0.0.1:4222)")
	}
	return u
}

// appendEvents writes n events on a channel of the test's own, so tests
// sharing one NATS server never see each other's.
func appendEvents(t *testing.T, db *sqldb.DB, channel string, from, n int) []string {
	t.Helper()
	var ids []string
	for i := from; i < from+n; i++ {
		e, err := event.New(channel, event.Create, time.Now(), map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Append(context.Background(), []event.Event{e}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}

func testChannel() string {
	return "TEST" + strings.ToUpper(strings.NewReplacer("-", "", "_", "").Replace(commerce.NewID()))
}

// receive reads the channel's messages from the stream until want distinct
// events arrived (or time runs out) and returns the ids in arrival order,
// duplicates dropped (at-least-once delivery may repeat).
func receive(t *testing.T, url, channel string, want int) []string {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var cons jetstream.Consumer
	for {
		cons, err = js.OrderedConsumer(ctx, natsrelay.Stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"commerce." + channel + ".>"}})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("consumer: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	seen := map[string]bool{}
	var ids []string
	for len(ids) < want && ctx.Err() == nil {
		batch, err := cons.Fetch(want, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			continue
		}
		for msg := range batch.Messages() {
			var e event.Event
			if err := json.Unmarshal(msg.Data(), &e); err != nil {
				t.Fatalf("message is not an event: %s", msg.Data())
			}
			if msg.Subject() != "commerce."+channel+".CREATE" || e.Channel != channel {
				t.Fatalf("subject %s for event %+v", msg.Subject(), e)
			}
			if !seen[e.ID] {
				seen[e.ID] = true
				ids = append(ids, e.ID)
			}
		}
	}
	return ids
}

func startRelay(t *testing.T, db *sqldb.DB, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	r := natsrelay.New(db, url, slog.New(slog.DiscardHandler))
	r.Poll = 50 * time.Millisecond
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func equalIDs(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("received %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %s, want %s (out of order)", i, got[i], want[i])
		}
	}
}

func TestRelayPublishesInOrder(t *testing.T) {
	url := natsURL(t)
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		channel := testChannel()
		want := appendEvents(t, db, channel, 0, 50)
		startRelay(t, db, url)
		want = append(want, appendEvents(t, db, channel, 50, 50)...)
		equalIDs(t, receive(t, url, channel, len(want)), want)
	})
}

// natsServer runs a nats-server of the test's own, so the test can stop
// and restart it.
type natsServer struct {
	bin, port, dir string
	cmd            *exec.Cmd
}

func (s *natsServer) start(t *testing.T) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "-a", "127.0.0.1", "-p", s.port, "-js", "-sd", s.dir)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if c, err := net.Dial("tcp", "127.0.0.1:"+s.port); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("nats-server did not start")
}

func (s *natsServer) kill() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

func natsServerBinary(t *testing.T) string {
	if b := os.Getenv("COMMERCE_TEST_NATS_SERVER"); b != "" {
		return b
	}
	if b, err := exec.LookPath("nats-server"); err == nil {
		return b
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server"
	}
	t.Skip("no nats-server binary (set COMMERCE_TEST_NATS_SERVER): skipping the NATS restart test")
	return ""
}

func TestRelaySurvivesNATSRestart(t *testing.T) {
	natsURL(t) // NATS tests are enabled
	bin := natsServerBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	srv := &natsServer{bin: bin, port: port, dir: t.TempDir()}
	srv.start(t)
	t.Cleanup(srv.kill)
	url := "nats://127.0.0.1:" + port

	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		channel := testChannel()
		startRelay(t, db, url)
		want := appendEvents(t, db, channel, 0, 30)
		// Wait until some are through, then kill NATS mid-stream.
		if got := receive(t, url, channel, 10); len(got) < 10 {
			t.Fatalf("only %d events before the restart", len(got))
		}
		srv.kill()
		want = append(want, appendEvents(t, db, channel, 30, 30)...) // written while NATS is down
		time.Sleep(300 * time.Millisecond)
		srv.start(t)
		want = append(want, appendEvents(t, db, channel, 60, 30)...)
		equalIDs(t, receive(t, url, channel, len(want)), want)
	})
}

func TestSubject(t *testing.T) {
	e := event.Event{Channel: "PRODUCTS", Type: "VIEWED"}
	if got := e.Subject(); got != "commerce.PRODUCTS.VIEWED" {
		t.Errorf("got %s", got)
	}
}

// Two service processes on one PostgreSQL database: one relay leads, and
// the log still arrives once, in order.
func TestRelayTwoInstancesOnPostgres(t *testing.T) {
	url := natsURL(t)
	pgURL := testdb.PostgresURL(t)
	dbs := []*sqldb.DB{testdb.PostgresAt(t, pgURL), testdb.PostgresAt(t, pgURL)}
	channel := testChannel()
	startRelay(t, dbs[0], url)
	startRelay(t, dbs[1], url)
	var want []string
	for i := range 10 {
		want = append(want, appendEvents(t, dbs[i%2], channel, i*10, 10)...)
	}
	equalIDs(t, receive(t, url, channel, len(want)), want)
}

// An event larger than NATS's message limit goes out as a stub and does
// not hold up the events after it.
func TestRelayOversizedEvent(t *testing.T) {
	url := natsURL(t)
	db := testdb.SQLite(t)
	channel := testChannel()
	big, err := event.New(channel, event.Create, time.Now(), map[string]string{"description": strings.Repeat("x", 2<<20)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Append(context.Background(), []event.Event{big}); err != nil {
		t.Fatal(err)
	}
	want := append([]string{big.ID}, appendEvents(t, db, channel, 0, 3)...)
	startRelay(t, db, url)
	equalIDs(t, receive(t, url, channel, len(want)), want)
}
