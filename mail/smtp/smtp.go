// Package smtp is the mail sender that hands each message to an SMTP
// server (--mail smtp://... or smtps://...), through
// github.com/wneessen/go-mail.
//
//	smtp://[user:pass@]host[:port]               STARTTLS when the server offers it (port 25 by default)
//	smtp://[user:pass@]host[:port]?tls=required  refuses to send in the clear
//	smtps://[user:pass@]host[:port]              implicit TLS (port 465 by default)
//
// With a user, the client authenticates with the best mechanism the
// server offers (never a plain-text password over an unencrypted
// connection).
package smtp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/mail/message"
)

// Options tune the sender.
type Options struct {
	// TLSConfig replaces the TLS configuration (tests trust their own
	// certificate authority with it); the server name is the URL's host
	// when it sets none.
	TLSConfig *tls.Config
	// Timeout bounds a connection's dial and each command (30s when 0).
	Timeout time.Duration
}

// Sender sends through one SMTP server, a connection per message.
type Sender struct {
	host string
	opts []gomail.Option
}

// New returns a sender for an smtp:// or smtps:// URL; a URL it cannot
// use is an error that names the problem without the password.
func New(raw string, o Options) (*Sender, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("--mail: not a URL (smtp://[user:pass@]host:port, smtps://...)")
	}
	if u.Scheme != "smtp" && u.Scheme != "smtps" {
		return nil, fmt.Errorf("--mail: scheme %q: want smtp or smtps", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("--mail: no host")
	}
	port := 25
	if u.Scheme == "smtps" {
		port = 465
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("--mail: bad port %q", p)
		}
	}
	q := u.Query()
	for k := range q {
		if k != "tls" {
			return nil, fmt.Errorf("--mail: unknown parameter %q (only tls=required)", k)
		}
	}
	if v := q.Get("tls"); q.Has("tls") && v != "required" {
		return nil, fmt.Errorf("--mail: tls=%q: only tls=required", v)
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	tc := o.TLSConfig
	if tc == nil {
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
	} else {
		tc = tc.Clone()
	}
	if tc.ServerName == "" {
		tc.ServerName = host
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(o.Timeout), gomail.WithTLSConfig(tc)}
	switch {
	case u.Scheme == "smtps":
		opts = append(opts, gomail.WithSSL())
	case q.Get("tls") == "required":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if user := u.User.Username(); user != "" {
		pass, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(user), gomail.WithPassword(pass))
	}
	if _, err := gomail.NewClient(host, opts...); err != nil {
		return nil, fmt.Errorf("--mail: %w", err)
	}
	return &Sender{host: host, opts: opts}, nil
}

// Addr returns the server's address (host:port), for logs.
func (s *Sender) Addr() string {
	c, _ := gomail.NewClient(s.host, s.opts...)
	return c.ServerAddr()
}

// Send hands the message to the server on a connection of its own (a
// client per message: go-mail's client holds one connection). A refusal
// the server calls permanent (5xx) is a mail.PermanentError; anything
// else is retried.
func (s *Sender) Send(ctx context.Context, m mail.Outgoing) error {
	msg, err := message.Build(m)
	if err != nil {
		return err
	}
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return err
	}
	err = c.DialAndSendWithContext(ctx, msg)
	var se *gomail.SendError
	var ne net.Error
	if err != nil && errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 && !errors.As(err, &ne) {
		return mail.Permanent(err)
	}
	return err
}
