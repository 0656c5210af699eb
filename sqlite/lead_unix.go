//go:build unix

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/commercekit/commerce/sqldb"
)

// tryLock takes an exclusive flock on the file at path without waiting;
// nil when another open file (of this or another process) holds it.
func tryLock(path string) (sqldb.Lease, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lead file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &fileLease{f: f}, nil
}

// fileLease is a held flock: the kernel releases it when the process ends.
type fileLease struct{ f *os.File }

// Check reports nothing: a lock on an open file cannot be lost.
func (l *fileLease) Check(context.Context) error { return nil }

// Release unlocks and closes the file.
func (l *fileLease) Release() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}
