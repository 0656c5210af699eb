// Package file is the mail sender that writes each message as an RFC 5322
// file (<date>-<template>-<id>.eml) into a folder (--mail file:DIR): a new install shows its
// mail without any server, and any mail program opens the files.
package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/mail/message"
)

// Sender writes messages into Dir.
type Sender struct{ Dir string }

// New returns a sender writing into dir, which it creates.
func New(dir string) (*Sender, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("--mail file:%s: %w", dir, err)
	}
	return &Sender{Dir: dir}, nil
}

// Send writes the message to <Dir>/<date>-<template>-<id>.eml (the date
// it was queued, UTC, so that a listing is in order), through a temporary file
// renamed into place, so that a reader never sees half a message and
// sending it again (at least once) rewrites the same file.
func (s *Sender) Send(ctx context.Context, m mail.Outgoing) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	msg, err := message.Build(m)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, ".mail-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename, nothing is there
	if _, err := msg.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o640); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.Dir, Name(m)))
}

// Name returns the file name of a message.
func Name(m mail.Outgoing) string {
	return m.Date.UTC().Format("20060102-150405") + "-" + m.Template + "-" + m.ID + ".eml"
}
