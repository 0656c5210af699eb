//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockOpen takes the open lock of the database at path, without waiting:
// shared (every process while it has the database open) or exclusive (a
// restore). ok is false when another holder keeps it from being taken.
// The lock is a flock on the file PATH-open; the kernel releases it when
// the process ends, however it ends.
func lockOpen(path string, exclusive bool) (release func() error, ok bool, err error) {
	f, err := os.OpenFile(path+"-open", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("open lock: %w", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("lock %s-open: %w", path, err)
	}
	return func() error {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return f.Close()
	}, true, nil
}
