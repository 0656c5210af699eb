// Package message builds the RFC 5322 message of a mail.Outgoing with
// github.com/wneessen/go-mail: headers, and a multipart/alternative body
// with the text part first and the HTML part second (the preferred one
// last, RFC 2046 section 5.1.4). The mail adapters (mail/smtp, mail/file)
// send or write what it builds.
package message

import (
	"fmt"

	gomail "github.com/wneessen/go-mail"

	"github.com/commercekit/commerce/mail"
)

// Build returns the message of m.
func Build(m mail.Outgoing) (*gomail.Msg, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(m.From); err != nil {
		return nil, mail.Permanent(fmt.Errorf("from %q: %w", m.From, err))
	}
	if err := msg.To(m.To); err != nil {
		return nil, mail.Permanent(fmt.Errorf("to %q: %w", m.To, err))
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDateWithValue(m.Date)
	msg.SetUserAgent("commerce")
	msg.SetGenHeader("X-Commerce-Template", m.Template)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	return msg, nil
}
