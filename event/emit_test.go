package event

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type queue []Event

func (q *queue) Emit(e Event) { *q = append(*q, e) }

func TestEmit(t *testing.T) {
	var q queue
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	if err := Emit(&q, Taxes, Remove, now, map[string]any{"id": "t1"}); err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].ID == "" || q[0].Channel != Taxes || q[0].Type != Remove || !q[0].Date.Equal(now) || q[0].Date.Location() != time.UTC || string(q[0].Payload) != `{"id":"t1"}` {
		t.Errorf("got %+v", q)
	}
	if err := Emit(&q, Taxes, Remove, now, json.RawMessage(`{`)); err == nil || len(q) != 1 {
		t.Errorf("a payload that does not marshal: got %v and %d events, want an error and nothing queued", err, len(q))
	}
}

// TestChannels: every channel is in Channels once, spelled as its subject
// part (upper-case letters), the areas' channels of orders, customers,
// webhooks, returns and mail included.
func TestChannels(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Channels {
		if seen[c] || c == "" || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			t.Errorf("channel %q: repeated or not upper-case letters", c)
		}
		seen[c] = true
	}
	constants := []string{Products, Categories, Promotions, Carts, Taxes, Stock, Shipping, Orders, Customers, Webhooks, Returns, Mails}
	for _, c := range constants {
		if !seen[c] {
			t.Errorf("channel %q missing from Channels", c)
		}
	}
	if len(Channels) != len(seen) || len(seen) != len(constants) {
		t.Errorf("got %d channels, want the %d constants", len(Channels), len(constants))
	}
}
