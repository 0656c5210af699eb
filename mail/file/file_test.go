package file_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/mail/file"
)

// TestSend: a message is one .eml file named after its date, template and
// id; sending it again (at least once) rewrites that file, leaving no
// temporary file behind.
func TestSend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mail")
	s, err := file.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := mail.Outgoing{MessageID: "abc@shop.example", ID: "abc", From: "Shop <shop@localhost>", To: "ada@example.com",
		Subject: "Shop: order 1001 confirmed", Text: "Thank you", HTML: "<p>Thank you</p>",
		Date: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC), Template: mail.OrderConfirmation}
	for range 2 {
		if err := s.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "20260304-100000-order_confirmation-abc.eml" {
		t.Fatalf("files: %v", entries)
	}
	b, _ := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	for _, want := range []string{"Message-ID: <abc@shop.example>", "To: <ada@example.com>", "Content-Type: multipart/alternative;",
		"Content-Type: text/plain; charset=UTF-8", "Content-Type: text/html; charset=UTF-8"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in\n%s", want, b)
		}
	}
	bad := m
	bad.To = "not an address"
	if err := s.Send(context.Background(), bad); err == nil {
		t.Errorf("a bad address was written")
	}
}
