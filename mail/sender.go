package mail

import (
	"context"
	"errors"
	"time"
)

// Sender sends a message: the adapters mail/smtp and mail/file, built by
// app from --mail. Send may be called again for a message already sent
// (at least once): the Message-ID lets the receiving side tell.
type Sender interface {
	Send(ctx context.Context, m Outgoing) error
}

// Outgoing is a message as it is sent: what Message holds, with the
// secret put back in place of Redacted.
type Outgoing struct {
	// MessageID is the Message-ID header without <>.
	MessageID string
	// ID is the message's id (the file adapter names its file after it).
	ID       string
	From, To string
	Subject  string
	// Text and HTML are the two parts of the multipart/alternative body.
	Text, HTML string
	// Date is the Date header: when the message was queued.
	Date time.Time
	// Template is the message's template (an X-Commerce-Template header).
	Template string
}

// PermanentError is a failure that no retry mends (a refused
// recipient): the message is FAILED at once.
type PermanentError struct{ Err error }

// Error returns the failure's message.
func (e *PermanentError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as a failure that no retry mends.
func Permanent(err error) error { return &PermanentError{Err: err} }

// isPermanent reports a PermanentError in err's chain.
func isPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
