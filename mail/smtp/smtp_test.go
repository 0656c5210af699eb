package smtp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	stderrors "errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/mail/smtp"
	"github.com/commercekit/commerce/testkit/mailpit"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		url, err string
	}{
		{"smtp://127.0.0.1:1025", ""},
		{"smtp://user:secret@mail.example:587?tls=required", ""},
		{"smtps://mail.example", ""},
		{"http://mail.example", "scheme"},
		{"smtp://", "no host"},
		{"smtp://mail.example:99999", "port"},
		{"smtp://mail.example?tls=maybe", "tls="},
		{"smtp://mail.example?insecure=1", "unknown parameter"},
	} {
		_, err := smtp.New(tc.url, smtp.Options{})
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("New(%q): %v, want %q", tc.url, err, tc.err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("New(%q): the error shows the password: %v", tc.url, err)
		}
	}
}

func outgoing(to string) mail.Outgoing {
	return mail.Outgoing{MessageID: "m1." + to + "@shop.example", ID: "m1", From: "Acme Shop <orders@shop.example>", To: to,
		Subject: "Acme Shop: order 1001 confirmed", Text: "Thank you\nLine two é", HTML: "<p>Thank you</p>",
		Date: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC), Template: mail.OrderConfirmation}
}

// TestSend: a message handed to Mailpit arrives with its headers and
// both parts; with ?tls=required and a server that offers no STARTTLS
// nothing is sent.
func TestSend(t *testing.T) {
	mp := mailpit.Start(t)
	s, err := smtp.New("smtp://"+mp.SMTP, smtp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), outgoing("ada@example.com")); err != nil {
		t.Fatal(err)
	}
	ms := mp.Wait(t, 1)
	m := mp.Message(t, ms[0].ID)
	if m.MessageID != "m1.ada@example.com@shop.example" || m.Subject != "Acme Shop: order 1001 confirmed" ||
		m.From.Address != "orders@shop.example" || m.From.Name != "Acme Shop" || len(m.To) != 1 || m.To[0].Address != "ada@example.com" {
		t.Errorf("message: %+v", m.Summary)
	}
	if strings.ReplaceAll(m.Text, "\r\n", "\n") != "Thank you\nLine two é" || m.HTML != "<p>Thank you</p>" {
		t.Errorf("parts: %q %q", m.Text, m.HTML)
	}
	h := mp.Headers(t, ms[0].ID)
	if !strings.HasPrefix(h.Get("Content-Type"), "multipart/alternative;") || h.Get("Date") != "Wed, 04 Mar 2026 10:00:00 +0000" ||
		h.Get("X-Commerce-Template") != mail.OrderConfirmation {
		t.Errorf("headers: %v", h)
	}

	req, _ := smtp.New("smtp://"+mp.SMTP+"?tls=required", smtp.Options{})
	err = req.Send(context.Background(), outgoing("bob@example.com"))
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Errorf("tls=required to a server without STARTTLS: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(mp.Messages(t)); n != 1 {
		t.Errorf("%d messages, want 1: sent in the clear", n)
	}
	mp.Stop()
	if err := s.Send(context.Background(), outgoing("carol@example.com")); err == nil {
		t.Errorf("sent to a stopped server")
	} else if stderrors.As(err, new(*mail.PermanentError)) {
		t.Errorf("a stopped server is a permanent failure: %v", err)
	}
}

// TestTLS: STARTTLS (required) and implicit TLS (smtps://) to a Mailpit
// with a certificate the client trusts.
func TestTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	for _, mode := range []struct {
		name, scheme, query string
		flags               []string
	}{
		{"starttls", "smtp", "?tls=required", []string{"--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile, "--smtp-require-starttls"}},
		{"implicit", "smtps", "", []string{"--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile, "--smtp-require-tls"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			mp := mailpit.Start(t, mode.flags...)
			s, err := smtp.New(mode.scheme+"://"+mp.SMTP+mode.query, smtp.Options{TLSConfig: tc})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Send(context.Background(), outgoing("ada@example.com")); err != nil {
				t.Fatal(err)
			}
			if ms := mp.Wait(t, 1); ms[0].Subject != "Acme Shop: order 1001 confirmed" {
				t.Errorf("received %+v", ms)
			}
			// Without trusting the certificate, nothing is sent.
			untrusted, _ := smtp.New(mode.scheme+"://"+mp.SMTP+mode.query, smtp.Options{})
			if err := untrusted.Send(context.Background(), outgoing("bob@example.com")); err == nil {
				t.Errorf("sent over TLS to an untrusted certificate")
			}
		})
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their files and a pool trusting it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
