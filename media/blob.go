package media

import (
	"context"
	"errors"
	"io"
	"io/fs"
)

// ErrNotExist is the error of Blobs.Open for a key that holds nothing
// (fs.ErrNotExist, so that errors.Is(err, fs.ErrNotExist) holds too).
var ErrNotExist = fs.ErrNotExist

// Blobs is the port to where image bytes are kept, by key
// ("<id>/original.jpg", "<id>/400.jpg"): a folder (media/fs) or an
// S3-compatible bucket (media/s3). Every method may be called
// concurrently.
type Blobs interface {
	// Put stores data under key, replacing what was there; a reader
	// never sees a partly written object.
	Put(ctx context.Context, key string, data []byte, contentType string) error
	// Open returns the object of a key, ErrNotExist (in its chain) when
	// there is none.
	Open(ctx context.Context, key string) (Object, error)
	// Delete removes every key that starts with prefix (nothing there is
	// no error).
	Delete(ctx context.Context, prefix string) error
}

// Object is a stored object being read.
type Object interface {
	io.ReadSeekCloser
	// Size is the object's length in bytes.
	Size() int64
}

// IsNotExist reports whether err says that a key holds nothing.
func IsNotExist(err error) bool { return errors.Is(err, ErrNotExist) }

// readFull reads len(b) bytes of r.
func readFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }
