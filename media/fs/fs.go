// Package fs keeps images in a folder (--media-store file:DIR): the key
// "<id>/400.jpg" is the file DIR/<id>/400.jpg.
package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/commercekit/commerce/media"
)

// Store is a folder of images (media.Blobs).
type Store struct{ dir string }

var _ media.Blobs = (*Store)(nil)

// New returns the store of a folder, made when missing.
func New(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("media folder: %w", err)
	}
	return &Store{dir: dir}, nil
}

// file is the file of a key; keys are relative slash paths without "..".
func (s *Store) file(key string) (string, error) {
	if key == "" || path.IsAbs(key) || path.Clean(key) != strings.TrimSuffix(key, "/") || strings.HasPrefix(key, "..") || strings.Contains(key, "\\") {
		return "", fmt.Errorf("media key %q: not a clean relative path", key)
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

// Put implements media.Blobs: written to a temporary file renamed over
// the key's, so that a reader sees the whole object or none.
func (s *Store) Put(_ context.Context, key string, data []byte, _ string) error {
	name, err := s.file(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".put-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// Open implements media.Blobs.
func (s *Store) Open(_ context.Context, key string) (media.Object, error) {
	name, err := s.file(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err // *PathError wrapping fs.ErrNotExist when missing
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", key, iofs.ErrNotExist)
	}
	return object{f, st.Size()}, nil
}

type object struct {
	*os.File
	size int64
}

func (o object) Size() int64 { return o.size }

// OSFile is the open file, so that a server can send it with sendfile.
func (o object) OSFile() *os.File { return o.File }

// Delete implements media.Blobs.
func (s *Store) Delete(_ context.Context, prefix string) error {
	if strings.HasSuffix(prefix, "/") {
		name, err := s.file(prefix)
		if err != nil {
			return err
		}
		return os.RemoveAll(name)
	}
	name, err := s.file(prefix)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(name)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
